"""Crash-loop backoff (upstream ``flowcontrol.Backoff`` as the kubelet configures it).

A container that exits and must be restarted waits 10 s before its first restart, then 20 s,
40 s, ... up to 5 minutes. The delay resets once the container has not needed a restart for
twice the maximum (10 minutes): a container that ran that long starts again from 10 s.
Keys are ``<pod uid>/<container name>``.
"""

from __future__ import annotations

from dataclasses import dataclass

from minikube_py.clock import Clock

INITIAL = 10.0
MAXIMUM = 300.0


@dataclass
class _Entry:
    delay: float
    last_update: float  # when the container that caused the last restart had exited


class Backoff:
    def __init__(self, clock: Clock, initial: float = INITIAL, maximum: float = MAXIMUM) -> None:
        self.clock = clock
        self.initial = initial
        self.maximum = maximum
        self._entries: dict[str, _Entry] = {}

    def delay(self, key: str) -> float:
        """The current delay for ``key`` (0 when it has none)."""
        entry = self._entries.get(key)
        return entry.delay if entry is not None else 0.0

    def in_backoff_since(self, key: str, finished_at: float) -> bool:
        """True while ``key`` must wait: less than its delay has passed since ``finished_at``
        (when the container last exited)."""
        entry = self._entries.get(key)
        if entry is None or self._expired(entry, finished_at):
            return False
        return self.clock.now() - finished_at < entry.delay

    def next(self, key: str, finished_at: float) -> None:
        """A restart of the container that exited at ``finished_at``: the next one waits twice
        as long (from 10 s, up to 5 min)."""
        entry = self._entries.get(key)
        if entry is None or self._expired(entry, finished_at):
            self._entries[key] = _Entry(self.initial, finished_at)
        else:
            entry.delay = min(entry.delay * 2, self.maximum)
            entry.last_update = finished_at

    def forget(self, key_prefix: str) -> None:
        """Drop every key starting with ``key_prefix`` (a pod's uid when it is gone)."""
        for key in [k for k in self._entries if k.startswith(key_prefix)]:
            del self._entries[key]

    def _expired(self, entry: _Entry, event_time: float) -> bool:
        return event_time - entry.last_update > 2 * self.maximum
