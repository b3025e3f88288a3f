"""Regression: after a clean stop the process leaves at once. Tearing down a cluster's heap
(millions of cached objects) took the interpreter seconds, so ``up`` with 20,000 pods missed
the few seconds a SIGTERM may take; ``entry_point`` flushes and exits instead."""

from __future__ import annotations

import subprocess
import sys
import time

PROGRAM = """
import sys
import minikube_py.cli.main as cli

def main(argv=None):
    heap = [{"i": i, "items": [str(i)] * 3} for i in range(1_500_000)]  # a cluster-sized heap
    for a, b in zip(heap, heap[1:]):
        a["next"] = b  # kept alive until teardown
    print("done", flush=True)
    sys.modules["__main__"].heap = heap
    return 0

cli.main = main
cli.entry_point()
"""


def test_the_process_leaves_as_soon_as_main_returns() -> None:
    process = subprocess.Popen([sys.executable, "-c", PROGRAM], stdout=subprocess.PIPE, text=True)
    assert process.stdout is not None
    assert process.stdout.readline().strip() == "done"
    returned = time.monotonic()
    assert process.wait(timeout=30) == 0
    assert time.monotonic() - returned < 0.3
