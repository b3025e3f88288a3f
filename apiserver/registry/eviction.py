"""``pods/eviction`` (upstream's ``EvictionREST.Create``): a pod delete that PodDisruptionBudgets
may refuse.

1. A pod that can disrupt nothing more (terminal, pending, already deleting) is deleted at once;
   a pending one only at the resourceVersion read, so it cannot turn ready meanwhile. Conflicts
   retry, unless the caller gave its own resourceVersion precondition.
2. Otherwise the budgets covering the pod decide (``disruptionbudgets``): none, delete; more than
   one, a 500; a not-ready pod the budget can spare is deleted at the resourceVersion read (a
   conflict is a 429: it may have turned ready); else one disruption is spent first.
3. The pod gets the ``DisruptionTarget`` condition (``EvictionByEvictionAPI``) and is deleted
   with the eviction's delete options (dry run, preconditions, grace period).
"""

from __future__ import annotations

import asyncio
import dataclasses

from apiserver.registry import disruptionbudgets as budgets
from apiserver.registry.deletion import DeleteOptions
from apiserver.registry.store import GenericStore
from apiserver.storage.interface import Preconditions
from minikube_py.api import errors
from minikube_py.api.timestamps import now_rfc3339
from minikube_py.api.unstructured import Object

DISRUPTION_TARGET = {
    "type": "DisruptionTarget",
    "status": "True",
    "reason": "EvictionByEvictionAPI",
    "message": "Eviction API: evicting",
}


class EvictionREST:
    """Evicts pods of ``pods``, spending the budgets of ``pdbs`` (None: budgets are not served)."""

    def __init__(self, pods: GenericStore, pdbs: GenericStore | None) -> None:
        self.pods = pods
        self.pdbs = pdbs

    async def evict(self, namespace: str, name: str, options: DeleteOptions) -> Object | None:
        """Evict the pod; None on success, or the failure ``Status`` upstream answers with."""
        pod = await self._delete_if_budgets_ignored(namespace, name, options)
        if pod is None:
            return None
        found = await budgets.budgets_for(self.pdbs, pod) if self.pdbs is not None else []
        if len(found) > 1:
            return {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
                    "message": budgets.MULTIPLE_BUDGETS, "code": 500}  # fmt: skip
        at_read_version = False
        if found and self.pdbs is not None:
            budget = found[0]
            at_read_version = budgets.skips_budget(budget, pod)
            if not at_read_version:
                await budgets.check_and_decrement(self.pdbs, budget, name, options.dry_run)
        delete = _at_version(options, pod) if at_read_version else options
        try:
            await self._add_condition_and_delete(namespace, name, delete)
        except errors.ApiError as err:
            if err.code == 409 and at_read_version and not _has_version(options):
                raise budgets.still_processing(found[0]["metadata"]["name"]) from err
            raise
        return None

    async def _delete_if_budgets_ignored(
        self, namespace: str, name: str, options: DeleteOptions
    ) -> Object | None:
        """Step 1; the pod (as read) when the budgets must decide, None once it was deleted."""
        for attempt in range(budgets.RETRY_STEPS):
            pod = await self.pods.get(namespace, name)
            if not budgets.can_ignore_budgets(pod):
                return pod
            delete = options
            if budgets.enforces_resource_version(pod) and not _has_version(options):
                delete = _at_version(options, pod)
            try:
                await self._add_condition_and_delete(namespace, name, delete)
                return None
            except errors.ApiError as err:
                if err.code != 409 or _has_version(options) or attempt == budgets.RETRY_STEPS - 1:
                    raise
            await asyncio.sleep(budgets.RETRY_INTERVAL)
        raise AssertionError("unreachable")

    async def _add_condition_and_delete(self, namespace: str, name: str, options: DeleteOptions) -> None:
        """Upstream's ``addConditionAndDeletePod``: the condition through a status update that
        honours the preconditions, then the delete (at the new resourceVersion, if one was set)."""
        if not options.dry_run:
            pre = options.preconditions

            def add_condition(pod: Object) -> Object:
                _check_preconditions(pre, pod, name)
                _set_condition(pod)
                return pod

            updated = await self.pods.update(namespace, name, add_condition, subresource="status")
            if _has_version(options):
                options = _at_version(options, updated)
        await self.pods.delete(namespace, name, options)


def _has_version(options: DeleteOptions) -> bool:
    return options.preconditions is not None and options.preconditions.resource_version is not None


def _at_version(options: DeleteOptions, pod: Object) -> DeleteOptions:
    uid = options.preconditions.uid if options.preconditions else None
    return dataclasses.replace(options, preconditions=Preconditions(uid, pod["metadata"]["resourceVersion"]))


def _check_preconditions(pre: Preconditions | None, pod: Object, name: str) -> None:
    meta = pod["metadata"]
    if pre is None:
        return
    if pre.uid and pre.uid != meta.get("uid"):
        why = (
            f"the UID in the precondition ({pre.uid}) does not match the UID in record ({meta.get('uid')}). "
            "The object might have been deleted and then recreated"
        )
        raise errors.conflict("Pod", name, "", why)
    if pre.resource_version and pre.resource_version != meta.get("resourceVersion"):
        why = (
            f"the ResourceVersion in the precondition ({pre.resource_version}) does not match the "
            f"ResourceVersion in record ({meta.get('resourceVersion')}). The object might have been modified"
        )
        raise errors.conflict("Pod", name, "", why)


def _set_condition(pod: Object) -> None:
    """Upstream's ``UpdatePodCondition``: the transition time moves only with the status."""
    conditions = pod.setdefault("status", {}).setdefault("conditions", [])
    for condition in conditions:
        if condition.get("type") == DISRUPTION_TARGET["type"]:
            if condition.get("status") != DISRUPTION_TARGET["status"]:
                condition["lastTransitionTime"] = now_rfc3339()
            condition.update(DISRUPTION_TARGET)
            return
    conditions.append({**DISRUPTION_TARGET, "lastTransitionTime": now_rfc3339()})
