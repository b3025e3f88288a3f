"""The proxier (upstream ``pkg/proxy``'s change trackers and ``syncProxyRules``): informers
of Services, EndpointSlices and Nodes only count changes and ask the runner for a sync; one
sync reads the caches, builds every frontend's route and applies the difference to the
listeners, writes LoadBalancer statuses and records the sync metrics.

``Local`` traffic policies: an endpoint is local when its ``nodeName`` is one of the nodes
this proxy serves (``node_names``: ``up``'s process nodes, or a standalone proxy's
``--node-name``; None: every Node in the cluster). NodePorts are served on those nodes'
loopback ``InternalIP`` addresses."""

from __future__ import annotations

import asyncio
import contextlib
import datetime
import logging
from collections.abc import Callable
from dataclasses import dataclass

from minikube_py.api.unstructured import Object
from minikube_py.cache.factory import SharedInformerFactory
from minikube_py.cache.informer import EventHandlerFuncs
from minikube_py.cache.store import DeletedFinalStateUnknown, final_state
from minikube_py.client.interfaces import Client
from minikube_py.client.resourcetypes import NODES, SERVICES, resource_type
from minikube_py.clock import Clock
from nodeagent.proxy.balancer import RANDOM, Balancer
from nodeagent.proxy.endpoints import (
    TRIGGER_TIME_ANNOTATION,
    Backend,
    EndpointsIndex,
    PortKey,
    is_loopback,
    usable,
)
from nodeagent.proxy.healthz import ProxierHealth
from nodeagent.proxy.lbstatus import LoadBalancerStatus
from nodeagent.proxy.listeners import DEFAULT_RETRY_PERIOD, Listeners
from nodeagent.proxy.metrics import ProxyMetrics
from nodeagent.proxy.network import Network
from nodeagent.proxy.routes import FrontendKey, Route
from nodeagent.proxy.runner import BoundedFrequencyRunner
from nodeagent.proxy.servicemap import ServiceMap, ServicePort
from nodeagent.proxy.udp import DEFAULT_UDP_TIMEOUT

log = logging.getLogger("proxy")

ENDPOINT_SLICES = resource_type("discovery.k8s.io/v1", "endpointslices")
DEFAULT_SYNC_PERIOD = 30.0  # upstream's syncPeriod
# upstream's minSyncPeriod is 1 s (an iptables-restore is costly); a sync here is a dict swap
DEFAULT_MIN_SYNC_PERIOD = 0.02


@dataclass(frozen=True)
class ProxyConfig:
    node_names: frozenset[str] | None = None
    selection: str = RANDOM
    sync_period: float = DEFAULT_SYNC_PERIOD
    min_sync_period: float = DEFAULT_MIN_SYNC_PERIOD
    udp_timeout: float = DEFAULT_UDP_TIMEOUT
    bind_retry_period: float = DEFAULT_RETRY_PERIOD


class Proxier:
    def __init__(
        self,
        client: Client,
        factory: SharedInformerFactory,
        config: ProxyConfig,
        network: Network,
        clock: Clock,
        metrics: ProxyMetrics | None = None,
    ) -> None:
        self.config = config
        self.clock = clock
        self.metrics = metrics or ProxyMetrics()
        self.health = ProxierHealth(clock, 2 * config.sync_period)
        self.listeners = Listeners(
            network,
            clock,
            self.metrics,
            udp_timeout=config.udp_timeout,
            retry_period=config.bind_retry_period,
        )
        self.load_balancers = LoadBalancerStatus(client, clock)
        self.runner = BoundedFrequencyRunner(
            self.sync, clock, min_interval=config.min_sync_period, max_interval=config.sync_period
        )
        self.runner.extra_deadline = self.listeners.next_retry
        self._services = factory.informer(SERVICES)
        self._slices = factory.informer(ENDPOINT_SLICES)
        self._nodes = factory.informer(NODES)
        self._service_map = ServiceMap()
        self._endpoints = EndpointsIndex()
        self._balancers: dict[PortKey, Balancer] = {}
        self._triggers: list[float] = []
        self._first_pending_slice: float | None = None  # when the oldest unsynced slice event came
        self._services.add_event_handler(self._handler(self._service_changed))
        self._slices.add_event_handler(self._handler(self._slice_changed))
        self._nodes.add_event_handler(
            EventHandlerFuncs(add=self._node_changed, update=self._node_updated, delete=self._node_changed)
        )

    def _handler(self, changed: Callable[[Object], None]) -> EventHandlerFuncs:
        def on(obj: Object | DeletedFinalStateUnknown) -> None:
            changed(final_state(obj))

        return EventHandlerFuncs(add=on, update=lambda _old, new: on(new), delete=on)

    def _node_changed(self, obj: Object | DeletedFinalStateUnknown) -> None:
        node = final_state(obj)
        if self.config.node_names is None or node.get("metadata", {}).get("name") in self.config.node_names:
            self._queue()

    def _node_updated(self, old: Object, new: Object) -> None:
        # heartbeats rewrite a Node's status often: only an address change matters here
        if node_addresses([old], self.config.node_names) != node_addresses([new], self.config.node_names):
            self._queue()

    def _queue(self) -> None:
        self.health.queued_update()
        self.runner.request()

    def _service_changed(self, _: Object) -> None:
        self.metrics.service_changes.inc()
        self._queue()

    def _slice_changed(self, obj: Object) -> None:
        self.metrics.endpoint_changes.inc()
        if self._first_pending_slice is None:
            self._first_pending_slice = self.clock.monotonic()
        trigger = ((obj.get("metadata") or {}).get("annotations") or {}).get(TRIGGER_TIME_ANNOTATION)
        if trigger:
            with contextlib.suppress(ValueError):
                self._triggers.append(
                    datetime.datetime.fromisoformat(trigger.replace("Z", "+00:00")).timestamp()
                )
        self._queue()

    async def run(self) -> None:
        """Sync until cancelled (the informers are the caller's to start)."""
        await asyncio.gather(
            self._services.wait_synced(), self._slices.wait_synced(), self._nodes.wait_synced()
        )
        try:
            async with asyncio.TaskGroup() as tasks:
                tasks.create_task(self.load_balancers.run())
                self.runner.request()
                await self.runner.run()
        finally:
            self.listeners.close()

    async def sync(self) -> None:
        start = self.clock.monotonic()
        services = self._services.indexer.list()
        ports = self._service_map.build(services)
        endpoints = self._endpoints.build(self._slices.indexer.list())
        await self.listeners.apply(self.routes(ports, endpoints))
        self.load_balancers.sync(services)
        now = self.clock.now()
        for trigger in self._triggers:
            if trigger <= now:
                self.metrics.network_programming.observe(now - trigger)
        self._triggers.clear()
        done = self.clock.monotonic()
        if self._first_pending_slice is not None and self._first_pending_slice <= start:
            self.metrics.endpoints_programming.observe(done - self._first_pending_slice)
            self._first_pending_slice = None
        self.metrics.sync_duration.observe(done - start)
        self.metrics.last_sync.set(now)
        self.health.updated()

    def routes(
        self, ports: list[ServicePort], endpoints: dict[PortKey, tuple[Backend, ...]]
    ) -> dict[FrontendKey, Route]:
        """Every frontend's route: ClusterIPs with the internal policy, NodePorts with the
        external one; a frontend without usable backends is not listened on, so connections
        to it are refused at once (upstream REJECTs them)."""
        nodes = self._nodes.indexer.list()
        local = self.config.node_names
        if local is None:
            local = frozenset(n.get("metadata", {}).get("name", "") for n in nodes)
        node_ips = node_addresses(nodes, self.config.node_names)
        desired: dict[FrontendKey, Route] = {}
        balancers: dict[PortKey, Balancer] = {}
        for port in ports:
            balancer = self._balancer(port)
            balancers[port.key] = balancer
            backends = endpoints.get(port.key, ())
            internal = usable(backends, local if port.internal_local else None)
            if internal:
                for ip in port.cluster_ips:
                    desired[(port.protocol, ip, port.port)] = Route(port.name, internal, balancer)
            external = usable(backends, local if port.external_local else None)
            if external and port.node_port:
                for ip in node_ips:
                    desired[(port.protocol, ip, port.node_port)] = Route(port.name, external, balancer)
        self._balancers = balancers
        return desired

    def _balancer(self, port: ServicePort) -> Balancer:
        balancer = self._balancers.get(port.key)
        if balancer is None:
            balancer = Balancer(self.clock, self.config.selection)
        balancer.affinity_timeout = port.affinity_timeout
        balancer.expire()
        return balancer


def node_addresses(nodes: list[Object], names: frozenset[str] | None) -> list[str]:
    """The loopback ``InternalIP`` addresses of ``names`` (None: every node), each once."""
    found: list[str] = []
    for node in nodes:
        if names is not None and node.get("metadata", {}).get("name") not in names:
            continue
        for address in (node.get("status") or {}).get("addresses") or []:
            ip = address.get("address", "")
            if address.get("type") == "InternalIP" and is_loopback(ip) and ip not in found:
                found.append(ip)
    return found
