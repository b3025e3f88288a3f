"""Node-level usage: the host's own numbers for a process node, the sum of its pods for a
simulated one.

``HostStats.sample(pods, now)`` returns a ``HostSample``. ``ProcessHost`` reads ``/proc/stat``
(CPU time of every CPU, idle and iowait left out, as cadvisor's root cgroup counts it),
``/proc/meminfo`` (working set ``MemTotal - MemAvailable``, available ``MemAvailable``) and
``statvfs`` of the node's directory (nodefs). ``SimulatedHost`` has a configured capacity and
adds up its pods' synthetic usage; its filesystem is never used.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from nodeagent.stats.usage import PodUsage

CLOCK_TICKS = os.sysconf("SC_CLK_TCK")
# /proc/stat "cpu" columns: user nice system idle iowait irq softirq steal
BUSY_COLUMNS = (0, 1, 2, 5, 6, 7)


@dataclass(frozen=True)
class HostSample:
    """The node's usage now. ``cpu_usage_nano_cores`` None: computed from the counter."""

    start_time: float
    cpu_usage_core_nanoseconds: int
    memory_working_set_bytes: int
    memory_available_bytes: int
    fs_capacity_bytes: int
    fs_available_bytes: int
    cpu_usage_nano_cores: int | None = None


class HostStats(Protocol):
    def sample(self, pods: Sequence[PodUsage], now: float) -> HostSample: ...


class ProcessHost:
    """The machine the process node runs on; ``root`` is the node's directory (nodefs)."""

    def __init__(self, root: str) -> None:
        self.root = root

    def sample(self, pods: Sequence[PodUsage], now: float) -> HostSample:
        cpu_ns, boot = read_cpu()
        total, available = read_memory()
        fs = os.statvfs(self.root)
        return HostSample(
            start_time=boot,
            cpu_usage_core_nanoseconds=cpu_ns,
            memory_working_set_bytes=max(0, total - available),
            memory_available_bytes=available,
            fs_capacity_bytes=fs.f_blocks * fs.f_frsize,
            fs_available_bytes=fs.f_bavail * fs.f_frsize,
        )


class SimulatedHost:
    """A simulated node: ``memory_bytes`` and ``fs_bytes`` of capacity, usage = its pods'."""

    def __init__(self, memory_bytes: int, fs_bytes: int, start_time: float) -> None:
        self.memory_bytes, self.fs_bytes, self.start_time = memory_bytes, fs_bytes, start_time

    def sample(self, pods: Sequence[PodUsage], now: float) -> HostSample:
        working_set = sum(p.memory_working_set_bytes for p in pods)
        return HostSample(
            start_time=self.start_time,
            cpu_usage_core_nanoseconds=sum(p.cpu_usage_core_nanoseconds for p in pods),
            memory_working_set_bytes=working_set,
            memory_available_bytes=max(0, self.memory_bytes - working_set),
            fs_capacity_bytes=self.fs_bytes,
            fs_available_bytes=self.fs_bytes,
            cpu_usage_nano_cores=sum(p.cpu_usage_nano_cores for p in pods),
        )


def read_cpu() -> tuple[int, float]:
    """Busy CPU time of all CPUs in nanoseconds, and the boot time (``btime``)."""
    busy, boot = 0, 0.0
    with open("/proc/stat") as stat:
        for line in stat:
            fields = line.split()
            if fields[0] == "cpu":
                values = [int(v) for v in fields[1:]]
                busy = sum(values[i] for i in BUSY_COLUMNS if i < len(values))
            elif fields[0] == "btime":
                boot = float(fields[1])
    return busy * 1_000_000_000 // CLOCK_TICKS, boot


def read_memory() -> tuple[int, int]:
    """``MemTotal`` and ``MemAvailable`` in bytes."""
    found: dict[str, int] = {}
    with open("/proc/meminfo") as meminfo:
        for line in meminfo:
            key, _, rest = line.partition(":")
            if key in ("MemTotal", "MemAvailable"):
                found[key] = int(rest.split()[0]) * 1024
    return found.get("MemTotal", 0), found.get("MemAvailable", 0)
