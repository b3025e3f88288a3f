"""Pod writes with events (upstream's ``RealPodControl``) and ``slow_start_batch``.

``create_pod`` posts a pod built from a template with ``generateName: <owner>-`` and a
controller reference, and records ``SuccessfulCreate``/``FailedCreate``; ``delete_pod``
records ``SuccessfulDelete``/``FailedDelete``. Both raise the ``ApiError`` after recording.
"""

from __future__ import annotations

import asyncio
import copy
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from minikube_py.api.errors import ApiError
from minikube_py.api.unstructured import Object
from minikube_py.client.interfaces import Client
from minikube_py.client.resourcetypes import PODS
from minikube_py.events import Recorder

NORMAL = "Normal"
WARNING = "Warning"


def get_pod_from_template(
    template: Mapping[str, Any],
    parent: Object,
    controller_ref: Mapping[str, Any],
    generate_name: str | None = None,
) -> Object:
    """The pod a controller creates: the template's labels, annotations, finalizers and spec,
    named ``<parent>-<random>`` unless ``generate_name`` says otherwise (an Indexed Job's
    ``<job>-<index>-``)."""
    meta = template.get("metadata") or {}
    pod_meta: dict[str, Any] = {
        "generateName": generate_name or f"{parent['metadata']['name']}-",
        "labels": dict(meta.get("labels") or {}),
        "ownerReferences": [dict(controller_ref)],
    }
    if meta.get("annotations"):
        pod_meta["annotations"] = dict(meta["annotations"])
    if meta.get("finalizers"):
        pod_meta["finalizers"] = list(meta["finalizers"])
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": pod_meta,
        "spec": copy.deepcopy(template.get("spec") or {}),
    }


class PodControl:
    """Creates and deletes pods for a controller, recording events on the controller object."""

    def __init__(self, client: Client, recorder: Recorder) -> None:
        self._client = client
        self._recorder = recorder

    async def create_pod(
        self,
        namespace: str,
        template: Mapping[str, Any],
        parent: Object,
        controller_ref: Mapping[str, Any],
        generate_name: str | None = None,
    ) -> Object:
        pod = get_pod_from_template(template, parent, controller_ref, generate_name)
        if not pod["metadata"]["labels"]:
            raise ApiError(400, "BadRequest", "unable to create pods, no labels")
        try:
            created = await self._client.resource(PODS, namespace).create(pod)
        except ApiError as err:
            if not namespace_terminating(err):
                self._recorder.event(parent, WARNING, "FailedCreate", f"Error creating: {err}")
            raise
        self._recorder.event(
            parent, NORMAL, "SuccessfulCreate", f"Created pod: {created['metadata']['name']}"
        )
        return created

    async def delete_pod(self, namespace: str, name: str, parent: Object) -> None:
        try:
            await self._client.resource(PODS, namespace).delete(name)
        except ApiError as err:
            if err.code != 404:
                self._recorder.event(parent, WARNING, "FailedDelete", f"Error deleting: {err}")
            raise
        self._recorder.event(parent, NORMAL, "SuccessfulDelete", f"Deleted pod: {name}")


def namespace_terminating(err: BaseException) -> bool:
    """The create was refused because the namespace is being deleted (cause NamespaceTerminating)."""
    if not isinstance(err, ApiError):
        return False
    return err.code == 403 and any(c.reason == "NamespaceTerminating" for c in err.causes)


async def slow_start_batch(
    count: int, initial_batch_size: int, fn: Callable[[], Awaitable[None]]
) -> tuple[int, Exception | None]:
    """Call ``fn`` ``count`` times in concurrent batches of 1, 2, 4, ... (starting at
    ``initial_batch_size``); stop after the first batch with a failure. Returns the number of
    successful calls and the first error (None when all succeeded)."""
    remaining, successes = count, 0
    batch = min(remaining, initial_batch_size)
    while batch > 0:
        results = await asyncio.gather(*(fn() for _ in range(batch)), return_exceptions=True)
        errors = [r for r in results if isinstance(r, BaseException)]
        successes += batch - len(errors)
        if errors:
            first = errors[0]
            if not isinstance(first, Exception):
                raise first
            return successes, first
        remaining -= batch
        batch = min(2 * batch, remaining)
    return successes, None
