"""Usage of process groups from ``/proc`` (the process runtime's ``container_stats``)."""

from __future__ import annotations

import os
from dataclasses import dataclass

CLOCK_TICKS = os.sysconf("SC_CLK_TCK")
PAGE_SIZE = os.sysconf("SC_PAGE_SIZE")


@dataclass(frozen=True)
class GroupUsage:
    cpu_nanoseconds: int  # user + system time of the group's live processes
    rss_bytes: int


def _stat_fields(pid: str) -> list[str] | None:
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            data = f.read().decode(errors="replace")
    except OSError:
        return None
    # the command name (field 2) may contain spaces and parentheses: split after its last ")"
    return data[data.rfind(")") + 2 :].split()


def usage_by_process_group(pgids: set[int], exclude: frozenset[int] = frozenset()) -> dict[int, GroupUsage]:
    """CPU (ticks to nanoseconds) and resident memory summed over each group's processes but
    those in ``exclude`` (the runtime's own: a container's init)."""
    cpu: dict[int, int] = dict.fromkeys(pgids, 0)
    rss: dict[int, int] = dict.fromkeys(pgids, 0)
    for pid in os.listdir("/proc"):
        if not pid.isdigit() or int(pid) in exclude:
            continue
        fields = _stat_fields(pid)
        # fields[0] is field 3 (state): pgrp is field 5, utime 14, stime 15, rss 24
        if fields is None or len(fields) < 22:
            continue
        pgid = int(fields[2])
        if pgid in cpu:
            cpu[pgid] += int(fields[11]) + int(fields[12])
            rss[pgid] += int(fields[21])
    return {g: GroupUsage(cpu[g] * 1_000_000_000 // CLOCK_TICKS, rss[g] * PAGE_SIZE) for g in pgids}
