"""Start-up cost of the ``minikube-py`` command (issue 14, item 7).

    python benchmarks/startup.py [--runs 5] [--up-runs 3]

Times, as whole processes from exec:

1. ``minikube-py --help`` until it exits (goal <= 0.3 s);
2. ``minikube-py up --nodes 0`` on a fresh data dir (the cluster PKI is generated) until
   ``/readyz`` answers 200 (goal <= 1.5 s), and again on the same data dir (a second start);

against baselines measured in the same run, so a busy machine shows as a ratio that holds:
``python -c pass`` (the interpreter alone) and ``python -c 'import fastapi'`` (the web
framework the apiserver serves with). Each figure is the median of ``--runs`` (``--up-runs``)
runs, with min and max. Needs nothing but ``pip install -e .``.
"""

from __future__ import annotations

import argparse
import contextlib
import http.client
import os
import signal
import socket
import ssl
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path

HELP_GOAL, UP_GOAL = 0.3, 1.5
READY_TIMEOUT = 60.0
POLL_INTERVAL = 0.005


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--runs", type=int, default=5, help="runs of each quick command (default %(default)s)"
    )
    parser.add_argument("--up-runs", type=int, default=3, help="runs of each start (default %(default)s)")
    args = parser.parse_args()
    command = minikube_py()
    python = [sys.executable]
    runs = args.runs
    rows = [
        ("python -c pass", repeat(runs, lambda: exited([*python, "-c", "pass"])), None),
        ("python -c 'import fastapi'", repeat(runs, lambda: exited([*python, "-c", "import fastapi"])), None),
        ("minikube-py --help", repeat(runs, lambda: exited([*command, "--help"])), HELP_GOAL),
    ]
    first, second = [], []
    for _ in range(args.up_runs):
        with tempfile.TemporaryDirectory(prefix="startup-") as tmp:
            first.append(up_ready(command, Path(tmp)))
            second.append(up_ready(command, Path(tmp)))
    rows += [
        ("up --nodes 0, fresh data dir: /readyz 200", first, UP_GOAL),
        ("up --nodes 0, second start: /readyz 200", second, UP_GOAL),
    ]
    report(rows)
    return 0


def minikube_py() -> list[str]:
    """The console script beside this interpreter, else the module."""
    script = Path(sys.executable).parent / "minikube-py"
    return [str(script)] if script.exists() else [sys.executable, "-m", "minikube_py.cli.main"]


def repeat(runs: int, measure: Callable[[], float]) -> list[float]:
    measure()  # warm-up: the file cache, compiled bytecode
    return [measure() for _ in range(runs)]


def exited(argv: list[str]) -> float:
    """Seconds from exec until ``argv`` exited (successfully)."""
    start = time.perf_counter()
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - start


def up_ready(command: list[str], data_dir: Path) -> float:
    """Seconds from exec of ``up --nodes 0`` until ``/readyz`` answered 200; then stop it."""
    port = free_port()
    argv = [*command, "up", "--nodes", "0", "--data-dir", str(data_dir), "--port", str(port)]
    argv.append("--no-kubeconfig-merge")
    log = data_dir / "up.log"
    with log.open("ab") as out, running(argv, out) as process:
        start = time.perf_counter()
        deadline = start + READY_TIMEOUT
        while not ready(port):
            if process.poll() is not None:
                raise SystemExit(f"up exited with {process.returncode}; see {log}")
            if time.perf_counter() > deadline:
                raise SystemExit(f"up not ready after {READY_TIMEOUT:.0f} s; see {log}")
            time.sleep(POLL_INTERVAL)
        return time.perf_counter() - start


@contextlib.contextmanager
def running(argv: list[str], out: object) -> Iterator[subprocess.Popen[bytes]]:
    process = subprocess.Popen(argv, stdout=out, stderr=out, env={**os.environ, "KUBECONFIG": os.devnull})
    try:
        yield process
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def ready(port: int) -> bool:
    """Whether ``GET /readyz`` answers 200 (anonymous; the certificate is not checked, as the
    CA may not be written yet on a first start)."""
    context = ssl.create_default_context()
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    connection = http.client.HTTPSConnection("127.0.0.1", port, timeout=2, context=context)
    try:
        connection.request("GET", "/readyz")
        return connection.getresponse().status == 200
    except OSError:
        return False
    finally:
        connection.close()


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def report(rows: list[tuple[str, list[float], float | None]]) -> None:
    interpreter = statistics.median(rows[0][1])
    fastapi = statistics.median(rows[1][1])
    head = f"{'seconds from exec':44} {'median':>7} {'min':>7} {'max':>7} {'goal':>6}"
    print(f"{head} {'/python':>8} {'/fastapi':>9}")
    for name, samples, goal in rows:
        median = statistics.median(samples)
        verdict = "" if goal is None else f"{goal:.1f}{'' if median <= goal else '!'}"
        print(
            f"{name:44} {median:7.3f} {min(samples):7.3f} {max(samples):7.3f} {verdict:>6} "
            f"{median / interpreter:8.1f} {median / fastapi:9.2f}"
        )
    print("('!': the median misses the goal; ratios: against the baselines' medians of this run)")


if __name__ == "__main__":
    sys.exit(main())
