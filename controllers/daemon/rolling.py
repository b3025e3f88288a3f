"""RollingUpdate (upstream's ``rollingUpdate`` in update.go): which old pods to delete and on
which nodes to surge a new pod, leaving creation of missing pods to ``manage``.

Without surge: delete just enough old pods to keep the unavailable nodes at most
``maxUnavailable`` (an unavailable old pod is replaced at once, without counting against the
budget); ``manage`` then creates the new pods. With surge: a new pod is created next to an
old one (at once when the old one is unavailable, else at most ``maxSurge`` at a time), and
the old one is deleted when the new one is available. Deleted pods do not count as
unavailable, so an update progresses while nodes are down."""

from __future__ import annotations

from controllers.daemon.context import DaemonContext, PodsByNode
from controllers.daemon.manage import sync_nodes
from controllers.daemon.predicates import DaemonPlacement
from controllers.daemon.util import is_pod_updated, surge_count, template_generation, unavailable_count
from controllers.podcontrol.pods import is_pod_available
from minikube_py.api.unstructured import Object


def updated_desired_node_counts(
    ds: Object, nodes: list[Object], by_node: PodsByNode, placement: DaemonPlacement
) -> tuple[int, int, int]:
    """(max surge, max unavailable, desired nodes); every desired node gets an entry in
    ``by_node``. Both budgets 0 falls back to one unavailable, as upstream does."""
    desired = 0
    for node in nodes:
        if not placement.of(node).should_run:
            continue
        desired += 1
        by_node.setdefault(node["metadata"]["name"], [])
    max_unavailable = unavailable_count(ds, desired)
    max_surge = surge_count(ds, desired)
    if desired > 0 and max_unavailable == 0 and max_surge == 0:
        max_unavailable = 1
    return max_surge, max_unavailable, desired


def find_updated_pods_on_node(
    ds: Object, pods: list[Object], hash_: str
) -> tuple[Object | None, Object | None, bool]:
    """(new pod, old pod, ok) among the node's pods not being deleted; not ok when there are
    two of either kind (``manage`` prunes those first)."""
    new: Object | None = None
    old: Object | None = None
    generation = template_generation(ds)
    for pod in pods:
        if pod["metadata"].get("deletionTimestamp"):
            continue
        if is_pod_updated(pod, hash_, generation):
            if new is not None:
                return None, None, False
            new = pod
        else:
            if old is not None:
                return None, None, False
            old = pod
    return new, old, True


async def rolling_update(
    ctx: DaemonContext,
    ds: Object,
    nodes: list[Object],
    by_node: PodsByNode,
    placement: DaemonPlacement,
    hash_: str,
) -> None:
    by_node = {name: list(pods) for name, pods in by_node.items()}
    max_surge, max_unavailable, desired = updated_desired_node_counts(ds, nodes, by_node, placement)
    if max_surge == 0:
        await sync_nodes(ctx, ds, old_pods_to_delete(ctx, ds, by_node, hash_, max_unavailable), [], hash_)
        return
    to_delete, to_create = surge_plan(ctx, ds, nodes, by_node, hash_, max_surge, desired, placement)
    await sync_nodes(ctx, ds, to_delete, to_create, hash_)


def old_pods_to_delete(
    ctx: DaemonContext, ds: Object, by_node: PodsByNode, hash_: str, max_unavailable: int
) -> list[str]:
    min_ready, now = int(ds["spec"].get("minReadySeconds") or 0), ctx.clock.now()
    unavailable = 0
    replacements: list[str] = []
    candidates: list[str] = []
    for pods in by_node.values():
        new, old, ok = find_updated_pods_on_node(ds, pods, hash_)
        if not ok or (old is None) == (new is None):
            unavailable += 1  # manage creates or prunes here: count it as unavailable
        elif new is not None:
            if not is_pod_available(new, min_ready, now):
                unavailable += 1
        elif old is not None:
            if not is_pod_available(old, min_ready, now):
                replacements.append(old["metadata"]["name"])
                unavailable += 1
            elif unavailable < max_unavailable:
                candidates.append(old["metadata"]["name"])
    remaining = max(0, min(max_unavailable - unavailable, len(candidates)))
    return replacements + candidates[:remaining]


def surge_plan(
    ctx: DaemonContext,
    ds: Object,
    nodes: list[Object],
    by_node: PodsByNode,
    hash_: str,
    max_surge: int,
    desired: int,
    placement: DaemonPlacement,
) -> tuple[list[str], list[str]]:
    """(old pods to delete, nodes to create a new pod on)."""
    min_ready, now = int(ds["spec"].get("minReadySeconds") or 0), ctx.clock.now()
    node_objects = {n["metadata"]["name"]: n for n in nodes}
    to_delete: list[str] = []
    should_not_run: list[str] = []  # old pods on nodes the DaemonSet no longer wants
    candidates: list[str] = []
    allowed: list[str] = []
    surging = available = 0
    for node_name, pods in by_node.items():
        new, old, ok = find_updated_pods_on_node(ds, pods, hash_)
        if not ok:
            surging += 1
            continue
        counted = old if old is not None else new
        if counted is not None and is_pod_available(counted, min_ready, now):
            available += 1
        if old is None:
            continue
        if new is not None:
            if is_pod_available(new, min_ready, now):
                to_delete.append(old["metadata"]["name"])
            else:
                surging += 1
            continue
        node = node_objects.get(node_name)
        wanted = node is not None and placement.of(node).should_run
        if not is_pod_available(old, min_ready, now):
            if wanted:
                allowed.append(node_name)
            else:
                to_delete.append(old["metadata"]["name"])
        elif not wanted:
            should_not_run.append(old["metadata"]["name"])
        elif surging < max_surge:
            candidates.append(node_name)
    # keep 100% availability: a pod on a node no longer wanted goes only once another is up
    deletable = min(available - desired, len(should_not_run))
    if deletable > 0:
        to_delete += should_not_run[:deletable]
    remaining = max(0, min(max_surge - surging, len(candidates)))
    return to_delete, allowed + candidates[:remaining]
