"""Pod IPs from a loopback range (default ``127.1.0.0/16``).

Every address in 127.0.0.0/8 is local on Linux, so a process can bind its pod IP without any
network configuration. The network and broadcast addresses of the range are never handed out.
"""

from __future__ import annotations

import ipaddress

from nodeagent.runtime.interface import RuntimeError_

DEFAULT_POD_CIDR = "127.1.0.0/16"


class PodIPExhaustedError(RuntimeError_):
    reason = "PodIPExhausted"


class PodIPAllocator:
    """Hands out free host addresses of ``cidr`` round-robin (a released address is reused
    last); ``release`` returns one."""

    def __init__(self, cidr: str = DEFAULT_POD_CIDR) -> None:
        self.network = ipaddress.ip_network(cidr)
        self._first = int(self.network.network_address) + 1
        self._last = int(self.network.broadcast_address) - 1
        self._used: set[int] = set()
        self._next = self._first

    def allocate(self) -> str:
        """A free address; raises ``PodIPExhaustedError`` when the range is full."""
        size = self._last - self._first + 1
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
