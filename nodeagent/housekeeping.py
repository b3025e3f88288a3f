"""A node's resource housekeeping, assembled: its Summary API (``stats``), its eviction manager
(``eviction``) and its container GC (``pod.containergc``), over its pod manager and runtime.

``node_housekeeping`` picks the node-level stats by runtime: a process node reports the host
(``ProcessHost`` on the node's directory), a simulated node the sum of its pods against its
configured capacity (``SimulatedHost``). ``NodeHousekeeping.run`` runs the eviction manager
and the GC until cancelled; ``eviction.signals`` is the node status's ``SignalSource``.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from pathlib import Path

from minikube_py.api.quantity import Quantity
from minikube_py.clock import Clock
from minikube_py.events import Recorder
from nodeagent.eviction.manager import EvictionManager
from nodeagent.eviction.thresholds import DEFAULT_EVICTION_HARD, parse_thresholds
from nodeagent.node.nodeinfo import NodeConfig
from nodeagent.pod.containergc import ContainerGC
from nodeagent.pod.podmanager import PodManager
from nodeagent.stats.host import HostStats, ProcessHost, SimulatedHost
from nodeagent.stats.summary import SummaryProvider


@dataclass
class NodeHousekeeping:
    summaries: SummaryProvider
    eviction: EvictionManager
    gc: ContainerGC

    async def run(self) -> None:
        async with asyncio.TaskGroup() as tasks:
            tasks.create_task(self.eviction.run())
            tasks.create_task(self.gc.run())


def node_housekeeping(
    node: NodeConfig,
    manager: PodManager,
    recorder: Recorder,
    clock: Clock,
    root: Path,
    eviction_hard: str = DEFAULT_EVICTION_HARD,
) -> NodeHousekeeping:
    """The housekeeping of ``node`` (files under ``root``) with the hard eviction thresholds
    ``eviction_hard`` (``memory.available<100Mi,...``; raises ``ValueError`` when invalid)."""
    runtime = manager.runtime
    host: HostStats
    if runtime.name == "fake":
        memory = Quantity.parse(node.capacity.get("memory", "0")).value()
        storage = Quantity.parse(node.capacity.get("ephemeral-storage", "0")).value()
        host = SimulatedHost(memory, storage, clock.now())
    else:
        host = ProcessHost(str(root))
    summaries = SummaryProvider(node.name, runtime, host, clock, manager.workers.known)
    gc = ContainerGC(runtime, manager.pod_exists, clock)
    eviction = EvictionManager(
        summaries,
        manager.active_pods,
        manager.evict_pod,
        recorder,
        clock,
        parse_thresholds(eviction_hard),
        reclaim=gc.garbage_collect,
    )
    return NodeHousekeeping(summaries, eviction, gc)
