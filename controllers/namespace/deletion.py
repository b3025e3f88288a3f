"""Deleting everything in a terminating namespace (upstream's ``NamespacedResourcesDeleter``).

``delete(name)``: re-read the namespace; if it is being deleted, make sure its phase is
Terminating, delete every instance of every namespaced type that supports ``list`` and
``delete`` (each with Background propagation, so the garbage collector never adds an
``orphan`` finalizer), record the outcome as the five deletion conditions, and, once nothing
is left, remove the ``kubernetes`` finalizer through ``namespaces/{name}/finalize`` (the
apiserver then removes the namespace). While content remains it raises
``ResourcesRemainingError`` with an estimate in seconds (the longest pod grace period still
running, or 15 s for objects held by finalizers).
"""

from __future__ import annotations

import copy
import logging
from collections.abc import Awaitable, Callable

from controllers.namespace.conditions import ConditionUpdater
from minikube_py.api.builtin import builtin_scheme
from minikube_py.api.errors import ApiError
from minikube_py.api.scheme import ResourceType
from minikube_py.api.timestamps import format_rfc3339, parse_rfc3339
from minikube_py.api.unstructured import Object
from minikube_py.client.interfaces import Client
from minikube_py.client.resourcetypes import NAMESPACES, PODS
from minikube_py.clock import Clock

log = logging.getLogger("namespace")

FINALIZER_KUBERNETES = "kubernetes"
FINALIZER_ESTIMATE_SECONDS = 15  # assumed time for finalizers on remaining items to finish
TERMINATING = "Terminating"


class ResourcesRemainingError(Exception):
    """Some content is still being removed; look again in about ``estimate`` seconds."""

    def __init__(self, estimate: int) -> None:
        super().__init__(
            f"some content remains in the namespace, estimate {estimate} seconds before it is removed"
        )
        self.estimate = estimate


class ContentDeletionError(Exception):
    """Deleting some content failed (the conditions say which); retried with backoff."""


def deletable_namespaced_resources() -> list[ResourceType]:
    """Every namespaced built-in type the deleter can list and delete."""
    return [rt for rt in builtin_scheme() if rt.namespaced and {"list", "delete"} <= set(rt.verbs)]


class NamespacedResourcesDeleter:
    def __init__(
        self, client: Client, clock: Clock, resource_types: list[ResourceType] | None = None
    ) -> None:
        self._client = client
        self._clock = clock
        self._namespaces = client.resource(NAMESPACES)
        self.resource_types = (
            resource_types if resource_types is not None else deletable_namespaced_resources()
        )

    async def delete(self, name: str) -> None:
        try:
            namespace = await self._namespaces.get(name)
        except ApiError as exc:
            if exc.code == 404:
                return
            raise
        if not namespace["metadata"].get("deletionTimestamp"):
            return
        try:
            namespace = await self._retry_on_conflict(namespace, self._update_namespace_status)
        except ApiError as exc:
            if exc.code == 404:
                return
            raise
        if not namespace["metadata"].get("deletionTimestamp"):
            return
        namespace, estimate = await self.delete_all_content(namespace)
        if estimate > 0:
            raise ResourcesRemainingError(estimate)
        try:
            await self._retry_on_conflict(namespace, self._finalize_namespace)
        except ApiError as exc:
            if exc.code != 404:  # another finalizer already finished the job
                raise

    async def _retry_on_conflict(
        self, namespace: Object, update: Callable[[Object], Awaitable[Object]]
    ) -> Object:
        latest = namespace
        while True:
            try:
                return await update(latest)
            except ApiError as exc:
                if exc.code != 409:
                    raise
            previous_uid = latest["metadata"].get("uid")
            latest = await self._namespaces.get(latest["metadata"]["name"])
            if latest["metadata"].get("uid") != previous_uid:
                raise RuntimeError("namespace uid has changed across retries")

    async def _update_namespace_status(self, namespace: Object) -> Object:
        if (namespace.get("status") or {}).get("phase") == TERMINATING:
            return namespace
        updated = copy.deepcopy(namespace)
        updated.setdefault("status", {})["phase"] = TERMINATING
        return await self._namespaces.update_status(updated)

    async def _finalize_namespace(self, namespace: Object) -> Object:
        finalizing = copy.deepcopy(namespace)
        finalizers = (finalizing.get("spec") or {}).get("finalizers") or []
        finalizing.setdefault("spec", {})["finalizers"] = sorted(
            {f for f in finalizers if f != FINALIZER_KUBERNETES}
        )
        return await self._namespaces.update(finalizing, subresource="finalize")

    # -- content ---------------------------------------------------------------------------

    async def delete_all_content(self, namespace: Object) -> tuple[Object, int]:
        """Delete what is left; returns the (maybe updated) namespace and the estimate."""
        name = namespace["metadata"]["name"]
        deleted_at = parse_rfc3339(namespace["metadata"].get("deletionTimestamp")) or self._clock.now()
        updater = ConditionUpdater(format_rfc3339(self._clock.now()))
        remaining: dict[str, int] = {}
        finalizers: dict[str, int] = {}
        errors: list[str] = []
        estimate = 0
        for rt in self.resource_types:
            try:
                rt_estimate, items = await self._delete_all_content_for(rt, name, deleted_at)
            except (ApiError, ContentDeletionError) as exc:
                errors.append(str(exc))
                updater.process_delete_content_error(str(exc))
                continue
            estimate = max(estimate, rt_estimate)
            if items:
                remaining[f"{rt.resource}.{rt.group}"] = len(items)
                for item in items:
                    for finalizer in item["metadata"].get("finalizers") or []:
                        finalizers[finalizer] = finalizers.get(finalizer, 0) + 1
        updater.process_content_totals(remaining, finalizers)
        updated = copy.deepcopy(namespace)
        if updater.update(updated.setdefault("status", {})):
            try:
                namespace = await self._namespaces.update_status(updated)
            except ApiError as exc:
                log.warning("couldn't update status condition for namespace %r: %s", name, exc)
        if errors:
            raise ContentDeletionError("; ".join(sorted(errors)))
        return namespace, estimate

    async def _delete_all_content_for(
        self, rt: ResourceType, namespace: str, deleted_at: float
    ) -> tuple[int, list[Object]]:
        """Delete each instance of ``rt``; returns the estimate and the items still there."""
        resource = self._client.resource(rt, namespace)
        estimate = await self._estimate_graceful_termination(rt, namespace, deleted_at)
        for item in (await resource.list())["items"]:
            try:
                await resource.delete(item["metadata"]["name"], propagation_policy="Background")
            except ApiError as exc:
                if exc.code not in (404, 405):
                    raise
        left: list[Object] = (await resource.list())["items"]
        if not left:
            return 0, []
        if estimate:
            return estimate, left
        if any(item["metadata"].get("finalizers") for item in left):
            return FINALIZER_ESTIMATE_SECONDS, left
        raise ContentDeletionError(
            f"unexpected items still remain in namespace: {namespace} for gvr: {rt.group}/{rt.version}, "
            f"Resource={rt.resource}"
        )

    async def _estimate_graceful_termination(
        self, rt: ResourceType, namespace: str, deleted_at: float
    ) -> int:
        """Pods: the longest grace period of a pod not yet finished, unless that much time has
        already passed since the namespace was deleted."""
        if (rt.group, rt.resource) != ("", "pods"):
            return 0
        estimate = 0
        for pod in (await self._client.resource(PODS, namespace).list())["items"]:
            if (pod.get("status") or {}).get("phase") in ("Succeeded", "Failed"):
                continue
            grace = (pod.get("spec") or {}).get("terminationGracePeriodSeconds")
            if isinstance(grace, int) and grace > estimate:
                estimate = grace
        if self._clock.now() - deleted_at >= estimate:
            return 0
        return estimate
