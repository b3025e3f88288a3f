"""The pods of one StatefulSet toward its spec (upstream's ``updateStatefulSet``).

Members in range (``start .. start+replicas-1``) are processed in ordinal order: a failed or
succeeded member is deleted (recreated next sync), a missing one is created with its claims
(after the claims of an earlier pod of the same name are gone), a Pending one gets its missing
claims, and one whose identity or claim owners drifted is fixed. Under ``OrderedReady``
(monotonic) the walk stops at the first member that was just created, is terminating, or is
not Running, Ready and available; under ``Parallel`` every member is handled at once.
Members out of range (condemned) are then deleted, highest ordinal first, one at a time and
only when every other member is healthy under ``OrderedReady``. Last, ``RollingUpdate``
deletes members at or above ``partition`` whose revision is not the update revision, highest
first, one at a time (``maxUnavailable`` at a time when set); ``OnDelete`` leaves them.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any

from controllers.deployment.util.deployments import scaled_value
from controllers.statefulset import identity as ident
from controllers.statefulset.revisiondata import Revisions, apply_revision
from controllers.statefulset.statefulpods import StatefulPodControl
from controllers.statefulset.status import replica_counts
from minikube_py.api.errors import ApiError
from minikube_py.api.unstructured import Object

MAX_BATCH_SIZE = 500


@dataclass
class UpdateContext:
    pod_control: StatefulPodControl
    now: float


def new_versioned_pod(current_set: Object, update_set: Object, revisions: Revisions, ordinal: int) -> Object:
    """A new member at the current revision when the rollout has not reached its ordinal
    (below the partition, or below the current replica count when RollingUpdate has no
    parameters), else at the update revision."""
    strategy = current_set["spec"].get("updateStrategy") or {}
    if strategy.get("type", "RollingUpdate") == "RollingUpdate":
        rolling = strategy.get("rollingUpdate")
        start = ident.start_ordinal(current_set)
        if rolling is None:
            below = ordinal < start + int((current_set.get("status") or {}).get("currentReplicas") or 0)
        else:
            below = ordinal < start + int(rolling.get("partition") or 0)
        if below:
            pod = ident.new_stateful_set_pod(current_set, ordinal)
            ident.set_pod_revision(pod, revisions.current["metadata"]["name"])
            return pod
    pod = ident.new_stateful_set_pod(update_set, ordinal)
    ident.set_pod_revision(pod, revisions.update["metadata"]["name"])
    return pod


def max_unavailable(sts: Object, replicas: int) -> int:
    """``rollingUpdate.maxUnavailable`` against ``replicas`` (rounded down, at least 1)."""
    value = ((sts["spec"].get("updateStrategy") or {}).get("rollingUpdate") or {}).get("maxUnavailable", 1)
    return max(1, scaled_value(value, replicas, round_up=False))


async def slow_start_batch(count: int, fn: Callable[[int], Awaitable[Any]]) -> None:
    """Call ``fn(0..count-1)`` in concurrent batches of 1, 2, 4, ... (at most 500); stop after
    the first batch with a failure and raise its first error."""
    done, batch = 0, min(count, 1)
    while batch > 0:
        results = await asyncio.gather(*(fn(done + k) for k in range(batch)), return_exceptions=True)
        errors = [r for r in results if isinstance(r, BaseException)]
        if errors:
            raise errors[0]
        done += batch
        batch = min(2 * batch, count - done, MAX_BATCH_SIZE)


async def run_for_all(
    pods: Sequence[Object],
    fn: Callable[[int], Awaitable[bool]],
    monotonic: bool,
    settled: Callable[[Object], bool] = lambda pod: False,
) -> bool:
    """True when the walk must stop here (monotonic: the first ``fn`` that says so). In
    parallel, pods ``settled`` says ``fn`` would leave alone get no task of their own."""
    if monotonic:
        for i in range(len(pods)):
            if await fn(i):
                return True
        return False
    todo = [i for i, pod in enumerate(pods) if not settled(pod)]
    await slow_start_batch(len(todo), lambda k: fn(todo[k]))
    return False


class SetUpdate:
    """One pass over one set's pods; ``status`` holds the counts after it."""

    def __init__(self, ctx: UpdateContext, sts: Object, revisions: Revisions, pods: Sequence[Object]) -> None:
        self.ctx = ctx
        self.sts = sts
        self.revisions = revisions
        self.current_set = apply_revision(sts, revisions.current)
        self.update_set = apply_revision(sts, revisions.update)
        self.min_ready = int(sts["spec"].get("minReadySeconds") or 0)
        self.monotonic: bool = sts["spec"].get("podManagementPolicy") != "Parallel"
        start = ident.start_ordinal(sts)
        count = int(sts["spec"].get("replicas", 1))
        found: dict[int, Object] = {}
        self.condemned: list[Object] = []
        for pod in pods:
            if ident.in_ordinal_range(pod, sts):
                found[ident.ordinal_of(pod)] = pod
            elif ident.ordinal_of(pod) >= 0:
                self.condemned.append(pod)
        self.replicas = [
            found.get(o) or new_versioned_pod(self.current_set, self.update_set, revisions, o)
            for o in range(start, start + count)
        ]
        self.condemned.sort(key=ident.ordinal_of, reverse=True)
        unavailable = [p for p in self.replicas if self._unavailable(p)]
        unavailable += [p for p in reversed(self.condemned) if self._unavailable(p)]
        self.first_unavailable = unavailable[0] if unavailable else None
        self.status = self._status(pods)

    def _unavailable(self, pod: Object) -> bool:
        return ident.is_unavailable(pod, self.min_ready, self.ctx.now)

    def _status(self, pods: Sequence[Object]) -> dict[str, Any]:
        status: dict[str, Any] = {
            "observedGeneration": self.sts["metadata"].get("generation"),
            "currentRevision": self.revisions.current["metadata"]["name"],
            "updateRevision": self.revisions.update["metadata"]["name"],
            "collisionCount": self.revisions.collision_count,
        }
        status.update(replica_counts(pods, self.min_ready, self.ctx.now, self.revisions))
        return status

    def _recount(self) -> None:
        counts = replica_counts(
            [*self.replicas, *self.condemned], self.min_ready, self.ctx.now, self.revisions
        )
        self.status.update(counts)

    async def run(self) -> dict[str, Any]:
        """Create, fix and delete pods; raise the first write error (the status is still valid)."""
        await self._run()
        return self.status

    async def _run(self) -> None:
        if self.sts["metadata"].get("deletionTimestamp"):
            return
        try:
            stop = await run_for_all(self.replicas, self._process_replica, self.monotonic, self._settled)
            if not stop:
                stop = await run_for_all(self.condemned, self._fix_condemned_claims, self.monotonic)
            if not stop:
                stop = await run_for_all(self.condemned, self._process_condemned, self.monotonic)
        finally:
            self._recount()
        if stop:
            return
        strategy = self.sts["spec"].get("updateStrategy") or {}
        if strategy.get("type", "RollingUpdate") == "OnDelete":
            return
        await self._rolling_update(strategy.get("rollingUpdate") or {})

    def _settled(self, pod: Object) -> bool:
        """A running member ``_process_replica`` would not touch (Parallel skips it)."""
        if not ident.is_created(pod) or ident.is_pending(pod) or ident.is_failed_or_succeeded(pod):
            return False
        pc = self.ctx.pod_control
        return (
            ident.identity_matches(self.sts, pod)
            and ident.storage_matches(self.sts, pod)
            and pc.claims_match_retention_policy(self.update_set, pod)
        )

    async def _process_replica(self, i: int) -> bool:
        pod, pc = self.replicas[i], self.ctx.pod_control
        if ident.is_failed_or_succeeded(pod):
            if not ident.is_terminating(pod):
                await pc.delete_stateful_pod(self.sts, pod)
            return True
        if not ident.is_created(pod):
            if pc.claim_is_stale(self.sts, pod):
                return True
            await pc.create_stateful_pod(self.sts, pod)
            if self.monotonic:
                return True
        if ident.is_pending(pod):
            await pc.create_missing_claims(self.sts, pod)
        if self.monotonic and (
            ident.is_terminating(pod)
            or not ident.is_running_and_ready(pod)
            or not ident.is_running_and_available(pod, self.min_ready, self.ctx.now)
        ):
            return True
        if not ident.is_created(pod):
            return False
        if (
            ident.identity_matches(self.sts, pod)
            and ident.storage_matches(self.sts, pod)
            and pc.claims_match_retention_policy(self.update_set, pod)
        ):
            return False
        await pc.update_stateful_pod(self.update_set, pod)
        return False

    async def _fix_condemned_claims(self, i: int) -> bool:
        pc, pod = self.ctx.pod_control, self.condemned[i]
        if not pc.claims_match_retention_policy(self.update_set, pod):
            await pc.update_claims_for_retention_policy(self.update_set, pod)
        return False

    async def _process_condemned(self, i: int) -> bool:
        pod = self.condemned[i]
        if ident.is_terminating(pod):
            return self.monotonic
        healthy = ident.is_running_and_available(pod, self.min_ready, self.ctx.now)
        if self.monotonic and pod is not self.first_unavailable and not healthy:
            return True  # only the first unavailable member may go while it is unhealthy
        await self.ctx.pod_control.delete_stateful_pod(self.sts, pod)
        return True

    async def _delete_for_update(self, pod: Object) -> None:
        try:
            await self.ctx.pod_control.delete_stateful_pod(self.sts, pod)
        except ApiError as err:
            if err.code != 404:
                raise
        self.status["currentReplicas"] = self.status.get("currentReplicas", 0) - 1

    async def _rolling_update(self, rolling: dict[str, Any]) -> None:
        update_name = self.revisions.update["metadata"]["name"]
        update_min = int(rolling.get("partition") or 0)
        if "maxUnavailable" not in rolling:
            for target in range(len(self.replicas) - 1, update_min - 1, -1):
                pod = self.replicas[target]
                if ident.pod_revision(pod) != update_name and not ident.is_terminating(pod):
                    await self._delete_for_update(pod)
                    return
                if self._unavailable(pod):
                    return
            return
        allowed = max_unavailable(self.sts, len(self.replicas))
        unavailable = sum(1 for p in self.replicas if self._unavailable(p))
        budget = allowed - unavailable
        for target in range(len(self.replicas) - 1, update_min - 1, -1):
            if budget <= 0:
                return
            pod = self.replicas[target]
            if ident.pod_revision(pod) != update_name and not ident.is_terminating(pod):
                await self._delete_for_update(pod)
                budget -= 1
