"""Network slots: each cluster a test or benchmark starts gets loopback ranges of its own, so
that several clusters on one machine (``pytest -n 2``, tests that start two clusters) never
share a pod IP, a node IP or a service IP.

Slot ``s`` (0 <= s < ``SLOTS``) is the whole of ``127.(64+s).0.0/16``:

- pod network (``--cluster-cidr``): ``127.(64+s).0.0/17``, a /24 per node (128 nodes);
- Service cluster IPs (``--service-cluster-ip-range``): ``127.(64+s).128.0/17``, the
  ``kubernetes`` Service at ``127.(64+s).128.1``, DNS at ``127.(64+s).128.10``.

127.64.0.0-127.95.255.255 lies outside the default ranges (services ``127.96.0.0/12``, pods
``127.128.0.0/9``) and outside ``127.0.0.0/16`` (where the apiserver and other listeners sit),
so a developer's own ``minikube-py up`` does not collide with the tests either.

A slot is held with ``fcntl.flock`` on ``<tmp>/minikube-py-slots/slot-<s>.lock``. The lock's
file descriptor is also inherited by the cluster process (``pass_fds``), so the slot stays taken
while either the test process holds it or the cluster runs, and the kernel frees it when both
are gone (a killed test run leaks nothing).
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import random
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from minikube_py.network import dns_service_ip, kubernetes_service_ip, node_cidr, node_ip

SLOTS = 32
FIRST_OCTET = 64
NODE_CIDR_MASK_SIZE = 24
NODES_PER_SLOT = 128  # the /24s of a slot's /17 pod network


class NoFreeSlotError(RuntimeError):
    """Every network slot is held by a running cluster."""


def slot_directory() -> Path:
    return Path(tempfile.gettempdir()) / "minikube-py-slots"


@dataclass
class NetworkSlot:
    """One held slot: its ranges, and the lock file descriptor (``fd`` -1 once released)."""

    index: int
    fd: int = field(default=-1, repr=False)

    @property
    def cluster_cidr(self) -> str:
        return f"127.{FIRST_OCTET + self.index}.0.0/17"

    @property
    def service_cidr(self) -> str:
        return f"127.{FIRST_OCTET + self.index}.128.0/17"

    @property
    def kubernetes_ip(self) -> str:
        return kubernetes_service_ip(self.service_cidr)

    @property
    def dns_ip(self) -> str:
        return dns_service_ip(self.service_cidr)

    def node_cidr(self, index: int) -> str:
        """The ``index``-th node range (0-based: ``node-1`` of ``up`` has range 0)."""
        return node_cidr(self.cluster_cidr, NODE_CIDR_MASK_SIZE, index)

    def node_ip(self, index: int) -> str:
        return node_ip(self.node_cidr(index))

    def flags(self) -> list[str]:
        return ["--service-cluster-ip-range", self.service_cidr, "--cluster-cidr", self.cluster_cidr]

    def release(self) -> None:
        """Let go of this process's hold (a cluster process still running keeps it taken)."""
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1


def acquire_slot(prefer: int | None = None, directory: Path | None = None) -> NetworkSlot:
    """A free slot, ``prefer`` first (a restarted cluster keeps its ranges when it can), then
    the others in random order (so that a slot just released is not the next one handed out).
    Raises ``NoFreeSlotError`` when every slot is held."""
    directory = directory or slot_directory()
    directory.mkdir(parents=True, exist_ok=True)
    order = random.sample(range(SLOTS), SLOTS)
    if prefer is not None and 0 <= prefer < SLOTS:
        order.remove(prefer)
        order.insert(0, prefer)
    for index in order:
        fd = os.open(directory / f"slot-{index}.lock", os.O_RDWR | os.O_CREAT, 0o666)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            continue
        with contextlib.suppress(OSError):  # who holds it, for a human reading the file
            os.ftruncate(fd, 0)
            os.write(fd, f"{os.getpid()}\n".encode())
        return NetworkSlot(index, fd)
    raise NoFreeSlotError(f"all {SLOTS} network slots in {directory} are held by running clusters")
