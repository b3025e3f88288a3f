"""One loop that keeps many nodes registered, reported and leased (``NodeHeartbeats``).

Upstream runs, per kubelet, a registration loop, a node status loop and a lease controller.
Here one asyncio task serves N nodes: ``up`` runs thousands of simulated nodes, and a process
node is the N = 1 case. Work items sit in one heap ordered by due time; each wake-up of the loop
starts what is due, at most ``max_in_flight`` API calls at once (each a short task in the loop's
TaskGroup, never a task per node), then sleeps until the next item is due (at least
``MIN_TICK``, 2 ms: items start nearly when due, so renewals reach the apiserver evenly rather
than in batches: p50 12 -> 3 ms at 5,000 nodes) or until a slot frees or a node is added.

Per node:

- **register** at once when added; on failure retry after 100 ms doubling to 7 s (upstream's
  ``registerWithAPIServer``). Registered again whenever a status report finds the Node deleted.
- **lease** renewed right after registration, then every ``renew_interval`` (10 s); a failed
  renewal is retried after ``lease_backoff`` (200 ms doubling to 7 s).
- **status** checked every ``status_interval`` (10 s, nodeStatusUpdateFrequency); the reporter
  sends a PATCH only when the status changed or 5 minutes passed (nodeStatusReportFrequency). A
  failure waits for the next check, as upstream.

Spreading: the periodic items of the k-th node added run at ``anchor + m * interval`` with the
anchor offset by ``frac(k * golden ratio) * interval``, a low-discrepancy sequence: any number of
nodes, added in any burst, renew evenly over the interval (5,000 nodes: 500 renewals per second).
"""

from __future__ import annotations

import asyncio
import heapq
import itertools
import logging
import math
from collections.abc import Callable
from dataclasses import dataclass, field

from minikube_py.client.interfaces import Client
from minikube_py.clock import Clock, RealClock
from minikube_py.metrics import REGISTRY, Registry
from nodeagent.node.conditions import SignalSource, healthy
from nodeagent.node.lease import RENEW_INTERVAL, NodeLease, lease_backoff
from nodeagent.node.nodeinfo import NodeConfig
from nodeagent.node.status import NODE_STATUS_UPDATE_FREQUENCY, NodeStatusReporter

REGISTER, LEASE, STATUS = "register", "lease", "status"
MAX_IN_FLIGHT = 64
MIN_TICK = 0.002
MAX_TICK = 1.0
GOLDEN = (math.sqrt(5) - 1) / 2

log = logging.getLogger("nodeagent")


@dataclass(eq=False)
class HeartbeatNode:
    """One node served by the loop."""

    reporter: NodeStatusReporter
    lease: NodeLease
    anchor: float
    pending: set[str] = field(default_factory=set)
    failures: dict[str, int] = field(default_factory=dict)
    removed: bool = False

    @property
    def name(self) -> str:
        return self.reporter.config.name


class NodeHeartbeats:
    """Many nodes, one task (``run``); see the module docstring."""

    def __init__(
        self,
        *,
        clock: Clock | None = None,
        renew_interval: float = RENEW_INTERVAL,
        status_interval: float = NODE_STATUS_UPDATE_FREQUENCY,
        max_in_flight: int = MAX_IN_FLIGHT,
        registry: Registry = REGISTRY,
        observe: Callable[[str, float, float], None] | None = None,
    ) -> None:
        """``observe(kind, started, seconds)``, when given, hears of every successful call
        (register, lease, status): when it started (monotonic) and how long it took; the
        node scale benchmark measures renewal latency with it."""
        self._clock = clock or RealClock()
        self._observe = observe
        self._intervals = {LEASE: renew_interval, STATUS: status_interval}
        self._max_in_flight = max_in_flight
        self._in_flight = 0
        self.nodes: dict[str, HeartbeatNode] = {}
        self._queue: list[tuple[float, int, str, HeartbeatNode]] = []
        self._order = itertools.count()
        self._added = itertools.count()
        self._wake = asyncio.Event()
        self._wake_at = 0.0  # when the loop's current sleep ends
        self._calls = registry.counter(
            "nodeagent_heartbeat_calls_total", "Node registrations, lease renewals and status checks."
        )
        registry.gauge("nodeagent_heartbeat_nodes", "Nodes served by the heartbeat loop.").set_func(
            lambda: float(len(self.nodes))
        )

    def add(
        self, client: Client, config: NodeConfig, *, signals: SignalSource = healthy
    ) -> NodeStatusReporter:
        """Serve ``config``'s node through ``client`` (its identity); registers it at once."""
        if config.name in self.nodes:
            raise ValueError(f"node {config.name} is already served")
        reporter = NodeStatusReporter(client, config, signals=signals, clock=self._clock)
        lease = NodeLease(client, config.name, lambda: reporter.uid)
        phase = (next(self._added) * GOLDEN) % 1.0
        node = HeartbeatNode(reporter, lease, self._clock.monotonic() + phase * self._intervals[LEASE])
        self.nodes[config.name] = node
        self._push(node, REGISTER, self._clock.monotonic())
        return reporter

    def remove(self, name: str) -> None:
        """Stop serving a node (its Lease then expires)."""
        node = self.nodes.pop(name, None)
        if node is not None:
            node.removed = True

    async def run(self) -> None:
        """Serve until cancelled."""
        async with asyncio.TaskGroup() as tasks:
            while True:
                now = self._clock.monotonic()
                while self._queue and self._queue[0][0] <= now and self._in_flight < self._max_in_flight:
                    _, _, kind, node = heapq.heappop(self._queue)
                    node.pending.discard(kind)
                    if not node.removed:
                        self._in_flight += 1
                        tasks.create_task(self._perform(node, kind))
                delay = MAX_TICK
                if self._queue and self._in_flight < self._max_in_flight:
                    delay = min(MAX_TICK, max(MIN_TICK, self._queue[0][0] - now))
                await self._wait(delay)

    async def _wait(self, seconds: float) -> None:
        """Sleep ``seconds`` of the clock, or less when ``_wake`` is set."""
        self._wake_at = self._clock.monotonic() + seconds
        if not self._wake.is_set():
            sleeper = asyncio.ensure_future(self._clock.sleep(seconds))
            waker = asyncio.ensure_future(self._wake.wait())
            try:
                await asyncio.wait({sleeper, waker}, return_when=asyncio.FIRST_COMPLETED)
            finally:
                sleeper.cancel()
                waker.cancel()
        self._wake.clear()

    def _push(self, node: HeartbeatNode, kind: str, due: float) -> None:
        if kind not in node.pending:
            node.pending.add(kind)
            heapq.heappush(self._queue, (due, next(self._order), kind, node))
            if due < self._wake_at:
                self._wake.set()

    def _next_slot(self, node: HeartbeatNode, kind: str) -> float:
        """The node's next ``anchor + m * interval`` after now."""
        interval, now = self._intervals[kind], self._clock.monotonic()
        periods = math.floor((now - node.anchor) / interval) + 1
        return node.anchor + max(periods, 0) * interval

    async def _perform(self, node: HeartbeatNode, kind: str) -> None:
        started = self._clock.monotonic()
        try:
            await {REGISTER: self._register, LEASE: self._renew_lease, STATUS: self._sync_status}[kind](node)
            if self._observe is not None and not node.failures.get(kind):
                self._observe(kind, started, self._clock.monotonic() - started)
        finally:
            if self._in_flight >= self._max_in_flight:
                self._wake.set()
            self._in_flight -= 1

    async def _register(self, node: HeartbeatNode) -> None:
        try:
            await node.reporter.register()
        except Exception as err:
            failures = self._failed(node, REGISTER, err)
            self._push(node, REGISTER, self._clock.monotonic() + min(7.0, 0.1 * 2 ** (failures - 1)))
            return
        self._succeeded(node, REGISTER)
        self._push(node, LEASE, self._clock.monotonic())
        self._push(node, STATUS, self._next_slot(node, STATUS))

    async def _renew_lease(self, node: HeartbeatNode) -> None:
        try:
            await node.lease.renew(self._clock.now())
        except Exception as err:
            failures = self._failed(node, LEASE, err)
            self._push(node, LEASE, self._clock.monotonic() + lease_backoff(failures))
            return
        self._succeeded(node, LEASE)
        self._push(node, LEASE, self._next_slot(node, LEASE))

    async def _sync_status(self, node: HeartbeatNode) -> None:
        if not node.reporter.registered:
            self._push(node, REGISTER, self._clock.monotonic())
            return
        try:
            await node.reporter.sync_node_status()
        except Exception as err:
            self._failed(node, STATUS, err)
            if not node.reporter.registered:
                self._push(node, REGISTER, self._clock.monotonic())
                return
        else:
            self._succeeded(node, STATUS)
        self._push(node, STATUS, self._next_slot(node, STATUS))

    def _failed(self, node: HeartbeatNode, kind: str, err: Exception) -> int:
        failures = node.failures[kind] = node.failures.get(kind, 0) + 1
        self._calls.inc(kind=kind, result="error")
        level = logging.WARNING if failures == 1 else logging.DEBUG
        log.log(level, "nodeagent: %s of node %s failed (%d in a row): %s", kind, node.name, failures, err)
        return failures

    def _succeeded(self, node: HeartbeatNode, kind: str) -> None:
        node.failures.pop(kind, None)
        self._calls.inc(kind=kind, result="success")
