"""Expectations: what a controller's own writes will make its informers report (upstream's
``ControllerExpectations`` and ``UIDTrackingControllerExpectations`` in controller_utils.go).

A controller that creates N pods records ``expect_creations(key, N)`` *before* it writes, and
each pod ADDED event lowers the count. Until the counts reach zero (or the record is older
than ``EXPECTATIONS_TIMEOUT``), the controller's cache is known to lag its own writes, so
``satisfied_expectations(key)`` is False and the controller must not act on the cache again:
it would create the same pods twice. A key with no record is satisfied.

Deletions are tracked by pod key (``UIDTrackingExpectations``): a pod's delete event lowers the
count only once, even if the pod is reported deleted twice (a graceful delete then the final
removal, or a tombstone).
"""

from __future__ import annotations

import threading
from collections.abc import Iterable
from dataclasses import dataclass

from minikube_py.clock import Clock, RealClock

EXPECTATIONS_TIMEOUT = 5 * 60.0


@dataclass
class _Record:
    add: int
    delete: int
    timestamp: float

    def fulfilled(self) -> bool:
        return self.add <= 0 and self.delete <= 0


class ControllerExpectations:
    """A TTL cache of pending creations and deletions per controller key."""

    def __init__(self, clock: Clock | None = None, timeout: float = EXPECTATIONS_TIMEOUT) -> None:
        self._clock: Clock = clock or RealClock()
        self._timeout = timeout
        self._records: dict[str, _Record] = {}
        self._lock = threading.Lock()

    def get_expectations(self, key: str) -> tuple[int, int] | None:
        """(pending adds, pending deletes), or None when nothing is recorded."""
        with self._lock:
            record = self._records.get(key)
            return None if record is None else (record.add, record.delete)

    def satisfied_expectations(self, key: str) -> bool:
        """True when the cache may be trusted: no record, all observed, or the record expired."""
        with self._lock:
            record = self._records.get(key)
            if record is None or record.fulfilled():
                return True
            return self._clock.monotonic() - record.timestamp > self._timeout

    def set_expectations(self, key: str, add: int, delete: int) -> None:
        with self._lock:
            self._records[key] = _Record(add, delete, self._clock.monotonic())

    def expect_creations(self, key: str, adds: int) -> None:
        self.set_expectations(key, adds, 0)

    def expect_deletions(self, key: str, deletes: int) -> None:
        self.set_expectations(key, 0, deletes)

    def lower_expectations(self, key: str, add: int, delete: int) -> None:
        with self._lock:
            record = self._records.get(key)
            if record is not None:
                record.add -= add
                record.delete -= delete

    def raise_expectations(self, key: str, add: int, delete: int) -> None:
        with self._lock:
            record = self._records.get(key)
            if record is not None:
                record.add += add
                record.delete += delete

    def creation_observed(self, key: str) -> None:
        self.lower_expectations(key, 1, 0)

    def deletion_observed(self, key: str) -> None:
        self.lower_expectations(key, 0, 1)

    def delete_expectations(self, key: str) -> None:
        with self._lock:
            self._records.pop(key, None)


class UIDTrackingExpectations(ControllerExpectations):
    """Expectations whose deletions are tracked per deleted object key."""

    def __init__(self, clock: Clock | None = None, timeout: float = EXPECTATIONS_TIMEOUT) -> None:
        super().__init__(clock, timeout)
        self._pending: dict[str, set[str]] = {}

    def expect_deletions_of(self, key: str, deleted_keys: Iterable[str]) -> None:
        """Expect the deletion of exactly these object keys (replacing earlier expectations)."""
        keys = set(deleted_keys)
        with self._lock:
            self._pending[key] = keys
        self.set_expectations(key, 0, len(keys))

    def deletion_observed_of(self, key: str, deleted_key: str) -> None:
        """Lower the deletion count once if ``deleted_key`` was expected."""
        with self._lock:
            pending = self._pending.get(key)
            if pending is None or deleted_key not in pending:
                return
            pending.discard(deleted_key)
        self.lower_expectations(key, 0, 1)

    def delete_expectations(self, key: str) -> None:
        with self._lock:
            self._pending.pop(key, None)
        super().delete_expectations(key)
