"""What one ``sync`` of a Job knows (``JobSyncState``, upstream's ``syncJobCtx``) and what its
helpers use of the controller (``JobContext``, built once by it)."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from controllers.job.backoff import BackoffRecord, BackoffStore
from controllers.podcontrol.control import PodControl
from controllers.podcontrol.expectations import ControllerExpectations
from minikube_py.api.unstructured import Object
from minikube_py.client.interfaces import Client
from minikube_py.clock import Clock
from minikube_py.events import Recorder


class FinalizerExpectations:
    """Pod UIDs whose tracking finalizer a Job's sync removed and its pod cache still shows:
    until seen gone, those pods must not be counted again (upstream's
    ``uidTrackingExpectations``)."""

    def __init__(self) -> None:
        self._uids: dict[str, set[str]] = {}
        self._lock = threading.Lock()

    def expected(self, key: str) -> set[str]:
        with self._lock:
            return set(self._uids.get(key, ()))

    def expect_removed(self, key: str, uids: Iterable[str]) -> None:
        with self._lock:
            self._uids.setdefault(key, set()).update(uids)

    def removal_observed(self, key: str, uid: str) -> None:
        with self._lock:
            pending = self._uids.get(key)
            if pending is not None:
                pending.discard(uid)
                if not pending:
                    del self._uids[key]

    def delete(self, key: str) -> None:
        with self._lock:
            self._uids.pop(key, None)


@dataclass(frozen=True, slots=True)
class JobContext:
    """``pod_control`` writes pods with their Events, ``expectations`` and ``finalizers``
    record writes the pod cache has not shown yet, ``backoff`` holds failure backoff per Job,
    ``requeue_after`` schedules a later sync of a key."""

    client: Client
    recorder: Recorder
    clock: Clock
    pod_control: PodControl
    expectations: ControllerExpectations
    finalizers: FinalizerExpectations
    backoff: BackoffStore
    controller_ref: Callable[[Object], dict[str, Any]]
    requeue_after: Callable[[str, float], None]


@dataclass
class JobSyncState:
    """The Job (a private copy being changed) and what this sync computed from its pods."""

    key: str
    job: Object
    pods: list[Object]
    active: list[Object]
    ready: int
    terminating: int
    succeeded: int = 0
    failed: int = 0
    prev_succeeded_indexes: set[int] = field(default_factory=set)
    succeeded_indexes: set[int] = field(default_factory=set)
    failed_indexes: set[int] | None = None
    finished_condition: dict[str, Any] | None = None
    expected_removed: set[str] = field(default_factory=set)
    uncounted_succeeded: set[str] = field(default_factory=set)
    uncounted_failed: set[str] = field(default_factory=set)
    backoff: BackoffRecord = field(default_factory=BackoffRecord)
    delayed_per_index: dict[int, Object] = field(default_factory=dict)

    @property
    def status(self) -> dict[str, Any]:
        return self.job.setdefault("status", {})  # type: ignore[no-any-return]
