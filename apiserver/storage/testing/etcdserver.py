"""Real etcd members for tests: one ``EtcdServer``, or an ``EtcdCluster`` of several.

Each member runs the ``etcd`` binary from PATH on free loopback ports with a private temporary
data dir (removed when the object is garbage-collected or the interpreter exits). Flags follow
docs etcd.md §2.2/§2.3; the child gets no ``ETCD_*`` variables, because etcd reads every one of
them as a flag. A missing binary is an error, never a skip.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import urllib.error
import urllib.request
import weakref
from pathlib import Path

from apiserver.storage.errors import MAX_VALUE_BYTES

START_TIMEOUT = 15.0
STOP_TIMEOUT = 10.0
# etcd's default request limit (1.5 MiB) is below the KV contract's value limit.
MAX_REQUEST_BYTES = MAX_VALUE_BYTES + 512 * 1024


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def etcd_binary() -> str:
    path = shutil.which("etcd")
    if path is None:
        raise RuntimeError("etcd not installed: apt-get install etcd-server")
    return path


class EtcdServer:
    """One etcd member. ``start()`` launches it (again, on the same data dir, after ``stop``
    or ``kill``) and waits until it is healthy; ``endpoint`` is ``127.0.0.1:port``."""

    def __init__(
        self, name: str = "t", *, initial_cluster: str | None = None, workdir: Path | None = None
    ) -> None:
        self.name = name
        self.client_port, self.peer_port = free_port(), free_port()
        self.initial_cluster = initial_cluster or f"{name}={self.peer_url}"
        if workdir is None:
            workdir = Path(tempfile.mkdtemp(prefix="etcd-test-"))
            weakref.finalize(self, shutil.rmtree, workdir, True)
        self.data_dir = workdir / f"{name}.data"
        self.log_path = workdir / f"{name}.log"
        self._proc: subprocess.Popen[bytes] | None = None

    @property
    def endpoint(self) -> str:
        return f"127.0.0.1:{self.client_port}"

    @property
    def peer_url(self) -> str:
        return f"http://127.0.0.1:{self.peer_port}"

    @property
    def running(self) -> bool:
        return self._proc is not None and self._proc.poll() is None

    def start(self, *, wait: bool = True) -> None:
        if self.running:
            return
        with open(self.log_path, "ab") as log:
            self._proc = subprocess.Popen(
                self._command(), stdout=subprocess.DEVNULL, stderr=log, env=_env_without_etcd()
            )
        weakref.finalize(self, _kill, self._proc)
        if wait:
            self.wait_healthy()

    def wait_healthy(self, timeout: float = START_TIMEOUT) -> None:
        """Wait until /health says true (the member has a leader and serves reads)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if not self.running:
                raise RuntimeError(f"etcd {self.name} exited:\n{self.log_tail()}")
            if self.healthy():
                return
            time.sleep(0.05)
        raise RuntimeError(f"etcd {self.name} not healthy after {timeout}s:\n{self.log_tail()}")

    def healthy(self) -> bool:
        url = f"http://{self.endpoint}/health"
        try:
            with urllib.request.urlopen(url, timeout=1) as response:
                return bool(json.load(response).get("health") == "true")
        except (OSError, ValueError, urllib.error.URLError):
            return False

    def stop(self) -> None:
        """Graceful stop: TERM, then KILL if it has not exited in time."""
        if self._proc is None:
            return
        self._proc.terminate()
        try:
            self._proc.wait(STOP_TIMEOUT)
        except subprocess.TimeoutExpired:
            self.kill()
        self._proc = None

    def kill(self) -> None:
        """Crash: SIGKILL (acknowledged writes survive, they are fsynced)."""
        if self._proc is None:
            return
        _kill(self._proc)
        self._proc = None

    def log_tail(self, lines: int = 20) -> str:
        try:
            return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return "(no log)"

    def _command(self) -> list[str]:
        client = f"http://{self.endpoint}"
        return [
            etcd_binary(),
            *("--name", self.name, "--data-dir", str(self.data_dir)),
            *("--listen-client-urls", client, "--advertise-client-urls", client),
            *("--listen-peer-urls", self.peer_url, "--initial-advertise-peer-urls", self.peer_url),
            *("--initial-cluster", self.initial_cluster, "--initial-cluster-state", "new"),
            *("--initial-cluster-token", "test-cluster"),
            *("--max-request-bytes", str(MAX_REQUEST_BYTES)),
            *("--logger", "zap", "--log-level", "error"),
        ]


class EtcdCluster:
    """``n`` members on loopback; ``members[i]`` can be stopped, killed and started again."""

    def __init__(self, n: int = 3) -> None:
        workdir = Path(tempfile.mkdtemp(prefix="etcd-cluster-"))
        weakref.finalize(self, shutil.rmtree, workdir, True)
        self.members = [EtcdServer(f"m{i + 1}", workdir=workdir) for i in range(n)]
        initial = ",".join(f"{m.name}={m.peer_url}" for m in self.members)
        for member in self.members:
            member.initial_cluster = initial

    @property
    def endpoints(self) -> list[str]:
        return [m.endpoint for m in self.members]

    def start(self) -> None:
        """Start every member (they need each other for a quorum), then wait for all."""
        for member in self.members:
            member.start(wait=False)
        for member in self.members:
            member.wait_healthy()

    def stop(self) -> None:
        """Tear down: KILL is enough, the data is thrown away (a lone member is slow on TERM)."""
        for member in self.members:
            member.kill()


def _kill(proc: subprocess.Popen[bytes]) -> None:
    if proc.poll() is None:
        proc.send_signal(signal.SIGKILL)
    proc.wait()


def _env_without_etcd() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if not k.startswith("ETCD_")}
