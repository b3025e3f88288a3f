"""Request limits benchmark: the apiserver's memory while clients send what issue 13 sent.

    .venv/bin/python benchmarks/request_limits.py [--header-mib 64] [--body-mib 400]

Starts ``minikube-py up`` (memory store, no nodes) on a free port and samples its resident
set size (``/proc/PID/status`` ``VmRSS``, every 10 ms) while:

* six anonymous connections at once each send a ``--header-mib`` header (the issue: RSS
  110 -> 600 MB before; the limit is 1 MiB, 431);
* one admin create sends a ``--body-mib`` body with a Content-Length, then one chunked
  (the issue: 913 MB peak before its 413; the limit is 3 MiB).

Prints, per scenario, the answer the clients got, the bytes they managed to send and the
server's peak RSS above its idle RSS. Figures, not assertions.
"""

from __future__ import annotations

import argparse
import os
import shutil
import socket
import ssl
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

MIB = 1024 * 1024
CHUNK = b"a" * 65536


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


@contextmanager
def cluster() -> Iterator[tuple[subprocess.Popen[bytes], int, Path]]:
    data = Path(tempfile.mkdtemp(prefix="request-limits-"))
    port = free_port()
    command = [sys.executable, "-m", "minikube_py.cli.main", "up", "--data-dir", str(data)]
    command += ["--port", str(port), "--store", "memory://", "--nodes", "0", "--no-kubeconfig-merge"]
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                with connect(port, data, admin=False) as conn:
                    conn.sendall(b"GET /readyz HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n")
                    if conn.recv(100).startswith(b"HTTP/1.1 200"):
                        break
            except OSError:
                time.sleep(0.1)
        time.sleep(2)  # the controllers' start-up settles
        yield process, port, data
    finally:
        process.terminate()
        process.wait()
        shutil.rmtree(data, ignore_errors=True)


def connect(port: int, data: Path, *, admin: bool) -> ssl.SSLSocket:
    context = ssl.create_default_context(cafile=str(data / "pki" / "ca.crt"))
    if admin:
        context.load_cert_chain(str(data / "pki" / "admin.crt"), str(data / "pki" / "admin.key"))
    raw = socket.create_connection(("127.0.0.1", port))
    return context.wrap_socket(raw, server_hostname="127.0.0.1")


def exchange(port: int, data: Path, head: bytes, chunks: Iterator[bytes], admin: bool) -> tuple[str, int]:
    """Send ``head`` then ``chunks`` while reading; (the status line, bytes sent)."""
    answer = bytearray()
    sent = 0
    with connect(port, data, admin=admin) as conn:
        done = threading.Event()

        def read() -> None:
            try:
                while chunk := conn.recv(65536):
                    answer.extend(chunk)
            except OSError:
                pass
            done.set()

        reader = threading.Thread(target=read, daemon=True)
        reader.start()
        try:
            conn.sendall(head)
            for chunk in chunks:
                if done.is_set() or answer:
                    break
                conn.sendall(chunk)
                sent += len(chunk)
        except OSError:
            pass
        done.wait(30)
    return bytes(answer).split(b"\r\n", 1)[0].decode(errors="replace"), sent


def repeat(total: int, chunk: bytes = CHUNK, wrap: Callable[[bytes], bytes] = lambda c: c) -> Iterator[bytes]:
    for _ in range(total // len(chunk)):
        yield wrap(chunk)


def measure(
    pid: int, work: Callable[[], list[tuple[str, int]]]
) -> tuple[list[tuple[str, int]], float, float]:
    idle = rss_mib(pid)
    peak = idle
    stop = threading.Event()

    def sample() -> None:
        nonlocal peak
        while not stop.is_set():
            peak = max(peak, rss_mib(pid))
            time.sleep(0.01)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    try:
        results = work()
    finally:
        stop.set()
        sampler.join()
    return results, idle, peak


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--header-mib", type=int, default=64)
    parser.add_argument("--body-mib", type=int, default=400)
    args = parser.parse_args()
    with cluster() as (process, port, data):

        def headers() -> list[tuple[str, int]]:
            head = b"GET /version HTTP/1.1\r\nHost: a\r\nX-Big: "
            out: list[tuple[str, int]] = []
            threads = [
                threading.Thread(
                    target=lambda: out.append(
                        exchange(port, data, head, repeat(args.header_mib * MIB), False)
                    )
                )
                for _ in range(6)
            ]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
            return out

        def body(chunked: bool) -> Callable[[], list[tuple[str, int]]]:
            path = b"POST /api/v1/namespaces/default/configmaps HTTP/1.1\r\nHost: a\r\n"
            length = args.body_mib * MIB
            framing = b"Transfer-Encoding: chunked\r\n" if chunked else b"Content-Length: %d\r\n" % length
            head = path + b"Content-Type: application/json\r\n" + framing + b"\r\n"
            wrap = (lambda c: b"%x\r\n%s\r\n" % (len(c), c)) if chunked else (lambda c: c)
            return lambda: [exchange(port, data, head, repeat(length, wrap=wrap), True)]

        scenarios = {
            f"6 x {args.header_mib} MiB header, anonymous": headers,
            f"{args.body_mib} MiB body, Content-Length": body(False),
            f"{args.body_mib} MiB body, chunked": body(True),
        }
        print(f"{'scenario':42} {'answer':42} {'sent MiB':>9} {'idle MiB':>9} {'peak MiB':>9}")
        for name, work in scenarios.items():
            results, idle, peak = measure(process.pid, work)
            answers = sorted({answer for answer, _ in results})
            sent = max(sent for _, sent in results) / MIB
            print(f"{name:42} {' / '.join(answers):42} {sent:9.1f} {idle:9.0f} {peak:9.0f}")
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} cpus")


if __name__ == "__main__":
    main()
