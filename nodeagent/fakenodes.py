"""Many simulated nodes served by one agent (``up --fake-nodes M``, kwok-style).

``run_fake_nodes`` serves ``fake-1..M`` from one process: one client (its identity must be
allowed to act for every node), one heartbeat loop, one pod informer whose events go to the
pod's node only (``by_node``), one HTTPS API for all of them, and per node a fake runtime (its
own /24 of pod IPs) and a pod manager. To keep thousands of simulated pods cheap, simulated
nodes record only Warning events and write container logs only when ``FAKE_LOG`` asks.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Sequence
from pathlib import Path

from minikube_py.api.unstructured import Object
from minikube_py.cache.factory import SharedInformerFactory
from minikube_py.cache.informer import EventHandlerFuncs
from minikube_py.cache.store import DeletedFinalStateUnknown
from minikube_py.client import RESTClient
from minikube_py.client.config import ClientConfig
from minikube_py.client.resourcetypes import PODS, SERVICES
from minikube_py.clock import Clock, RealClock
from minikube_py.events import EventRecorder, Recorder
from nodeagent.agent import (
    KUBELET_BURST,
    KUBELET_QPS,
    USER_AGENT,
    ServingTLS,
    log_lookup,
    node_root,
    pod_manager,
)
from nodeagent.eviction.thresholds import DEFAULT_EVICTION_HARD
from nodeagent.housekeeping import NodeHousekeeping, node_housekeeping
from nodeagent.node.heartbeats import NodeHeartbeats
from nodeagent.node.nodeinfo import fake_node_config
from nodeagent.node.server import AgentServer, agent_app
from nodeagent.node.streams.target import stream_lookup
from nodeagent.pod.podmanager import PodManager
from nodeagent.runtime.fake import FakeRuntime
from nodeagent.runtime.interface import ContainerRuntime
from nodeagent.stats.endpoint import summary_lookup
from nodeagent.stats.summary import SummaryProvider


def fake_pod_cidr(index: int) -> str:
    """Simulated node ``fake-<index>``'s range when none is given: a /24 of 127.200.0.0/13
    onward (loopback, never bound: a connection to a simulated pod is refused at once)."""
    return f"127.{200 + (index >> 8)}.{index & 255}.0/24"


async def run_fake_nodes(
    config: ClientConfig,
    names: Sequence[str],
    data_dir: Path,
    tls: ServingTLS,
    clock: Clock | None = None,
    eviction_hard: str = DEFAULT_EVICTION_HARD,
    pod_cidrs: Sequence[str] = (),
) -> None:
    """Serve the simulated nodes ``names`` until cancelled (one API server for all of them);
    node ``names[i]`` gets pod range ``pod_cidrs[i]`` (``fake_pod_cidr`` past their end). Their
    API listens on 127.0.0.1, which is every simulated node's ``InternalIP``."""
    clock = clock or RealClock()
    # each simulated node has a kubelet's room (kubeAPIQPS 50, burst 100), shared by one client
    scaled = dataclasses.replace(
        config, user_agent=USER_AGENT, qps=KUBELET_QPS * len(names), burst=KUBELET_BURST * len(names)
    )
    client = RESTClient(scaled, clock=clock)
    runtimes: list[ContainerRuntime] = []
    try:
        factory = SharedInformerFactory(client, clock=clock)
        # only bound pods (a kubelet watches spec.nodeName=<node>; one watch serves all of
        # these nodes): pending pods, the bulk of a burst, are never sent here and decoded
        pods = factory.informer(PODS, field_selector="spec.nodeName!=")
        services = factory.informer(SERVICES)
        roots = {name: node_root(data_dir, name) for name in names}
        summaries: dict[str, SummaryProvider] = {}
        node_runtimes: dict[str, ContainerRuntime] = {}
        streams = stream_lookup(pods.indexer.get_by_key, node_runtimes)
        app = agent_app(log_lookup(pods, None, roots), stats=summary_lookup(summaries), streams=streams)
        server = AgentServer(app, cert=tls.cert, client_ca=tls.client_ca, port=0)
        heartbeats = NodeHeartbeats(clock=clock)
        events = EventRecorder(client, "kubelet", clock=clock)
        recorder = WarningsOnly(events)
        managers: list[PodManager] = []
        housekeepings: list[NodeHousekeeping] = []
        for index, name in enumerate(names, start=1):
            pod_cidr = pod_cidrs[index - 1] if index <= len(pod_cidrs) else fake_pod_cidr(index)
            runtime = FakeRuntime(clock, pod_cidr=pod_cidr, scripted_logs_only=True)
            runtimes.append(runtime)
            node_runtimes[name] = runtime
            node = fake_node_config(name, port=server.port, runtime_version=await runtime.version())
            node = dataclasses.replace(node, pod_cidr=pod_cidr)
            manager = pod_manager(client, node, roots[name], runtime, recorder, clock, services)
            managers.append(manager)
            keeping = node_housekeeping(node, manager, recorder, clock, roots[name], eviction_hard)
            summaries[name] = keeping.summaries
            heartbeats.add(client, node, signals=keeping.eviction.signals)
            housekeepings.append(keeping)
        pods.add_event_handler(by_node({m.node_name: m.handlers() for m in managers}))
        async with asyncio.TaskGroup() as tasks:
            tasks.create_task(server.serve())
            tasks.create_task(heartbeats.run())
            tasks.create_task(events.run())
            factory.start(tasks)
            for manager in managers:
                tasks.create_task(manager.run())
            for keeping in housekeepings:
                tasks.create_task(keeping.run())
    finally:
        for each in runtimes:
            await each.close()
        await client.close()


class WarningsOnly:
    """The Events of simulated nodes: only Warnings (BackOff, Unhealthy, Evicted, Failed...).
    Pulled/Created/Started/Killing for every simulated container would cost the apiserver
    more than the pods themselves; kwok's simulated nodes record none."""

    def __init__(self, recorder: Recorder) -> None:
        self.recorder = recorder

    def event(self, obj: Object, event_type: str, reason: str, message: str) -> None:
        if event_type != "Normal":
            self.recorder.event(obj, event_type, reason, message)


def by_node(handlers: dict[str, EventHandlerFuncs]) -> EventHandlerFuncs:
    """One informer handler for many nodes: each pod event goes to its node's handlers only
    (one listener instead of one per node; a pod is bound once, so its node never changes)."""

    def node_of(pod: Object) -> EventHandlerFuncs | None:
        return handlers.get((pod.get("spec") or {}).get("nodeName") or "")

    def add(pod: Object) -> None:
        if (handler := node_of(pod)) is not None and handler.add is not None:
            handler.add(pod)

    def update(old: Object, new: Object) -> None:
        if (handler := node_of(new)) is not None and handler.update is not None:
            handler.update(old, new)

    def delete(obj: Object | DeletedFinalStateUnknown) -> None:
        pod = obj.obj if isinstance(obj, DeletedFinalStateUnknown) else obj
        if (handler := node_of(pod)) is not None and handler.delete is not None:
            handler.delete(obj)

    return EventHandlerFuncs(add=add, update=update, delete=delete)
