"""Exponential delay before replacing failed pods (upstream's backoff_utils.go): 10 s after
the first failure since the last success, doubling per further failure, capped at 10 minutes
(upstream's ``MaxJobPodFailureBackOff``; its documentation says six)."""

from __future__ import annotations

import threading
from dataclasses import dataclass

DEFAULT_POD_FAILURE_BACKOFF = 10.0
MAX_POD_FAILURE_BACKOFF = 600.0


@dataclass(frozen=True, slots=True)
class BackoffRecord:
    failures_after_last_success: int = 0
    last_failure_time: float | None = None

    def next(self, new_failures: int, new_successes: int, at: float) -> BackoffRecord:
        """The record after this sync's newly finished pods (a success without failures resets)."""
        if new_failures == 0:
            return BackoffRecord() if new_successes else self
        return BackoffRecord(self.failures_after_last_success + new_failures, at)

    def remaining(self, now: float) -> float:
        """Seconds before a replacement pod may be created (0: now)."""
        if self.failures_after_last_success <= 0 or self.last_failure_time is None:
            return 0.0
        delay = DEFAULT_POD_FAILURE_BACKOFF * float(2 ** (self.failures_after_last_success - 1))
        delay = min(delay, MAX_POD_FAILURE_BACKOFF)
        return max(self.last_failure_time + delay - now, 0.0)


class BackoffStore:
    """Backoff records by Job key (dropped with the Job)."""

    def __init__(self) -> None:
        self._records: dict[str, BackoffRecord] = {}
        self._lock = threading.Lock()

    def get(self, key: str) -> BackoffRecord:
        with self._lock:
            return self._records.get(key, BackoffRecord())

    def set(self, key: str, record: BackoffRecord) -> None:
        with self._lock:
            self._records[key] = record

    def delete(self, key: str) -> None:
        with self._lock:
            self._records.pop(key, None)
