"""The scheduling queue (upstream ``PriorityQueue`` in ``backend/queue/scheduling_queue.go``).

Every unscheduled pod the scheduler is responsible for is in exactly one place:

- **activeQ**: a heap ordered by the QueueSort plugin's ``less``; ``pop`` takes its head.
- **backoffQ**: pods that failed recently, ordered by when their backoff ends. The backoff is
  ``initial_backoff * 2^(attempts-1)`` capped at ``max_backoff``, counted from the moment the
  pod was put back. ``run`` moves expired ones to activeQ every second.
- **unschedulablePods**: pods rejected by plugins, waiting for a cluster event that one of
  those plugins registered (``events_of``); a pod with no plugin recorded moves on any event.
  Pods that PreEnqueue holds back (gated) wait here too, until their own update lets them
  through. Anything left for ``unschedulable_timeout`` is retried anyway (checked every 30 s).
- **in flight**: popped pods whose cycle has not ended (``done``). Updates and deletes seen
  meanwhile are remembered and applied when the pod comes back.

A move request (any ``move_*`` call) during a pod's cycle sends that pod, if rejected, to
backoffQ rather than unschedulablePods: the event may already have made it schedulable.
Pods with ``spec.nodeName`` never enter. Keys are ``namespace/name``. Single event loop only.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from minikube_py.api.unstructured import Object
from minikube_py.clock import Clock
from scheduler.backend import events
from scheduler.backend.heap import KeyedHeap
from scheduler.framework.status import SUCCESS, Status
from scheduler.framework.types import ClusterEvent, PodInfo, QueuedPodInfo, pod_key

log = logging.getLogger("scheduler.queue")

Less = Callable[[QueuedPodInfo, QueuedPodInfo], bool]
BACKOFF_FLUSH_PERIOD = 1.0
UNSCHEDULABLE_FLUSH_PERIOD = 30.0


@dataclass
class _InFlight:
    latest: Object | None = None  # the newest version seen during the cycle
    updated: bool = False  # a change that may matter to scheduling (is_pod_updated)
    deleted: bool = False


def _namespace(pod: Object) -> str:
    return str((pod.get("metadata") or {}).get("namespace") or "")


def _assigned(pod: Object) -> bool:
    return bool((pod.get("spec") or {}).get("nodeName"))


class SchedulingQueue:
    """Unscheduled pods by readiness to be tried: active, backing off, or unschedulable."""

    def __init__(
        self,
        less: Less,
        *,
        clock: Clock,
        pre_enqueue: Callable[[Object], Status] | None = None,
        events_of: Callable[[str], list[ClusterEvent]] | None = None,
        initial_backoff: float = 1.0,
        max_backoff: float = 10.0,
        unschedulable_timeout: float = 300.0,
    ) -> None:
        self._clock = clock
        self._pre_enqueue = pre_enqueue
        self._events_of = events_of
        self._initial_backoff = initial_backoff
        self._max_backoff = max_backoff
        self._unschedulable_timeout = unschedulable_timeout
        self._active: KeyedHeap[QueuedPodInfo] = KeyedHeap(less)
        self._backoff: KeyedHeap[QueuedPodInfo] = KeyedHeap(
            lambda a, b: self.backoff_expiry(a) < self.backoff_expiry(b)
        )
        self._unschedulable: dict[str, QueuedPodInfo] = {}
        self._gated: set[str] = set()  # keys in _unschedulable that PreEnqueue holds back
        self._in_flight: dict[str, _InFlight] = {}
        self._cycle = 0
        self._move_request_cycle = -1
        self._closed = False
        self._ready = asyncio.Event()  # set when activeQ may have a pod, or on close
        self._stopped = asyncio.Event()

    # -- informer side ---------------------------------------------------------------------

    def add(self, pod: Object) -> None:
        """A new unscheduled pod: to activeQ, or to unschedulablePods if PreEnqueue gates it."""
        if _assigned(pod):
            return
        key = pod_key(pod)
        existing = self._find(key)
        if existing is not None or key in self._in_flight:
            self.update(existing.pod if existing is not None else pod, pod)
            return
        now = self._clock.now()
        self._move_to_active(QueuedPodInfo(PodInfo.of(pod), timestamp=now))

    def update(self, old: Object, new: Object) -> None:
        """Keep the newest version; a spec or metadata change frees an unschedulable pod."""
        key = pod_key(new)
        if _assigned(new):
            self.delete(new)
            return
        flight = self._in_flight.get(key)
        if flight is not None:
            flight.latest = new
            flight.updated = flight.updated or events.is_pod_updated(old, new)
            return
        if (qpi := self._active.get(key)) is not None:
            qpi.pod_info = PodInfo.of(new)
            self._active.push(key, qpi)  # its priority may have changed
            return
        if (qpi := self._backoff.get(key)) is not None:
            qpi.pod_info = PodInfo.of(new)
            return
        if (qpi := self._unschedulable.get(key)) is not None:
            qpi.pod_info = PodInfo.of(new)
            if events.is_pod_updated(old, new):
                self._requeue(qpi)
            return
        self._move_to_active(QueuedPodInfo(PodInfo.of(new), timestamp=self._clock.now()))

    def delete(self, pod: Object) -> None:
        key = pod_key(pod)
        self._active.remove(key)
        self._backoff.remove(key)
        self._unschedulable.pop(key, None)
        self._gated.discard(key)
        if (flight := self._in_flight.get(key)) is not None:
            flight.deleted = True

    # -- scheduler side --------------------------------------------------------------------

    async def pop(self) -> QueuedPodInfo | None:
        """The head of activeQ, waiting until there is one; None once closed. The pod is in
        flight until ``done`` or ``add_unschedulable_if_not_present``."""
        while not self._closed:
            qpi = self._active.pop()
            if qpi is not None:
                return self._start_cycle(qpi)
            self._ready.clear()
            await self._ready.wait()
        return None

    def _start_cycle(self, qpi: QueuedPodInfo) -> QueuedPodInfo:
        self._cycle += 1
        qpi.attempts += 1
        if qpi.initial_attempt_timestamp is None:
            qpi.initial_attempt_timestamp = self._clock.now()
        qpi.unschedulable_plugins.clear()
        qpi.pending_plugins.clear()
        self._in_flight[qpi.key] = _InFlight()
        return qpi

    def done(self, key: str) -> None:
        """The cycle of ``key`` ended (idempotent)."""
        self._in_flight.pop(key, None)

    def scheduling_cycle(self) -> int:
        """How many pods were popped so far: the cycle number of the last one."""
        return self._cycle

    def add_unschedulable_if_not_present(self, qpi: QueuedPodInfo, scheduling_cycle: int) -> None:
        """Put back a pod its cycle rejected: to backoffQ if a move request came during or after
        ``scheduling_cycle`` (or the pod changed meanwhile), else to unschedulablePods. A pod
        deleted or queued again in the meantime is left alone."""
        key = qpi.key
        flight = self._in_flight.pop(key, None) or _InFlight()
        if flight.deleted or self._find(key) is not None:
            return
        if flight.latest is not None:
            qpi.pod_info = PodInfo.of(flight.latest)
        if _assigned(qpi.pod):
            return
        qpi.timestamp = self._clock.now()
        if self._move_request_cycle >= scheduling_cycle or flight.updated:
            self._backoff.push(key, qpi)
        else:
            self._unschedulable[key] = qpi

    # -- cluster events --------------------------------------------------------------------

    def move_all_to_active_or_backoff(
        self, event: ClusterEvent, old: Object | None = None, new: Object | None = None
    ) -> None:
        """``event`` happened: retry the unschedulable pods it may help."""
        self._move(list(self._unschedulable.values()), event)

    def assigned_pod_added(self, pod: Object) -> None:
        self._move(self._cross_topology_pods(pod), events.ASSIGNED_POD_ADD)

    def assigned_pod_updated(self, old: Object, new: Object) -> None:
        """A scale-down may help any pod; other updates only pods whose affinity or spreading
        involves ``new`` (upstream ``AssignedPodUpdated``)."""
        for event in events.assigned_pod_update_events(old, new):
            if event is events.ASSIGNED_POD_SCALE_DOWN:
                self._move(list(self._unschedulable.values()), event)
            else:
                self._move(self._cross_topology_pods(new), event)

    def _cross_topology_pods(self, pod: Object) -> list[QueuedPodInfo]:
        namespace = _namespace(pod)
        return [
            qpi
            for qpi in self._unschedulable.values()
            if ("PodTopologySpread" in qpi.unschedulable_plugins and _namespace(qpi.pod) == namespace)
            or events.matches_required_affinity(qpi.pod, pod)
        ]

    def _move(self, candidates: Iterable[QueuedPodInfo], event: ClusterEvent) -> None:
        interested: dict[str, bool] = {}
        for qpi in candidates:
            if self._worth_requeuing(qpi, event, interested):
                self._requeue(qpi)
        self._move_request_cycle = self._cycle

    def _worth_requeuing(self, qpi: QueuedPodInfo, event: ClusterEvent, interested: dict[str, bool]) -> bool:
        rejectors = qpi.unschedulable_plugins | qpi.pending_plugins
        if not rejectors or self._events_of is None or events.is_wildcard(event):
            return True
        for plugin in rejectors:
            if plugin not in interested:
                interested[plugin] = any(wanted.matches(event) for wanted in self._events_of(plugin))
            if interested[plugin]:
                return True
        return False

    def _requeue(self, qpi: QueuedPodInfo) -> None:
        """From unschedulablePods to backoffQ if still backing off, else to activeQ."""
        key = qpi.key
        if key not in self._gated and self.backoff_expiry(qpi) > self._clock.now():
            self._unschedulable.pop(key, None)
            self._backoff.push(key, qpi)
        else:
            self._move_to_active(qpi)

    def _move_to_active(self, qpi: QueuedPodInfo) -> bool:
        """Into activeQ if PreEnqueue lets it, else (gated) into unschedulablePods."""
        key = qpi.key
        status = self._pre_enqueue(qpi.pod) if self._pre_enqueue is not None else SUCCESS
        self._backoff.remove(key)
        if not status.is_success():
            self._active.remove(key)
            self._gated.add(key)
            qpi.pending_plugins = {status.plugin} if status.plugin else set()
            self._unschedulable[key] = qpi
            return False
        if key in self._gated:
            self._gated.discard(key)
            qpi.pending_plugins.clear()
        self._unschedulable.pop(key, None)
        self._active.push(key, qpi)
        self._ready.set()
        return True

    # -- timers ----------------------------------------------------------------------------

    def backoff_expiry(self, qpi: QueuedPodInfo) -> float:
        """When the pod's backoff ends: its last requeue plus the per-attempt backoff."""
        duration = self._initial_backoff
        for _ in range(1, qpi.attempts):
            if duration >= self._max_backoff - duration:
                return qpi.timestamp + self._max_backoff
            duration += duration
        return qpi.timestamp + duration

    def flush_backoff_q_completed(self) -> None:
        """Move every pod whose backoff has ended to activeQ."""
        now = self._clock.now()
        while (qpi := self._backoff.peek()) is not None and self.backoff_expiry(qpi) <= now:
            self._backoff.pop()
            self._move_to_active(qpi)

    def flush_unschedulable_pods_leftover(self) -> None:
        """Retry pods that waited in unschedulablePods longer than the timeout."""
        now = self._clock.now()
        stale = [
            qpi for qpi in self._unschedulable.values() if now - qpi.timestamp > self._unschedulable_timeout
        ]
        if stale:
            self._move(stale, events.UNSCHEDULABLE_TIMEOUT)

    async def run(self) -> None:
        """Run both flush loops on the clock until ``close``."""
        async with asyncio.TaskGroup() as tasks:
            loops = [
                tasks.create_task(self._every(BACKOFF_FLUSH_PERIOD, self.flush_backoff_q_completed)),
                tasks.create_task(
                    self._every(UNSCHEDULABLE_FLUSH_PERIOD, self.flush_unschedulable_pods_leftover)
                ),
            ]
            await self._stopped.wait()
            for loop in loops:
                loop.cancel()

    async def _every(self, period: float, flush: Callable[[], None]) -> None:
        while not self._closed:
            await self._clock.sleep(period)
            flush()

    def close(self) -> None:
        """Stop: ``pop`` returns None from now on and ``run`` returns."""
        self._closed = True
        self._ready.set()
        self._stopped.set()

    # -- introspection ---------------------------------------------------------------------

    def pending_pods(self) -> tuple[list[QueuedPodInfo], str]:
        """Every queued pod (not those in flight) and a one-line summary."""
        pods = [*self._active.items(), *self._backoff.items(), *self._unschedulable.values()]
        summary = (
            f"activeQ:{len(self._active)} backoffQ:{len(self._backoff)} "
            f"unschedulablePods:{len(self._unschedulable)}"
        )
        return pods, summary

    def where(self, key: str) -> str | None:
        """``activeQ``, ``backoffQ``, ``unschedulablePods``, ``inFlight`` or None."""
        for name, place in (
            ("activeQ", self._active),
            ("backoffQ", self._backoff),
            ("unschedulablePods", self._unschedulable),
            ("inFlight", self._in_flight),
        ):
            if key in place:
                return name
        return None

    def _find(self, key: str) -> QueuedPodInfo | None:
        return self._active.get(key) or self._backoff.get(key) or self._unschedulable.get(key)
