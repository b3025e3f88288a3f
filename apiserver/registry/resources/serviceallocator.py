"""Cluster IPs and node ports for Services, handed out like upstream's allocators: a random free
value from the upper (dynamic) band first, so that the lower (static) band stays free for values
clients choose (e.g. ``10.96.0.10`` for DNS), then anything free.

In memory: an allocator holds what it handed out or was told about (``claim``), and treats as taken
whatever its optional ``used`` callable reports (e.g. the values of the services in the watch cache).
With that callable, a value it handed out is held only ``hold_seconds`` (long enough for the
service to show up in ``used``), so values of deleted or never-stored services come back. Without
it, nothing is ever freed and a restart forgets everything: the catalog should pass one.
"""

from __future__ import annotations

import ipaddress
import itertools
import math
import random
import time
from collections.abc import Callable, Iterable

SERVICE_CIDR = "10.96.0.0/12"
NODE_PORT_RANGE = (30000, 32767)


class RangeAllocator:
    """Free integers of ``[first, last]``; the lowest ``min(max(16, size/16), static_max)`` are the
    static band, allocated only when the rest is full."""

    def __init__(
        self,
        first: int,
        last: int,
        static_max: int,
        used: Callable[[], Iterable[int]] | None = None,
        reserved: Iterable[int] = (),
        rng: random.Random | None = None,
        hold_seconds: float = 300.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.first, self.last = first, last
        size = last - first + 1
        self.dynamic_first = min(first + min(max(16, size // 16), static_max), last)
        self._used = used
        self._hold = hold_seconds if used is not None else math.inf
        self._mine: dict[int, float] = dict.fromkeys(reserved, math.inf)  # value -> held until
        self._rng = rng or random.Random()
        self._clock = clock

    def taken(self) -> set[int]:
        """Everything not free: reserved, recently handed out or claimed, or reported by ``used``."""
        now = self._clock()
        self._mine = {v: until for v, until in self._mine.items() if until > now}
        return set(self._mine) | set(self._used() if self._used is not None else ())

    def claim(self, value: int) -> None:
        """Hold a value a client chose."""
        self._mine[value] = max(self._mine.get(value, 0.0), self._clock() + self._hold)

    def release(self, value: int) -> None:
        self._mine.pop(value, None)

    def allocate(self) -> int | None:
        """A free value (now taken), or None when the range is full."""
        taken = self.taken()
        for low in (self.dynamic_first, self.first):
            start = self._rng.randint(low, self.last)
            for value in itertools.chain(range(start, self.last + 1), range(low, start)):
                if value not in taken:
                    self.claim(value)
                    return value
        return None


class ClusterIPAllocator:
    """IPv4 cluster IPs of ``cidr`` (network and broadcast addresses excluded); the first address
    (``10.96.0.1``, the ``kubernetes`` service's) is reserved."""

    def __init__(
        self,
        cidr: str = SERVICE_CIDR,
        used: Callable[[], Iterable[str]] | None = None,
        rng: random.Random | None = None,
    ) -> None:
        self.network = ipaddress.IPv4Network(cidr)
        self._used_ips = used
        first, last = int(self.network.network_address) + 1, int(self.network.broadcast_address) - 1
        self._range = RangeAllocator(first, last, 256, self._used_ints if used else None, (first,), rng)

    def _used_ints(self) -> set[int]:
        assert self._used_ips is not None
        return {n for ip in self._used_ips() if (n := self._to_int(ip)) is not None}

    def _to_int(self, ip: str) -> int | None:
        try:
            address = ipaddress.IPv4Address(ip)
        except ValueError:
            return None
        return int(address) if address in self.network else None

    def allocate(self) -> str | None:
        value = self._range.allocate()
        return None if value is None else str(ipaddress.IPv4Address(value))

    def claim(self, ip: str) -> None:
        if (value := self._to_int(ip)) is not None:
            self._range.claim(value)

    def release(self, ip: str) -> None:
        if (value := self._to_int(ip)) is not None:
            self._range.release(value)


def node_port_allocator(
    used: Callable[[], Iterable[int]] | None = None, rng: random.Random | None = None
) -> RangeAllocator:
    """Node ports of 30000-32767 (the lowest 128 being the static band, as upstream)."""
    return RangeAllocator(*NODE_PORT_RANGE, 128, used, (), rng)
