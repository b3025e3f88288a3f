"""Regression: after a clean stop the process leaves at once. Tearing down a cluster's heap
(millions of cached objects) took the interpreter seconds, so ``up`` with 20,000 pods missed
the few seconds a SIGTERM may take; ``entry_point`` flushes and exits instead.

The test asserts the mechanism, not a time (a loaded machine makes any limit flaky): a finalizer
in the heap and an ``atexit`` hook run only if the interpreter tears down, and must not."""

from __future__ import annotations

import subprocess
import sys

PROGRAM = """
import atexit
import logging
import sys
import minikube_py.cli.main as cli

class Witness:
    def __del__(self):
        sys.stdout.write("heap torn down\\n")
        sys.stdout.flush()

def main(argv=None):
    heap = [{"i": i, "items": [str(i)] * 3} for i in range(100_000)]
    for a, b in zip(heap, heap[1:]):
        a["next"] = b  # kept alive until teardown
    heap[0]["witness"] = Witness()
    sys.modules["__main__"].heap = heap
    atexit.register(lambda: print("interpreter shutdown ran", flush=True))
    logging.getLogger("exit-test").addHandler(logging.StreamHandler(sys.stderr))
    print("done", flush=True)
    print("buffered and flushed by entry_point", end="")
    return 3

cli.main = main
cli.entry_point()
"""


def test_the_process_leaves_as_soon_as_main_returns() -> None:
    done = subprocess.run([sys.executable, "-c", PROGRAM], capture_output=True, text=True, timeout=60)
    assert done.returncode == 3  # main's code is the exit status
    assert done.stdout.splitlines() == ["done", "buffered and flushed by entry_point"]
