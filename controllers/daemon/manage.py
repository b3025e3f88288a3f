"""One daemon pod per eligible node (upstream's ``manage``, ``podsShouldBeOnNode`` and
``syncNodes``): nodes that should run the pod and have none get one; pods on nodes that should
not run them, pods past the first, failed pods (after a per-node backoff) and succeeded pods are
deleted; unscheduled pods aimed at nodes that are gone are deleted too.

With ``maxSurge`` a node may hold an old and a new pod at once: the old one goes when it is not
ready or the new one is available (the rolling update creates the new one)."""

from __future__ import annotations

import asyncio
import logging

from controllers.daemon.backoff import backoff_key
from controllers.daemon.context import DaemonContext, PodsByNode, creation_order_key
from controllers.daemon.predicates import DaemonPlacement
from controllers.daemon.util import (
    REVISION_HASH_LABEL,
    create_pod_template,
    replace_node_name_affinity,
    surge_count,
    template_generation,
)
from controllers.podcontrol.control import namespace_terminating
from controllers.podcontrol.pods import is_pod_available, is_pod_ready
from minikube_py.api.errors import ApiError
from minikube_py.api.unstructured import Object
from minikube_py.cache.store import meta_namespace_key

log = logging.getLogger("daemonset")

SLOW_START_INITIAL_BATCH = 1


async def manage(
    ctx: DaemonContext,
    ds: Object,
    nodes: list[Object],
    by_node: PodsByNode,
    placement: DaemonPlacement,
    hash_: str,
) -> None:
    nodes_needing_pods: list[str] = []
    pods_to_delete: list[str] = []
    for node in nodes:
        need, delete = pods_should_be_on_node(ctx, ds, node, by_node, placement, hash_)
        nodes_needing_pods += need
        pods_to_delete += delete
    pods_to_delete += unscheduled_pods_without_node(nodes, by_node)
    await sync_nodes(ctx, ds, pods_to_delete, nodes_needing_pods, hash_)


def unscheduled_pods_without_node(nodes: list[Object], by_node: PodsByNode) -> list[str]:
    """Pods not yet bound whose target node does not exist (they would never schedule)."""
    known = {n["metadata"]["name"] for n in nodes}
    return [
        pod["metadata"]["name"]
        for node, pods in by_node.items()
        if node not in known
        for pod in pods
        if not (pod.get("spec") or {}).get("nodeName") and not pod["metadata"].get("deletionTimestamp")
    ]


def pods_should_be_on_node(
    ctx: DaemonContext, ds: Object, node: Object, by_node: PodsByNode, placement: DaemonPlacement, hash_: str
) -> tuple[list[str], list[str]]:
    """(the node if it needs a pod, names of pods on it to delete)."""
    name = node["metadata"]["name"]
    should_run, should_continue = placement.of(node)
    pods = by_node.get(name)
    if should_run and not pods:
        return [name], []
    if not should_continue:
        return [], [p["metadata"]["name"] for p in pods or [] if not p["metadata"].get("deletionTimestamp")]
    if not pods:
        return [], []
    to_delete: list[str] = []
    running: list[Object] = []
    for pod in pods:
        if pod["metadata"].get("deletionTimestamp"):
            continue
        phase = (pod.get("status") or {}).get("phase")
        if phase == "Failed":
            if _failed_pod_in_backoff(ctx, ds, name, pod):
                continue
            to_delete.append(pod["metadata"]["name"])
        elif phase == "Succeeded":
            log.info(
                "found succeeded daemon pod %s on node %s, will try to delete it",
                pod["metadata"]["name"],
                name,
            )
            to_delete.append(pod["metadata"]["name"])
        else:
            running.append(pod)
    running.sort(key=creation_order_key)
    if not _surge_configured(ds):
        to_delete += [p["metadata"]["name"] for p in running[1:]]  # keep the oldest
        return [], to_delete
    return [], to_delete + _surge_excess(ctx, ds, running, hash_)


def _surge_configured(ds: Object) -> bool:
    """Upstream's ``AllowsSurge``: a RollingUpdate whose maxSurge resolves above 0 (of 1)."""
    return surge_count(ds, 1) > 0


def _failed_pod_in_backoff(ctx: DaemonContext, ds: Object, node: str, pod: Object) -> bool:
    """True while the node's failed-pod backoff runs (the DaemonSet is requeued for its end);
    otherwise the backoff grows and a FailedDaemonPod event says the pod goes."""
    now = ctx.clock.now()
    key = backoff_key(
        ds["metadata"]["uid"], int((ds.get("status") or {}).get("observedGeneration") or 0), node
    )
    if ctx.backoff.in_backoff_since_update(key, now):
        delay = ctx.backoff.get(key)
        log.info(
            "deleting failed pod %s on node %s has been limited by backoff (%.0fs)",
            pod["metadata"]["name"],
            node,
            delay,
        )
        ctx.enqueue_after(meta_namespace_key(ds), delay)
        return True
    ctx.backoff.next(key, now)
    pod_name = f"{pod['metadata']['namespace']}/{pod['metadata']['name']}"
    message = f"Found failed daemon pod {pod_name} on node {node}, will try to kill it"
    ctx.recorder.event(ds, "Warning", "FailedDaemonPod", message)
    return False


def _surge_excess(ctx: DaemonContext, ds: Object, running: list[Object], hash_: str) -> list[str]:
    """Keep the oldest pod of the current revision and the oldest other one; the old one also
    goes once it is not ready or the new one is available."""
    newest: Object | None = None
    oldest_old: Object | None = None
    excess: list[str] = []
    for pod in running:
        current = (pod["metadata"].get("labels") or {}).get(REVISION_HASH_LABEL) == hash_
        if current and newest is None:
            newest = pod
        elif not current and oldest_old is None:
            oldest_old = pod
        else:
            excess.append(pod["metadata"]["name"])
    if newest is not None and oldest_old is not None:
        min_ready = int(ds["spec"].get("minReadySeconds") or 0)
        if not is_pod_ready(oldest_old) or is_pod_available(newest, min_ready, ctx.clock.now()):
            excess.append(oldest_old["metadata"]["name"])
    return excess


async def sync_nodes(
    ctx: DaemonContext, ds: Object, pods_to_delete: list[str], nodes_needing_pods: list[str], hash_: str
) -> None:
    """Create a pod on each node of ``nodes_needing_pods`` (slow-start batches 1, 2, 4...) and
    delete ``pods_to_delete``, at most ``burst_replicas`` of each, under expectations."""
    key = meta_namespace_key(ds)
    create_diff = min(len(nodes_needing_pods), ctx.burst_replicas)
    delete_diff = min(len(pods_to_delete), ctx.burst_replicas)
    ctx.expectations.set_expectations(key, create_diff, delete_diff)
    template = create_pod_template(ds["spec"].get("template") or {}, template_generation(ds), hash_)
    namespace = ds["metadata"]["namespace"]
    ref = ctx.controller_ref(ds)
    errors: list[Exception] = []

    async def create(node: str) -> None:
        pod_template = dict(template)
        pod_template["spec"] = dict(template["spec"])
        pod_template["spec"]["affinity"] = replace_node_name_affinity(template["spec"].get("affinity"), node)
        try:
            await ctx.pod_control.create_pod(namespace, pod_template, ds, ref)
        except Exception as err:
            ctx.expectations.creation_observed(key)
            if not namespace_terminating(err):
                errors.append(err)

    pos, batch = 0, min(create_diff, SLOW_START_INITIAL_BATCH)
    while pos < create_diff:
        failed_before = len(errors)
        await asyncio.gather(*(create(n) for n in nodes_needing_pods[pos : pos + batch]))
        skipped = create_diff - (pos + batch)
        if len(errors) > failed_before and skipped > 0:
            ctx.expectations.lower_expectations(key, skipped, 0)  # retried by a later sync
            break
        pos, batch = pos + batch, min(2 * batch, create_diff - (pos + batch))

    async def delete(name: str) -> None:
        try:
            await ctx.pod_control.delete_pod(namespace, name, ds)
        except Exception as err:
            ctx.expectations.deletion_observed(key)
            if not (isinstance(err, ApiError) and err.code == 404):
                errors.append(err)

    await asyncio.gather(*(delete(n) for n in pods_to_delete[:delete_diff]))
    if errors:
        raise errors[0]
