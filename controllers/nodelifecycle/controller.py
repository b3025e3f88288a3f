"""The node lifecycle controller (upstream's ``nodelifecycle.Controller``).

Every ``node_monitor_period`` it checks each node's health (``monitor_node_health``):

1. ``try_update_node_health``: a node is alive while its Ready heartbeat or its Lease in
   ``kube-node-lease`` keeps changing; after ``node_monitor_grace_period`` of silence (or
   ``node_startup_grace_period`` for a node that never posted Ready), its Ready, MemoryPressure,
   DiskPressure and PIDPressure conditions become Unknown.
2. ``process_taint_based_eviction``, on the Ready condition as observed *before* this pass (so
   a node that just went silent is tainted on the next pass, as upstream): Unknown gets the
   ``unreachable:NoExecute`` taint, False ``not-ready:NoExecute`` (the two swap), True loses
   both. The taint-eviction controller acts on them.
3. A node this pass turned not-ready gets a ``NodeNotReady`` event and its pods Ready=False.

Separately, node events queue the node for ``sync`` (upstream's ``doNoScheduleTaintingPass``):
its NoSchedule taints follow its conditions (not-ready, unreachable, memory/disk/pid
pressure, network-unavailable) and ``spec.unschedulable``. Pod keys (``ns/name``) queued when a
pod is bound get Ready=False at once if their node is not ready.

Not modelled: zones, disruption modes and the eviction rate limiter (every node is tainted
at once), and ``--large-cluster-size-threshold``.
"""

from __future__ import annotations

import asyncio
import copy
import logging

from controllers.nodelifecycle.health import (
    READY,
    Condition,
    NodeHealth,
    get_condition,
    mark_unknown,
    pod_not_ready,
)
from controllers.nodelifecycle.taints import (
    CONDITION_TAINT_KEYS,
    CONDITION_TAINTS,
    NO_SCHEDULE,
    NOT_READY_NO_EXECUTE,
    TAINT_UNSCHEDULABLE,
    UNREACHABLE_NO_EXECUTE,
    Taint,
    matches,
    swap_node_controller_taint,
    taint_exists,
    taints_of,
)
from minikube_py.api.errors import ApiError
from minikube_py.api.timestamps import format_rfc3339 as format_time
from minikube_py.api.timestamps import parse_rfc3339 as parse_time
from minikube_py.cache.factory import SharedInformerFactory
from minikube_py.cache.informer import EventHandlerFuncs, SharedInformer
from minikube_py.cache.store import DeletedFinalStateUnknown
from minikube_py.client.interfaces import Client, Object
from minikube_py.client.resourcetypes import LEASES, NODES, PODS
from minikube_py.clock import Clock, RealClock
from minikube_py.controller import run_workers, wait_for_cache_sync
from minikube_py.events import Recorder
from minikube_py.workqueue import RateLimitingQueue

log = logging.getLogger("nodelifecycle")

NODE_LEASE_NAMESPACE = "kube-node-lease"
NODE_NAME_INDEX = "spec.nodeName"
NODE_HEALTH_UPDATE_RETRY = 5


def node_name_index(pod: Object) -> list[str]:
    name = (pod.get("spec") or {}).get("nodeName")
    return [name] if name else []


def pods_by_node_name(pods: SharedInformer) -> SharedInformer:
    """Make sure the shared pod informer is indexed by ``spec.nodeName``."""
    if NODE_NAME_INDEX not in pods.indexer.indexer_names():
        pods.add_indexers({NODE_NAME_INDEX: node_name_index})
    return pods


def node_ref(node: Object) -> Object:
    meta = node.get("metadata") or {}
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": meta.get("name"), "uid": meta.get("uid")},
    }


class NodeLifecycleController:
    """``name`` = "nodelifecycle". Informers: nodes, leases in ``kube-node-lease``, pods
    (indexed by ``spec.nodeName``). Keys: node names (NoSchedule taints) and ``ns/name`` pods."""

    name = "nodelifecycle"

    def __init__(
        self,
        client: Client,
        factory: SharedInformerFactory,
        recorder: Recorder,
        *,
        clock: Clock | None = None,
        node_monitor_period: float = 5.0,
        node_monitor_grace_period: float = 40.0,
        node_startup_grace_period: float = 60.0,
    ) -> None:
        self._client = client
        self._clock = clock or RealClock()
        self._recorder = recorder
        self.node_monitor_period = node_monitor_period
        self.node_monitor_grace_period = node_monitor_grace_period
        self.node_startup_grace_period = node_startup_grace_period
        self.node_health: dict[str, NodeHealth] = {}
        self.known_nodes: dict[str, Object] = {}
        self.nodes_to_retry: set[str] = set()
        self.queue: RateLimitingQueue[str] = RateLimitingQueue(clock=self._clock, name="nodelifecycle")
        self.nodes = factory.informer(NODES)
        self.leases = factory.informer(LEASES, NODE_LEASE_NAMESPACE)
        self.pods = pods_by_node_name(factory.informer(PODS))
        self.nodes.add_event_handler(
            EventHandlerFuncs(
                add=self._node_changed, update=lambda _o, n: self._node_changed(n), delete=self._node_deleted
            )
        )
        self.pods.add_event_handler(
            EventHandlerFuncs(add=lambda p: self._pod_updated(None, p), update=self._pod_updated)
        )

    # -- handlers --------------------------------------------------------------------------

    def _node_changed(self, node: Object) -> None:
        self.queue.add(node["metadata"]["name"])

    def _node_deleted(self, obj: Object | DeletedFinalStateUnknown) -> None:
        node = obj.obj if isinstance(obj, DeletedFinalStateUnknown) else obj
        self.nodes_to_retry.discard(node["metadata"]["name"])

    def _pod_updated(self, old: Object | None, new: Object) -> None:
        node_name = (new.get("spec") or {}).get("nodeName")
        if node_name and (old is None or (old.get("spec") or {}).get("nodeName") != node_name):
            meta = new["metadata"]
            self.queue.add(f"{meta['namespace']}/{meta['name']}")

    # -- running ---------------------------------------------------------------------------

    async def run(self, workers: int) -> None:
        synced = [self.nodes.has_synced, self.leases.has_synced, self.pods.has_synced]
        async with asyncio.TaskGroup() as tg:
            tg.create_task(run_workers(self.name, self.queue, self.sync, workers, synced, self._clock))
            tg.create_task(self._monitor_loop())

    async def _monitor_loop(self) -> None:
        await wait_for_cache_sync(self.name, [self.nodes.has_synced, self.leases.has_synced], self._clock)
        while True:
            try:
                await self.monitor_node_health()
            except Exception:
                log.exception("monitoring node health failed")
            await self._clock.sleep(self.node_monitor_period)

    async def sync(self, key: str) -> None:
        if "/" in key:
            await self.process_pod(key)
        else:
            await self.do_no_schedule_tainting_pass(key)

    # -- NoSchedule taints from conditions -------------------------------------------------

    async def do_no_schedule_tainting_pass(self, node_name: str) -> None:
        node = self.nodes.indexer.get_by_key(node_name)
        if node is None:
            return
        wanted: list[Taint] = []
        for condition in (node.get("status") or {}).get("conditions") or []:
            key = CONDITION_TAINTS.get(condition.get("type", ""), {}).get(condition.get("status", ""))
            if key:
                wanted.append({"key": key, "effect": NO_SCHEDULE})
        if (node.get("spec") or {}).get("unschedulable"):
            wanted.append({"key": TAINT_UNSCHEDULABLE, "effect": NO_SCHEDULE})
        current = [
            t
            for t in taints_of(node)
            if t.get("effect") == NO_SCHEDULE
            and (t.get("key") in CONDITION_TAINT_KEYS or t.get("key") == TAINT_UNSCHEDULABLE)
        ]
        to_add = [t for t in wanted if not taint_exists(current, t)]
        to_remove = [t for t in current if not taint_exists(wanted, t)]
        if not to_add and not to_remove:
            return
        if not await swap_node_controller_taint(
            self._client, node_name, to_add, to_remove, self._clock.now()
        ):
            raise RuntimeError(f"failed to swap taints of node {node_name}")

    # -- pods bound to a node that is not ready --------------------------------------------

    async def process_pod(self, key: str) -> None:
        pod = self.pods.indexer.get_by_key(key)
        if pod is None:
            return
        node_name = (pod.get("spec") or {}).get("nodeName", "")
        health = self.node_health.get(node_name)
        if health is None or health.ready is None:
            return  # not observed yet: the next health pass handles it
        if health.ready.get("status") != "True":
            await self.mark_pods_not_ready([pod], node_name)

    async def mark_pods_not_ready(self, pods: list[Object], node_name: str) -> None:
        """Upstream ``MarkPodsNotReady``: Ready=False on each pod of ``node_name``, with a
        ``NodeNotReady`` event on the pod."""
        failures: list[str] = []
        now = format_time(self._clock.now())
        for pod in pods:
            if (pod.get("spec") or {}).get("nodeName") != node_name:
                continue
            updated = pod_not_ready(pod, now)
            if updated is None:
                continue
            meta = pod["metadata"]
            try:
                await self._client.resource(PODS, meta["namespace"]).update_status(updated)
            except ApiError as exc:
                if exc.code != 404:
                    failures.append(f"{meta['namespace']}/{meta['name']}: {exc}")
                continue
            self._recorder.event(pod, "Warning", "NodeNotReady", "Node is not ready")
        if failures:
            raise RuntimeError("unable to mark pods NotReady: " + "; ".join(failures))

    # -- node health -----------------------------------------------------------------------

    async def monitor_node_health(self) -> None:
        """One pass over every node (upstream ``monitorNodeHealth``)."""
        nodes = self.nodes.indexer.list()
        await self._classify_nodes(nodes)
        for cached in nodes:
            node = copy.deepcopy(cached)
            name = node["metadata"]["name"]
            try:
                node, observed, current = await self._update_node_health_with_retry(node)
            except ApiError as exc:
                log.error("update health of node %s failed: %s; skipping", name, exc)
                continue
            if current is not None:
                pods = self.pods.indexer.by_index(NODE_NAME_INDEX, name)
                await self.process_taint_based_eviction(node, observed)
                became_not_ready = current.get("status") != "True" and observed.get("status") == "True"
                if became_not_ready:
                    self.record_node_status_change(node, "NodeNotReady")
                if became_not_ready or (name in self.nodes_to_retry and observed.get("status") != "True"):
                    try:
                        await self.mark_pods_not_ready(pods, name)
                    except RuntimeError as exc:
                        log.error("%s on node %s; queuing for retry", exc, name)
                        self.nodes_to_retry.add(name)
                        continue
            self.nodes_to_retry.discard(name)

    async def _classify_nodes(self, nodes: list[Object]) -> None:
        names = {n["metadata"]["name"] for n in nodes}
        for node in nodes:
            name = node["metadata"]["name"]
            if name not in self.known_nodes:
                self._recorder.event(
                    node_ref(node), "Normal", "RegisteredNode", f"Registered Node {name} in Controller"
                )
                self.known_nodes[name] = node
                await self.mark_node_as_reachable(node)
        for name in [n for n in self.known_nodes if n not in names]:
            gone = self.known_nodes.pop(name)
            self._recorder.event(
                node_ref(gone), "Normal", "RemovingNode", f"Removing Node {name} from Controller"
            )
            self.node_health.pop(name, None)

    async def _update_node_health_with_retry(
        self, node: Object
    ) -> tuple[Object, Condition, Condition | None]:
        name = node["metadata"]["name"]
        for attempt in range(NODE_HEALTH_UPDATE_RETRY):
            try:
                observed, current = await self.try_update_node_health(node)
                return node, observed, current
            except ApiError:
                if attempt == NODE_HEALTH_UPDATE_RETRY - 1:
                    raise
                node = await self._client.resource(NODES).get(name)
        raise AssertionError("unreachable")

    async def try_update_node_health(self, node: Object) -> tuple[Condition, Condition | None]:
        """Refresh ``node_health`` for ``node`` (a private copy) and, after the grace period
        without heartbeats, write Unknown conditions. Returns the Ready condition as observed
        before and after."""
        name = node["metadata"]["name"]
        now = self._clock.now()
        created = node["metadata"].get("creationTimestamp", "")
        current = get_condition(node, READY)
        health = self.node_health.get(name)
        if current is None:
            observed: Condition = {
                "type": READY,
                "status": "Unknown",
                "lastHeartbeatTime": created,
                "lastTransitionTime": created,
            }
            grace = self.node_startup_grace_period
            if health is None:
                created_at = parse_time(created) or now
                health = NodeHealth(None, created_at, created_at)
        else:
            observed = copy.deepcopy(current)
            grace = self.node_monitor_grace_period
        saved = health.ready if health is not None else None
        if (
            health is None
            or (saved is None and current is not None)
            or (saved is not None and current is None)
        ):
            health = NodeHealth(copy.deepcopy(current), now, now, health.lease_renew_time if health else None)
        elif (
            current is not None
            and saved is not None
            and saved.get("lastHeartbeatTime") != current.get("lastHeartbeatTime")
        ):
            transition = health.ready_transition_timestamp
            if saved.get("lastTransitionTime") != current.get("lastTransitionTime"):
                transition = now
            health = NodeHealth(copy.deepcopy(current), now, transition, health.lease_renew_time)
        self._observe_lease(name, health, now)
        self.node_health[name] = health
        if now <= health.probe_timestamp + grace:
            return observed, current
        mark_unknown(node, format_time(now), created)
        current = get_condition(node, READY)
        if current != observed:
            log.info(
                "nodelifecycle: node %s hasn't been updated for %.0fs; marking it Unknown",
                name,
                now - health.probe_timestamp,
            )
            await self._client.resource(NODES).update_status(node)
            self.node_health[name] = NodeHealth(
                copy.deepcopy(current), health.probe_timestamp, now, health.lease_renew_time
            )
        return observed, current

    def _observe_lease(self, name: str, health: NodeHealth, now: float) -> None:
        """A renewed Lease counts as a heartbeat."""
        lease = self.leases.indexer.get_by_key(f"{NODE_LEASE_NAMESPACE}/{name}")
        if lease is None:
            return
        renewed = parse_time((lease.get("spec") or {}).get("renewTime"))
        if renewed is not None and (health.lease_renew_time is None or health.lease_renew_time < renewed):
            health.lease_renew_time = renewed
            health.probe_timestamp = now

    def record_node_status_change(self, node: Object, new_status: str) -> None:
        name = node["metadata"]["name"]
        self._recorder.event(node_ref(node), "Normal", new_status, f"Node {name} status is now: {new_status}")

    # -- NoExecute taints ------------------------------------------------------------------

    async def process_taint_based_eviction(self, node: Object, observed: Condition) -> None:
        name = node["metadata"]["name"]
        status = observed.get("status")
        taints = taints_of(node)
        if status == "False":
            if not taint_exists(taints, NOT_READY_NO_EXECUTE) or taint_exists(taints, UNREACHABLE_NO_EXECUTE):
                log.info(
                    "nodelifecycle: node %s is NotReady; tainting it %s", name, NOT_READY_NO_EXECUTE["key"]
                )
                await swap_node_controller_taint(
                    self._client, name, [NOT_READY_NO_EXECUTE], [UNREACHABLE_NO_EXECUTE], self._clock.now()
                )
        elif status == "Unknown":
            if not taint_exists(taints, UNREACHABLE_NO_EXECUTE) or taint_exists(taints, NOT_READY_NO_EXECUTE):
                log.info(
                    "nodelifecycle: node %s is unresponsive; tainting it %s",
                    name,
                    UNREACHABLE_NO_EXECUTE["key"],
                )
                await swap_node_controller_taint(
                    self._client, name, [UNREACHABLE_NO_EXECUTE], [NOT_READY_NO_EXECUTE], self._clock.now()
                )
        elif status == "True":
            await self.mark_node_as_reachable(node)

    async def mark_node_as_reachable(self, node: Object) -> None:
        """Remove the NoExecute taints this controller set, if the node has any."""
        present = [
            t
            for t in (UNREACHABLE_NO_EXECUTE, NOT_READY_NO_EXECUTE)
            if any(matches(t, n) for n in taints_of(node))
        ]
        if present:
            name = node["metadata"]["name"]
            log.info("node %s is healthy again, removing all taints", name)
            await swap_node_controller_taint(self._client, name, [], present, self._clock.now())
