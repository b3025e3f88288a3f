"""The eviction manager of one node (upstream ``eviction.managerImpl``).

Every ``interval`` (10 s) ``synchronize`` observes the node's Summary against the hard
thresholds and:

- reports pressure through ``signals()`` (the node status's ``SignalSource``): MemoryPressure
  while ``memory.available`` is met, DiskPressure while ``nodefs.available`` is met, and for
  ``transition_period`` (upstream's ``evictionPressureTransitionPeriod``, 5 min) after, so the
  condition does not flap; the node lifecycle controller turns the conditions into taints;
- under disk pressure first reclaims node-level resources (``reclaim``: container GC) and
  observes again;
- evicts at most one pod per pass, the first of ``rank_pods`` that is not critical, with a
  grace period of 1 s (upstream's for hard thresholds): ``kill_pod(pod, message)`` fails the
  pod with reason ``Evicted`` and stops its containers; an ``Evicted`` Warning event is recorded.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Sequence
from typing import Protocol

from minikube_py.api.unstructured import Object
from minikube_py.clock import Clock
from minikube_py.events import Recorder
from nodeagent.eviction.ranking import eviction_message, is_critical, rank_pods
from nodeagent.eviction.thresholds import (
    DEFAULT_EVICTION_HARD,
    MEMORY_AVAILABLE,
    NODEFS_AVAILABLE,
    Threshold,
    observe,
    parse_thresholds,
    thresholds_met,
)
from nodeagent.node.conditions import NodeSignals
from nodeagent.pod.evicted import REASON
from nodeagent.stats.usage import Summary

log = logging.getLogger("nodeagent.eviction")
EVICTION_INTERVAL = 10.0
PRESSURE_TRANSITION_PERIOD = 300.0


class SummarySource(Protocol):
    async def summary(self) -> Summary: ...


class EvictionManager:
    """See the module docstring. ``active_pods()``: the node's pods that may be evicted."""

    def __init__(
        self,
        stats: SummarySource,
        active_pods: Callable[[], Sequence[Object]],
        kill_pod: Callable[[Object, str], Awaitable[None]],
        recorder: Recorder,
        clock: Clock,
        thresholds: Sequence[Threshold] | None = None,
        *,
        reclaim: Callable[[], Awaitable[object]] | None = None,
        interval: float = EVICTION_INTERVAL,
        transition_period: float = PRESSURE_TRANSITION_PERIOD,
    ) -> None:
        self.stats = stats
        self.active_pods = active_pods
        self.kill_pod = kill_pod
        self.recorder = recorder
        self.clock = clock
        self.thresholds = list(parse_thresholds(DEFAULT_EVICTION_HARD) if thresholds is None else thresholds)
        self.reclaim = reclaim
        self.interval = interval
        self.transition_period = transition_period
        self._last_met: dict[str, float] = {}  # signal -> monotonic time it was last met

    def signals(self) -> NodeSignals:
        """The pressure part of the node's conditions (a ``SignalSource``)."""
        return NodeSignals(
            memory_pressure=self._pressure(MEMORY_AVAILABLE), disk_pressure=self._pressure(NODEFS_AVAILABLE)
        )

    def _pressure(self, signal: str) -> bool:
        met = self._last_met.get(signal)
        return met is not None and self.clock.monotonic() - met < self.transition_period

    async def run(self) -> None:
        """``synchronize`` every ``interval`` until cancelled; failures are logged."""
        while True:
            try:
                await self.synchronize()
            except Exception:
                log.exception("eviction manager: synchronize failed")
            await self.clock.sleep(self.interval)

    async def synchronize(self) -> Object | None:
        """One pass (see the module docstring); returns the pod evicted, if any."""
        summary = await self.stats.summary()
        met = self._observe(summary)
        if met and met[0].signal == NODEFS_AVAILABLE and self.reclaim is not None:
            await self.reclaim()
            summary = await self.stats.summary()
            met = self._observe(summary)
        if not met:
            return None
        threshold = met[0]
        observed = observe(summary)[threshold.signal]
        stats = {p.uid: p for p in summary.pods}
        candidates = [p for p in self.active_pods() if not is_critical(p)]
        for pod in rank_pods(candidates, stats, threshold.resource):
            message = eviction_message(pod, stats.get(pod["metadata"]["uid"]), threshold, observed)
            log.info("eviction manager: evicting pod %s/%s: %s", pod["metadata"].get("namespace"),
                     pod["metadata"]["name"], message)  # fmt: skip
            self.recorder.event(pod, "Warning", REASON, message)
            await self.kill_pod(pod, message)
            return pod
        return None

    def _observe(self, summary: Summary) -> list[Threshold]:
        met = thresholds_met(self.thresholds, observe(summary))
        now = self.clock.monotonic()
        for threshold in met:
            self._last_met[threshold.signal] = now
        return met
