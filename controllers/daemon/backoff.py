"""Per-node backoff for replacing failed daemon pods (upstream's ``flowcontrol.Backoff`` as
the DaemonSet controller builds it: 1 s doubling to 15 min per ``<ds uid>/<generation>/<node>``,
an entry forgotten once it sits unused for twice the cap)."""

from __future__ import annotations

from dataclasses import dataclass

from minikube_py.clock import Clock

INITIAL_BACKOFF = 1.0
MAX_BACKOFF = 15 * 60.0


@dataclass
class _Entry:
    backoff: float
    last_update: float


class FailedPodsBackoff:
    def __init__(self, clock: Clock, initial: float = INITIAL_BACKOFF, cap: float = MAX_BACKOFF) -> None:
        self.clock = clock
        self._initial, self._cap = initial, cap
        self._entries: dict[str, _Entry] = {}

    def get(self, key: str) -> float:
        entry = self._entries.get(key)
        return 0.0 if entry is None else entry.backoff

    def next(self, key: str, now: float) -> None:
        """Record a failure at ``now``: start at the initial delay, else double it."""
        entry = self._entries.get(key)
        if entry is None or now - entry.last_update > 2 * self._cap:
            self._entries[key] = _Entry(self._initial, now)
            return
        entry.backoff = min(entry.backoff * 2, self._cap)
        entry.last_update = now

    def in_backoff_since_update(self, key: str, now: float) -> bool:
        entry = self._entries.get(key)
        return entry is not None and now - entry.last_update < entry.backoff

    def gc(self, now: float) -> None:
        for key in [k for k, e in self._entries.items() if now - e.last_update > 2 * self._cap]:
            del self._entries[key]


def backoff_key(ds_uid: str, observed_generation: int, node_name: str) -> str:
    return f"{ds_uid}/{observed_generation}/{node_name}"
