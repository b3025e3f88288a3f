"""A running ``minikube-py up`` process, for end-to-end tests and benchmarks.

It lives in the installed package, not in ``tests/``, so ``benchmarks/`` run after a plain
``pip install -e .``: nothing here needs pytest. A cluster that exits early or never becomes
ready raises ``ClusterError`` (inside a test that fails it as ``pytest.fail`` would).
``tests/cluster.py`` re-exports all of this beside its kubectl helpers.

Every ``up`` started here holds a network slot (``slots``): its own service range and pod
network, passed as ``--service-cluster-ip-range`` and ``--cluster-cidr`` unless the caller's
flags name them, so clusters running at once on this machine never share an address.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import ssl
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import NoReturn

import httpx

from minikube_py.testing.slots import NetworkSlot, acquire_slot

CLI = [sys.executable, "-m", "minikube_py.cli.main"]
READY_TIMEOUT = 15.0
STOP_TIMEOUT = 5.0


class ClusterError(RuntimeError):
    """The cluster process did not start, become ready or stop as asked (the message carries
    its stderr)."""


@dataclass
class Cluster:
    """One ``minikube-py`` process; its stdout and stderr go to files beside the data dir."""

    data_dir: Path
    port: int
    process: subprocess.Popen[bytes]
    stdout: Path
    stderr: Path
    network: NetworkSlot | None = field(default=None)
    # whether ``wait_ready`` also waits for the ``default`` service account of ``default``:
    # an ``up`` running the service account controller (see ``wait_ready``)
    service_accounts: bool = field(default=False)

    @property
    def url(self) -> str:
        return f"https://127.0.0.1:{self.port}"

    @property
    def kubeconfig(self) -> Path:
        return self.data_dir / "admin.kubeconfig"

    @property
    def ca_file(self) -> Path:
        return self.data_dir / "pki" / "ca.crt"

    def client(self, cert: tuple[str, str] | None = None) -> httpx.Client:
        context = ssl.create_default_context(cafile=str(self.ca_file))
        if cert:
            context.load_cert_chain(*cert)
        return httpx.Client(base_url=self.url, verify=context, timeout=5)

    def admin_client(self) -> httpx.Client:
        """A client presenting the admin certificate (``system:masters``: allowed everything)."""
        pki = self.data_dir / "pki"
        return self.client(cert=(str(pki / "admin.crt"), str(pki / "admin.key")))

    def wait_ready(self, timeout: float = READY_TIMEOUT) -> float:
        """Seconds from process start until ``/readyz`` answered 200 over verified HTTPS; an
        ``up`` with the service account controller is then also waited for until its
        ``default`` service account exists (not counted in the seconds). A process not ready
        in ``timeout`` is killed before the error is raised: the caller never gets a cluster
        to stop, and it would otherwise outlive the test run."""
        started = time.monotonic()
        while time.monotonic() - started < timeout:
            if self.process.poll() is not None:
                raise ClusterError(f"exited {self.process.returncode}: {self.stderr.read_text()}")
            if self.ca_file.exists():
                try:
                    with self.client() as client:
                        if client.get("/readyz").status_code == 200:
                            break
                except (httpx.TransportError, ssl.SSLError):
                    pass
            time.sleep(0.05)  # the poll interval of this wait, not a wait itself
        else:
            self._give_up(f"not ready after {timeout}s")
        ready = time.monotonic() - started
        if self.service_accounts:
            self._wait_default_service_account(started + timeout)
        return ready

    def _wait_default_service_account(self, deadline: float) -> None:
        """Until ``default/default`` exists, as upstream's e2e framework waits for a namespace's
        default service account before it creates pods: admission refuses a pod without it
        (after retrying for a second or two), and on a loaded machine the controller-manager
        may create it later than that after ``/readyz``."""
        with self.admin_client() as client:
            while time.monotonic() < deadline:
                if self.process.poll() is not None:
                    raise ClusterError(f"exited {self.process.returncode}: {self.stderr.read_text()}")
                with contextlib.suppress(httpx.TransportError, ssl.SSLError):
                    if client.get("/api/v1/namespaces/default/serviceaccounts/default").status_code == 200:
                        return
                time.sleep(0.05)  # the poll interval of this wait, not a wait itself
        self._give_up("no default service account in namespace default")

    def _give_up(self, why: str) -> NoReturn:
        """Kill the process (the caller never gets a cluster to stop) and raise."""
        self.process.kill()
        self.process.wait()
        self.release_network()
        raise ClusterError(f"{why} (killed): {self.stderr.read_text()}")

    def stop(self, sig: signal.Signals = signal.SIGTERM) -> tuple[int, float]:
        """Send ``sig``; return the exit code and the seconds it took to exit."""
        started = time.monotonic()
        self.process.send_signal(sig)
        try:
            code = self.process.wait(timeout=STOP_TIMEOUT * 2)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
            self.release_network()
            raise ClusterError(f"did not stop within {STOP_TIMEOUT * 2}s of {sig.name}") from None
        self.release_network()
        return code, time.monotonic() - started

    def release_network(self) -> None:
        """Free the network slot for other clusters (kept for a restart on this data dir:
        ``start_up`` tries the same slot first)."""
        if self.network is not None:
            self.network.release()


def start(
    command: str,
    *args: str,
    logs: Path,
    data_dir: Path,
    port: int,
    env: dict[str, str] | None = None,
    network: NetworkSlot | None = None,
) -> Cluster:
    """``minikube-py COMMAND ARGS`` in the background, its output in ``logs``; the process
    inherits ``network``'s lock, so the slot stays taken while it runs."""
    logs.mkdir(parents=True, exist_ok=True)
    stdout, stderr = logs / "stdout", logs / "stderr"
    inherited = (network.fd,) if network is not None and network.fd >= 0 else ()
    with stdout.open("wb") as out, stderr.open("wb") as err:
        process = subprocess.Popen(
            [*CLI, command, *args], stdout=out, stderr=err, env=env, pass_fds=inherited
        )
    cluster = Cluster(data_dir, port, process, stdout, stderr, network)
    if network is not None:
        _STARTED.append(cluster)
    return cluster


# clusters started by this process that hold a slot; ones whose process has exited without a
# stop() give theirs back at the next start_up
_STARTED: list[Cluster] = []
# the slot each data dir last had, so a restart keeps its addresses when it can
_SLOT_OF: dict[Path, int] = {}


def network_slot(data_dir: Path) -> NetworkSlot:
    """A free slot for a cluster on ``data_dir`` (its previous one first)."""
    for cluster in list(_STARTED):
        if cluster.process.poll() is not None:
            cluster.release_network()
            _STARTED.remove(cluster)
    slot = acquire_slot(prefer=_SLOT_OF.get(data_dir.absolute()))
    _SLOT_OF[data_dir.absolute()] = slot.index
    return slot


def network_flags(slot: NetworkSlot, flags: Sequence[str]) -> list[str]:
    """The slot's flags, except those ``flags`` already give."""
    given = {flag.split("=", 1)[0] for flag in flags}
    wanted = slot.flags()
    pairs = zip(wanted[::2], wanted[1::2], strict=True)
    return [part for name, value in pairs if name not in given for part in (name, value)]


def start_up(
    tmp: Path,
    port: int,
    data_dir: Path | None = None,
    store: str | None = "memory://",
    *,
    home: Path | None = None,
    flags: Sequence[str] = (),
) -> Cluster:
    """``up`` on ``port``; ``store`` None means the default (sqlite in the data dir).

    ``home`` None adds ``--no-kubeconfig-merge``, so tests never touch the user's kubeconfig;
    otherwise ``up`` runs with ``HOME=home`` and no ``KUBECONFIG`` (see ``home_env``). No node
    agents run unless ``flags`` ask for them (``--nodes``, ``--fake-nodes``): tests of the
    control plane alone stay independent of them. The cluster gets a network slot of its own
    (see the module docstring); ``Cluster.network`` tells its ranges.
    """
    data_dir = data_dir or tmp / "data"
    network = network_slot(data_dir)
    args = ["--data-dir", str(data_dir), "--port", str(port), *(["--store", store] if store else []), *flags]
    args += network_flags(network, flags)
    if not any(flag.startswith("--nodes") for flag in flags):
        args += ["--nodes", "0"]
    if not any(flag.startswith("--ingress-port") for flag in flags):
        args += ["--ingress-port", "0"]  # a free port: test clusters never contend for port 80
    if not any(flag.startswith("--ingress-tls-port") for flag in flags):
        args += ["--ingress-tls-port", "0"]
    if home is None:
        args.append("--no-kubeconfig-merge")
    logs = tmp / f"logs-{time.monotonic_ns()}"
    env = home_env(home) if home else None
    cluster = start("up", *args, logs=logs, data_dir=data_dir, port=port, env=env, network=network)
    cluster.service_accounts = not any(flag.startswith("--controllers") for flag in flags)
    return cluster


def running_up(tmp: Path, flags: Sequence[str] = ()) -> Iterator[Cluster]:
    """The body of a module's ``cluster`` fixture: ``up`` with ``flags`` on a free port, ready,
    then stopped (unless a test already stopped it)."""
    running = start_up(tmp, free_port(), flags=flags)
    running.wait_ready()
    yield running
    if running.process.poll() is None:
        running.stop()


def home_env(home: Path) -> dict[str, str]:
    """This process's environment with ``HOME=home`` and ``KUBECONFIG`` unset."""
    env = {k: v for k, v in os.environ.items() if k != "KUBECONFIG"}
    return {**env, "HOME": str(home)}


def free_port() -> int:
    """A loopback TCP port nothing listens on right now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])
