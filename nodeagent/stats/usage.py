"""What the Summary API reports, as values (upstream ``stats/v1alpha1`` types, cut to what
``kubectl top`` and the eviction manager read), and ``CpuRates``, which turns cumulative CPU
counters into ``usageNanoCores``."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass

MIN_INTERVAL = 1.0  # seconds between the two samples of a rate


@dataclass(frozen=True)
class ContainerUsage:
    name: str
    start_time: float
    cpu_usage_nano_cores: int
    cpu_usage_core_nanoseconds: int
    memory_working_set_bytes: int


@dataclass(frozen=True)
class PodUsage:
    name: str
    namespace: str
    uid: str
    start_time: float
    containers: tuple[ContainerUsage, ...]
    ephemeral_storage_bytes: int = 0  # its containers' log files

    @property
    def cpu_usage_nano_cores(self) -> int:
        return sum(c.cpu_usage_nano_cores for c in self.containers)

    @property
    def cpu_usage_core_nanoseconds(self) -> int:
        return sum(c.cpu_usage_core_nanoseconds for c in self.containers)

    @property
    def memory_working_set_bytes(self) -> int:
        return sum(c.memory_working_set_bytes for c in self.containers)


@dataclass(frozen=True)
class NodeUsage:
    name: str
    start_time: float
    cpu_usage_nano_cores: int
    cpu_usage_core_nanoseconds: int
    memory_working_set_bytes: int
    memory_available_bytes: int
    fs_capacity_bytes: int
    fs_available_bytes: int


@dataclass(frozen=True)
class Summary:
    """One node's usage at ``time`` (wall-clock seconds)."""

    time: float
    node: NodeUsage
    pods: tuple[PodUsage, ...]


class CpuRates:
    """``usageNanoCores`` per key (a container id, ``node``) from a cumulative counter.

    The rate is taken between the current sample and a base sample at least ``min_interval``
    older; the base then moves to the current sample. A key seen for the first time uses
    ``(0, since)`` as its base (the average since the container started), or reports 0 when
    ``since`` is None. Between two samples closer than ``min_interval`` the last rate is kept.
    """

    def __init__(self, min_interval: float = MIN_INTERVAL) -> None:
        self.min_interval = min_interval
        self._base: dict[str, tuple[int, float]] = {}
        self._rate: dict[str, int] = {}

    def rate(self, key: str, total_ns: int, at: float, since: float | None = None) -> int:
        base = self._base.get(key)
        if base is None:
            if since is None or at - since <= 0:
                self._base[key] = (total_ns, at)
                return self._rate.setdefault(key, 0)
            base = (0, since)
        used, then = base
        if at - then < self.min_interval and key in self._rate:
            return self._rate[key]
        rate = max(0, round((total_ns - used) / (at - then))) if at > then else 0
        self._base[key], self._rate[key] = (total_ns, at), rate
        return rate

    def retain(self, keys: Collection[str]) -> None:
        """Forget every key not in ``keys`` (containers that are gone)."""
        for key in [k for k in self._base if k not in keys]:
            self._base.pop(key, None)
            self._rate.pop(key, None)
