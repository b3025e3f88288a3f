"""``manage_replicas``: create or delete pods so a ReplicaSet has ``spec.replicas`` active pods.

Creates go in slow-start batches (1, 2, 4, ...), at most ``burst_replicas`` per sync; the first
failed batch stops the sync, and the creations that were never attempted or failed are removed
from the expectations so the next sync is not blocked. Deletes take the pods first in
``ranking`` order, all at once, each one expected by key.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from controllers.podcontrol.control import PodControl, namespace_terminating, slow_start_batch
from controllers.podcontrol.expectations import UIDTrackingExpectations
from controllers.podcontrol.ownerrefs import CONTROLLER_UID_INDEX, get_controller_of
from controllers.podcontrol.pods import filter_active_pods
from controllers.podcontrol.ranking import rank_pods_by_related_on_same_node, sort_pods_for_deletion
from minikube_py.api.errors import ApiError
from minikube_py.api.unstructured import Object
from minikube_py.cache.store import Indexer, meta_namespace_key
from minikube_py.clock import Clock

SLOW_START_INITIAL_BATCH_SIZE = 1


@dataclass(frozen=True, slots=True)
class ReplicasContext:
    """What ``manage_replicas`` uses of its controller, built once by it: ``pod_control``
    writes pods (with their Events), ``expectations`` records the writes the caches have not
    shown yet, ``controller_ref`` is the owner reference put on new pods, ``burst_replicas``
    caps the creates or deletes of one sync, ``clock`` ranks pods by age, and the
    ``replica_sets`` and ``pods`` caches (both with the controller-uid index) find the pods
    of sibling ReplicaSets (pods next to those are deleted first)."""

    pod_control: PodControl
    expectations: UIDTrackingExpectations
    controller_ref: Callable[[Object], dict[str, Any]]
    burst_replicas: int
    clock: Clock
    replica_sets: Indexer
    pods: Indexer


async def manage_replicas(ctx: ReplicasContext, pods: Sequence[Object], rs: Object) -> None:
    """Raise the first error of this sync (after recording what did happen)."""
    key = meta_namespace_key(rs)
    diff = len(pods) - int(rs["spec"].get("replicas", 1))
    if diff < 0:
        await _create(ctx, key, rs, min(-diff, ctx.burst_replicas))
    elif diff > 0:
        await _delete(ctx, key, rs, pods, min(diff, ctx.burst_replicas))


async def _create(ctx: ReplicasContext, key: str, rs: Object, count: int) -> None:
    ctx.expectations.expect_creations(key, count)
    namespace = rs["metadata"]["namespace"]
    ref = ctx.controller_ref(rs)

    async def create() -> None:
        try:
            await ctx.pod_control.create_pod(namespace, rs["spec"]["template"], rs, ref)
        except ApiError as err:
            if err.code == 504 or err.reason == "Timeout":
                return  # created, but its initialization timed out: the informer will see it
            raise

    successes, error = await slow_start_batch(count, SLOW_START_INITIAL_BATCH_SIZE, create)
    for _ in range(count - successes):
        ctx.expectations.creation_observed(key)
    if error is not None and not namespace_terminating(error):
        raise error  # in a terminating namespace every create fails: nothing to retry (upstream)


async def _delete(ctx: ReplicasContext, key: str, rs: Object, pods: Sequence[Object], count: int) -> None:
    related = related_pods(ctx, rs)
    victims = get_pods_to_delete(pods, related, count, ctx.clock.now())
    ctx.expectations.expect_deletions_of(key, [meta_namespace_key(p) for p in victims])
    namespace = rs["metadata"]["namespace"]

    async def delete(pod: Object) -> None:
        try:
            await ctx.pod_control.delete_pod(namespace, pod["metadata"]["name"], rs)
        except ApiError as err:
            ctx.expectations.deletion_observed_of(key, meta_namespace_key(pod))
            if err.code != 404:
                raise

    results = await asyncio.gather(*(delete(p) for p in victims), return_exceptions=True)
    for result in results:
        if isinstance(result, BaseException):
            raise result


def get_pods_to_delete(
    pods: Sequence[Object], related: Sequence[Object], count: int, now: float
) -> list[Object]:
    """The ``count`` pods to delete first; ranks count related pods on the same node."""
    if count >= len(pods):
        return list(pods)
    ranks = rank_pods_by_related_on_same_node(pods, related)
    return sort_pods_for_deletion(pods, ranks, now)[:count]


def related_pods(ctx: ReplicasContext, rs: Object) -> list[Object]:
    """Active pods of every ReplicaSet with the same controller as ``rs`` (or of ``rs`` alone)."""
    owner = get_controller_of(rs)
    siblings = [rs]
    if owner is not None:
        siblings = ctx.replica_sets.by_index(CONTROLLER_UID_INDEX, str(owner.get("uid", "")))
    pods: list[Object] = []
    for sibling in siblings:
        pods += ctx.pods.by_index(CONTROLLER_UID_INDEX, sibling["metadata"]["uid"])
    return filter_active_pods(pods)
