"""Start-up cost of the ``minikube-py`` command (issue 14, item 7).

    python benchmarks/startup.py [--runs 5] [--up-runs 3]

Times, as whole processes from exec:

1. ``minikube-py --help`` until it exits (goal <= 0.3 s);
2. ``minikube-py up --nodes 0`` on a fresh data dir (the cluster PKI is generated) until
   ``/readyz`` answers 200 (goal <= 1.5 s), and again on the same data dir (a second start);

against baselines measured in the same run, so a busy machine shows as a ratio that holds:
``python -c pass`` (the interpreter alone) and ``python -c 'import fastapi'`` (the web
framework the apiserver serves with). Each figure is the median of ``--runs`` (``--up-runs``)
runs, with min and max, of wall seconds and of the CPU seconds (user + system) the process
used by then: on a busy machine the CPU figure moves far less than the wall one. The timed
processes may cache bytecode (``__pycache__``) as an installed Python does, even where the
environment sets ``PYTHONDONTWRITEBYTECODE`` (``--no-bytecode-cache`` keeps it). Needs nothing
but ``pip install -e .`` (the CPU of ``up`` is read from ``/proc``, so Linux only).
"""

from __future__ import annotations

import argparse
import contextlib
import http.client
import os
import shlex
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

Sample = tuple[float, float]  # wall seconds, CPU seconds

HELP_GOAL, UP_GOAL = 0.3, 1.5
READY_TIMEOUT = 60.0
POLL_INTERVAL = 0.005


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--runs", type=int, default=5, help="runs of each quick command (default %(default)s)"
    )
    parser.add_argument("--up-runs", type=int, default=3, help="runs of each start (default %(default)s)")
    parser.add_argument(
        "--command",
        metavar="CMD",
        help="the minikube-py command to time, split as a shell would (default: the console script "
        "beside this interpreter), e.g. 'python -m minikube_py.cli.main' run from another checkout",
    )
    parser.add_argument(
        "--no-bytecode-cache",
        action="store_true",
        help="keep PYTHONDONTWRITEBYTECODE as the environment sets it (every start then compiles "
        "the project's sources again, about 0.4 s)",
    )
    args = parser.parse_args()
    if not args.no_bytecode_cache and os.environ.pop("PYTHONDONTWRITEBYTECODE", None):
        # As an installed Python runs: the warm-up run writes __pycache__, later runs load it.
        print("(PYTHONDONTWRITEBYTECODE unset for the timed processes: --no-bytecode-cache keeps it)")
    command = shlex.split(args.command) if args.command else minikube_py()
    python = [sys.executable]
    runs = args.runs
    rows = [
        ("python -c pass", repeat(runs, lambda: exited([*python, "-c", "pass"])), None),
        ("python -c 'import fastapi'", repeat(runs, lambda: exited([*python, "-c", "import fastapi"])), None),
        ("minikube-py --help", repeat(runs, lambda: exited([*command, "--help"])), HELP_GOAL),
    ]
    first: list[Sample] = []
    second: list[Sample] = []
    with tempfile.TemporaryDirectory(prefix="startup-") as tmp:
        up_ready(command, Path(tmp))  # warm-up, like repeat's: the file cache, compiled bytecode
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


def repeat(runs: int, measure: Callable[[], Sample]) -> list[Sample]:
    measure()  # warm-up: the file cache, compiled bytecode
    return [measure() for _ in range(runs)]


def exited(argv: list[str]) -> Sample:
    """Seconds from exec until ``argv`` exited (successfully), and the CPU it used."""
    start = time.perf_counter()
    process = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - start
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode != 0:
        raise SystemExit(f"{argv} exited with {process.returncode}")
    return wall, usage.ru_utime + usage.ru_stime


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of process ``pid`` so far, every thread included."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def up_ready(command: list[str], data_dir: Path) -> Sample:
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
        return time.perf_counter() - start, cpu_seconds(process.pid)


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
    connection = http.client.HTTPSConnection("127.0.0.1", port, timeout=2, context=_UNVERIFIED)
    try:
        connection.request("GET", "/readyz")
        return connection.getresponse().status == 200
    except OSError:
        return False
    finally:
        connection.close()


def _unverified_context() -> ssl.SSLContext:
    # made once: loading the system's CA certificates per attempt would cost the poller ~50 ms
    # of CPU each time, taken from the process being timed on a small machine
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    return context


_UNVERIFIED = _unverified_context()


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def report(rows: list[tuple[str, list[Sample], float | None]]) -> None:
    interpreter = statistics.median(wall for wall, _ in rows[0][1])
    fastapi = statistics.median(wall for wall, _ in rows[1][1])
    head = f"{'seconds from exec':42} {'wall: median':>12} {'min':>6} {'max':>6} {'goal':>5}"
    print(f"{head} {'/python':>7} {'/fastapi':>8} {'cpu: median':>11} {'min':>6} {'max':>6}")
    for name, samples, goal in rows:
        walls, cpus = [w for w, _ in samples], [c for _, c in samples]
        median = statistics.median(walls)
        verdict = "" if goal is None else f"{goal:.1f}{'' if median <= goal else '!'}"
        print(
            f"{name:42} {median:12.3f} {min(walls):6.3f} {max(walls):6.3f} {verdict:>5} "
            f"{median / interpreter:7.1f} {median / fastapi:8.2f} "
            f"{statistics.median(cpus):11.3f} {min(cpus):6.3f} {max(cpus):6.3f}"
        )
    print("('!': the median misses the goal; ratios: against the baselines' wall medians of this run)")


if __name__ == "__main__":
    sys.exit(main())
