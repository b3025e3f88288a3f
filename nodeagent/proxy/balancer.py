"""Backend choice for one service port: ``random`` (upstream's iptables and nftables modes pick
with equal probability) or ``round-robin`` (IPVS' ``rr`` scheduler), and
``sessionAffinity: ClientIP`` (a client's connections go to the backend it last reached
until ``timeoutSeconds`` pass without one).

``candidates`` gives the order to try, first choice first: the proxy dials them in turn and
skips a backend that refuses, then calls ``chosen`` with the one that answered.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

from minikube_py.clock import Clock
from nodeagent.proxy.endpoints import Backend

RANDOM = "random"
ROUND_ROBIN = "round-robin"
SELECTIONS = (RANDOM, ROUND_ROBIN)


@dataclass
class _Affinity:
    backend: Backend
    last_used: float


class Balancer:
    """Per service port; survives syncs, so round-robin positions and affinities persist while
    the backend set changes. ``affinity_timeout`` 0 means no session affinity."""

    def __init__(
        self,
        clock: Clock,
        selection: str = RANDOM,
        affinity_timeout: float = 0.0,
        rng: random.Random | None = None,
    ) -> None:
        if selection not in SELECTIONS:
            raise ValueError(f"unknown backend selection {selection!r} (want one of {', '.join(SELECTIONS)})")
        self._clock = clock
        self._selection = selection
        self.affinity_timeout = affinity_timeout
        self._rng = rng or random.Random()
        self._next = 0
        self._affinity: dict[str, _Affinity] = {}

    def candidates(self, client_ip: str, backends: Sequence[Backend]) -> list[Backend]:
        if not backends:
            return []
        if self._selection == ROUND_ROBIN:
            start = self._next % len(backends)
            self._next = start + 1
            order = [*backends[start:], *backends[:start]]
        else:
            order = list(backends)
            self._rng.shuffle(order)
        sticky = self._sticky(client_ip, backends)
        if sticky is not None:
            order.remove(sticky)
            order.insert(0, sticky)
        return order

    def chosen(self, client_ip: str, backend: Backend) -> None:
        """``client_ip`` reached ``backend``: its next connections go there (with affinity)."""
        if self.affinity_timeout:
            self._affinity[client_ip] = _Affinity(backend, self._clock.monotonic())

    def _sticky(self, client_ip: str, backends: Sequence[Backend]) -> Backend | None:
        if not self.affinity_timeout:
            return None
        entry = self._affinity.get(client_ip)
        if entry is None:
            return None
        current = next((b for b in backends if b.address == entry.backend.address), None)
        if self._clock.monotonic() - entry.last_used > self.affinity_timeout or current is None:
            del self._affinity[client_ip]
            return None
        return current

    def expire(self) -> None:
        """Forget affinities past their timeout (called at each sync, so the map stays small)."""
        now = self._clock.monotonic()
        for client, entry in list(self._affinity.items()):
            if now - entry.last_used > self.affinity_timeout:
                del self._affinity[client]
