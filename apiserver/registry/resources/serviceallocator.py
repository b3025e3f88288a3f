"""Cluster IPs and node ports for Services, handed out like upstream's allocators (KEP-3070): a
dynamic allocation takes a random free value of the upper band first, so that the lower
(static) band stays free for values clients choose (the DNS Service's ``.10``), and takes from
the static band only when the upper one is full. The static band is ``min(max(16, size/16),
256)`` addresses of a service range (none for a range of 16 or fewer) and ``min(max(16,
size/32), 128)`` ports of the node port range, as upstream's ``calculateRangeOffset``.

A value a client asks for must be in the range and free (upstream's messages: ``provided port
is already allocated``, ``the provided IP (...) is not in the valid range. The range of valid
IPs is ...``).

In memory: an allocator holds what it handed out or was asked for (per owner, the service's
``namespace/name``), and treats as taken whatever its optional ``used`` callable reports (the
values of the stored services with their owners). A value held for an owner stays held until
``used`` shows it or for ``hold_seconds`` (long enough for the service to reach the watch
cache; kept short because a service created and deleted before the next allocation looked
keeps its values held that long), so values of never-stored services (a create that failed
validation, a dry run) come back; the same owner asking again for its value is no conflict.
Without ``used`` nothing is ever freed.
"""

from __future__ import annotations

import ipaddress
import itertools
import math
import random
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from minikube_py.network import (
    DEFAULT_NODE_PORT_RANGE,
    DEFAULT_SERVICE_CIDR,
    kubernetes_service_ip,
    node_port_range,
)

#: what ``used`` reports: (value, owner) pairs
Used = Callable[[], Iterable[tuple[int, str]]]


class AllocationError(ValueError):
    """A requested value cannot be had; the message is upstream's."""


@dataclass(frozen=True)
class ServiceNetwork:
    """The apiserver's ``--service-cluster-ip-range`` and ``--service-node-port-range``."""

    cidr: str = DEFAULT_SERVICE_CIDR
    node_ports: str = DEFAULT_NODE_PORT_RANGE

    @property
    def kubernetes_ip(self) -> str:
        """The ``kubernetes`` Service's address: the range's first."""
        return kubernetes_service_ip(self.cidr)


def static_band(size: int, minimum: int, step: int, maximum: int) -> int:
    """Upstream's ``calculateRangeOffset``: ``min(max(minimum, size/step), maximum)``, 0 for
    ranges of ``minimum`` or fewer."""
    if size <= minimum:
        return 0
    return min(max(minimum, size // step), maximum)


class RangeAllocator:
    """Free integers of ``[first, last]``; the lowest ``static`` are taken by ``allocate`` only
    when the rest is full, ``reserved`` never (a client may still ask for them)."""

    def __init__(
        self,
        first: int,
        last: int,
        static: int,
        used: Used | None = None,
        reserved: Iterable[int] = (),
        rng: random.Random | None = None,
        hold_seconds: float = 2.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.first, self.last = first, last
        self.dynamic_first = min(first + static, last)
        self._used = used
        self._reserved = frozenset(reserved)
        self._hold = hold_seconds if used is not None else math.inf
        self._mine: dict[int, tuple[str, float]] = {}  # value -> (owner, held until)
        self._rng = rng or random.Random()
        self._clock = clock

    def owners(self) -> dict[int, str]:
        """Every value not free, with its owner: held here (recently handed out or asked for)
        or reported by ``used``."""
        return {**{value: owner for value, (owner, _) in self._holds().items()}, **self._stored()}

    def _stored(self) -> dict[int, str]:
        return dict(self._used()) if self._used is not None else {}

    def _holds(self, stored: dict[int, str] | None = None) -> dict[int, tuple[str, float]]:
        """The live holds: a hold ends when it runs out or once the store shows the value with
        its owner (from then on the store says when it is free again: a deleted service frees
        its values at once)."""
        now, stored = self._clock(), self._stored() if stored is None else stored
        self._mine = {v: held for v, held in self._mine.items() if held[1] > now and stored.get(v) != held[0]}
        return self._mine

    def taken(self) -> set[int]:
        return set(self.owners())

    def contains(self, value: int) -> bool:
        return self.first <= value <= self.last

    def claim(self, value: int, owner: str = "") -> None:
        """Hold a value a client chose; ``AllocationError`` when another owner has it (the
        caller checks the range first)."""
        stored = self._stored()
        holder = stored.get(value) or self._holds(stored).get(value, ("", 0.0))[0] or None
        if holder is not None and holder != owner:
            raise AllocationError("already allocated")
        if stored.get(value) != owner:  # not stored yet: hold it until it is
            self._mine[value] = (owner, self._clock() + self._hold)

    def release(self, value: int) -> None:
        self._mine.pop(value, None)

    def allocate(self, owner: str = "") -> int | None:
        """A free value (now held for ``owner``), or None when the range is full."""
        taken = self.taken() | self._reserved
        for low in (self.dynamic_first, self.first):
            start = self._rng.randint(low, self.last)
            for value in itertools.chain(range(start, self.last + 1), range(low, start)):
                if value not in taken:
                    self._mine[value] = (owner, self._clock() + self._hold)
                    return value
        return None


class ClusterIPAllocator:
    """IPv4 cluster IPs of ``cidr`` (network and broadcast addresses excluded). The first
    address (the ``kubernetes`` Service's) is never handed out dynamically."""

    def __init__(
        self,
        cidr: str = DEFAULT_SERVICE_CIDR,
        used: Callable[[], Iterable[tuple[str, str]]] | None = None,
        rng: random.Random | None = None,
    ) -> None:
        self.network = ipaddress.IPv4Network(cidr)
        self._used_ips = used
        first, last = int(self.network.network_address) + 1, int(self.network.broadcast_address) - 1
        static = static_band(self.network.num_addresses, 16, 16, 256)
        self._range = RangeAllocator(first, last, static, self._used_ints if used else None, (first,), rng)

    def _used_ints(self) -> Iterable[tuple[int, str]]:
        assert self._used_ips is not None
        for ip, owner in self._used_ips():
            if (n := self._to_int(ip)) is not None:
                yield n, owner

    def _to_int(self, ip: str) -> int | None:
        try:
            address = ipaddress.IPv4Address(ip)
        except ValueError:
            return None
        return int(address) if address in self.network else None

    def allocate(self, owner: str = "") -> str | None:
        value = self._range.allocate(owner)
        return None if value is None else str(ipaddress.IPv4Address(value))

    def claim(self, ip: str, owner: str = "") -> None:
        """Hold ``ip`` for ``owner``; ``AllocationError`` with upstream's message when it is
        outside the range (network and broadcast addresses included) or another's."""
        value = self._to_int(ip)
        if value is None or not self._range.contains(value):
            raise AllocationError(
                f"the provided IP ({ip}) is not in the valid range. The range of valid IPs is {self.network}"
            )
        try:
            self._range.claim(value, owner)
        except AllocationError:
            raise AllocationError("provided IP is already allocated") from None

    def release(self, ip: str) -> None:
        if (value := self._to_int(ip)) is not None:
            self._range.release(value)


class NodePortAllocator:
    """Node ports of a ``first-last`` range."""

    def __init__(
        self,
        ports: str = DEFAULT_NODE_PORT_RANGE,
        used: Used | None = None,
        rng: random.Random | None = None,
    ) -> None:
        self.first, self.last = node_port_range(ports)
        static = static_band(self.last - self.first + 1, 16, 32, 128)
        self._range = RangeAllocator(self.first, self.last, static, used, (), rng)

    def allocate(self, owner: str = "") -> int | None:
        return self._range.allocate(owner)

    def claim(self, port: int, owner: str = "") -> None:
        """Hold ``port`` for ``owner``; ``AllocationError`` with upstream's message when it is
        outside the range or another's."""
        if not self._range.contains(port):
            raise AllocationError(
                "provided port is not in the valid range. "
                f"The range of valid ports is {self.first}-{self.last}"
            )
        try:
            self._range.claim(port, owner)
        except AllocationError:
            raise AllocationError("provided port is already allocated") from None

    def release(self, port: int) -> None:
        self._range.release(port)

    def taken(self) -> set[int]:
        return self._range.taken()


def node_port_allocator(
    used: Used | None = None, rng: random.Random | None = None, ports: str = DEFAULT_NODE_PORT_RANGE
) -> NodePortAllocator:
    """Node ports of ``ports`` (30000-32767: the lowest 86 are the static band, as upstream)."""
    return NodePortAllocator(ports, used, rng)
