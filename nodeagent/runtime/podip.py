"""Pod IPs from the node's loopback range (its ``spec.podCIDR``; ``DEFAULT_POD_CIDR`` for a
node agent started without ``--pod-cidr``).

Every address in 127.0.0.0/8 is local on Linux, so a process can bind its pod IP without any
network configuration. The first host address of the range is the node's own (a process node's
``InternalIP``, where its API listens): pods get the second onwards, never the network, node or
broadcast address.
"""

from __future__ import annotations

import ipaddress

from nodeagent.runtime.interface import RuntimeError_

# the last /24 of the default pod network (127.128.0.0/9), which ``up`` hands out last: a node
# agent started alone beside ``up`` without --pod-cidr does not share ``up``'s nodes' ranges
DEFAULT_POD_CIDR = "127.255.255.0/24"


class PodIPExhaustedError(RuntimeError_):
    reason = "PodIPExhausted"


def node_address(cidr: str) -> str:
    """The node's own address in its range: the first host address."""
    return str(ipaddress.ip_network(cidr)[1])


class PodIPAllocator:
    """Hands out free pod addresses of ``cidr`` round-robin (a released address is reused
    last); ``release`` returns one."""

    def __init__(self, cidr: str = DEFAULT_POD_CIDR) -> None:
        self.network = ipaddress.ip_network(cidr)
        self._first = int(self.network.network_address) + 2  # + 1 is the node's
        self._last = int(self.network.broadcast_address) - 1
        self._used: set[int] = set()
        self._next = self._first

    def allocate(self) -> str:
        """A free address; raises ``PodIPExhaustedError`` when the range is full."""
        size = max(self._last - self._first + 1, 0)
        for offset in range(size):
            candidate = self._first + (self._next - self._first + offset) % size
            if candidate not in self._used:
                self._used.add(candidate)
                self._next = candidate + 1 if candidate < self._last else self._first
                return str(ipaddress.ip_address(candidate))
        raise PodIPExhaustedError(f"pod IP range {self.network} is exhausted ({size} addresses in use)")

    def release(self, ip: str) -> None:
        """Free ``ip`` (unknown or empty addresses are ignored)."""
        if ip:
            self._used.discard(int(ipaddress.ip_address(ip)))

    def in_use(self) -> int:
        return len(self._used)
