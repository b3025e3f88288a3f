"""Mirror pods: the API's read-only view of a node's static pods (upstream ``mirror_client`` and
the mirror-pod part of ``syncPod`` and ``HandlePodCleanups``).

For every static pod the agent runs, ``MirrorPods`` keeps one pod in the API with the same
name, namespace, labels and spec, the static pod's annotations plus
``kubernetes.io/config.mirror: <hash>``, and the Node as its (controller) owner, as NodeRestriction
admission requires. The reconcile is level-triggered, on every change of either side and every
``resync`` seconds:

- a static pod without a current mirror gets one (created, or recreated after a delete);
- a mirror pod being deleted (``kubectl delete``) or whose hash is not its static pod's (the
  manifest changed) is deleted with grace 0 and the uid as precondition, then recreated;
- a mirror pod of this node whose static pod is gone is deleted.

Mirror pods never run: the pod manager ignores them (``is_mirror_pod``) and the static pod's
status is written to its mirror (``mirror_of``); the mirror's uid is the API's, not the static
pod's. ``on_mirror(static_uid)`` is told when a static pod's mirror appears, so its status can
be written at once.
"""

from __future__ import annotations

import asyncio
import copy
import logging
from collections.abc import Callable

from minikube_py.api.errors import ApiError
from minikube_py.api.unstructured import Object
from minikube_py.cache.informer import EventHandlerFuncs
from minikube_py.cache.store import DeletedFinalStateUnknown
from minikube_py.client.interfaces import Client
from minikube_py.client.resourcetypes import NODES, PODS
from minikube_py.clock import Clock

log = logging.getLogger("nodeagent.mirror")

CONFIG_SOURCE = "kubernetes.io/config.source"
CONFIG_HASH = "kubernetes.io/config.hash"
CONFIG_SEEN = "kubernetes.io/config.seen"
CONFIG_MIRROR = "kubernetes.io/config.mirror"
FILE_SOURCE = "file"
RESYNC = 10.0


def _annotations(pod: Object) -> dict[str, str]:
    return dict((pod.get("metadata") or {}).get("annotations") or {})


def is_mirror_pod(pod: Object) -> bool:
    return CONFIG_MIRROR in _annotations(pod)


def is_static_pod(pod: Object) -> bool:
    """A pod from a source other than the API (upstream: ``config.source`` is not ``api``)."""
    return _annotations(pod).get(CONFIG_SOURCE, "api") != "api"


def full_name(pod: Object) -> str:
    meta = pod["metadata"]
    return f"{meta.get('namespace') or 'default'}/{meta['name']}"


def mirror_pod(static: Object, node_uid: str) -> Object:
    """The mirror of ``static``: its metadata and spec, the mirror hash, the Node as owner."""
    meta = static["metadata"]
    annotations = {**_annotations(static), CONFIG_MIRROR: _annotations(static).get(CONFIG_HASH, "")}
    mirror_meta: Object = {
        "name": meta["name"],
        "namespace": meta.get("namespace") or "default",
        "annotations": annotations,
        "ownerReferences": [
            {
                "apiVersion": "v1",
                "kind": "Node",
                "name": static["spec"]["nodeName"],
                "uid": node_uid,
                "controller": True,
            }
        ],
    }
    if meta.get("labels"):
        mirror_meta["labels"] = dict(meta["labels"])
    return {"apiVersion": "v1", "kind": "Pod", "metadata": mirror_meta, "spec": copy.deepcopy(static["spec"])}


class MirrorPods:
    def __init__(
        self,
        client: Client,
        node_name: str,
        clock: Clock,
        *,
        on_mirror: Callable[[str], None] | None = None,
        resync: float = RESYNC,
    ) -> None:
        self.client, self.node_name, self.clock, self.resync = client, node_name, clock, resync
        self.on_mirror = on_mirror or (lambda _uid: None)
        self._static: dict[str, Object] = {}  # full name -> static pod
        self._mirrors: dict[str, Object] = {}  # full name -> mirror pod, as the informer has it
        self._node_uid = ""
        self._wakeup = asyncio.Event()

    def set_static_pod(self, pod: Object) -> None:
        self._static[full_name(pod)] = pod
        self._wakeup.set()

    def remove_static_pod(self, pod: Object) -> None:
        name = full_name(pod)
        if (self._static.get(name) or {}).get("metadata", {}).get("uid") == pod["metadata"]["uid"]:
            del self._static[name]
        self._wakeup.set()

    def mirror_of(self, static: Object) -> Object | None:
        """The API's current mirror of ``static``; None while it has none (or a stale one)."""
        mirror = self._mirrors.get(full_name(static))
        return mirror if mirror is not None and self._is_mirror_of(mirror, static) else None

    def handlers(self) -> EventHandlerFuncs:
        """Informer handlers: the mirror pods of this node, as the API has them."""
        return EventHandlerFuncs(add=self._seen, update=lambda _old, new: self._seen(new), delete=self._gone)

    async def run(self) -> None:
        """Reconcile on every change and every ``resync`` seconds, until cancelled."""
        while True:
            self._wakeup.clear()
            try:
                await self.reconcile()
            except Exception:
                log.exception("reconciling the mirror pods of %s failed", self.node_name)
            sleeper = asyncio.ensure_future(self.clock.sleep(self.resync))
            woken = asyncio.ensure_future(self._wakeup.wait())
            try:
                await asyncio.wait({sleeper, woken}, return_when=asyncio.FIRST_COMPLETED)
            finally:
                sleeper.cancel()
                woken.cancel()

    async def reconcile(self) -> None:
        """One pass: create, replace and delete mirror pods until they match the static pods."""
        for name, mirror in list(self._mirrors.items()):
            static = self._static.get(name)
            if static is None or not self._is_mirror_of(mirror, static):
                await self._delete(mirror)
        for name, static in list(self._static.items()):
            current = self._mirrors.get(name)
            if current is None or not self._is_mirror_of(current, static):
                await self._create(static)

    def _is_mirror_of(self, mirror: Object, static: Object) -> bool:
        deleting = mirror["metadata"].get("deletionTimestamp")
        return not deleting and _annotations(mirror)[CONFIG_MIRROR] == _annotations(static).get(CONFIG_HASH)

    def _seen(self, pod: Object) -> None:
        if not is_mirror_pod(pod) or (pod.get("spec") or {}).get("nodeName") != self.node_name:
            return
        name = full_name(pod)
        self._mirrors[name] = pod
        static = self._static.get(name)
        if static is not None and self._is_mirror_of(pod, static):
            self.on_mirror(static["metadata"]["uid"])
        self._wakeup.set()

    def _gone(self, obj: Object | DeletedFinalStateUnknown) -> None:
        pod = obj.obj if isinstance(obj, DeletedFinalStateUnknown) else obj
        name = full_name(pod)
        if (self._mirrors.get(name) or {}).get("metadata", {}).get("uid") == pod["metadata"]["uid"]:
            del self._mirrors[name]
            self._wakeup.set()

    async def _create(self, static: Object) -> None:
        try:
            if not self._node_uid:  # the owner; the Node may not be registered yet
                self._node_uid = (await self.client.resource(NODES).get(self.node_name))["metadata"]["uid"]
            body = mirror_pod(static, self._node_uid)
            created = await self.client.resource(PODS, body["metadata"]["namespace"]).create(body)
        except ApiError as err:
            if err.code != 409:  # exists: the informer brings it, the next pass judges it
                log.warning("cannot create the mirror pod %s: %s", full_name(static), err)
            return
        log.info("created the mirror pod %s", full_name(static))
        self._seen(created)

    async def _delete(self, mirror: Object) -> None:
        meta = mirror["metadata"]
        try:
            await self.client.resource(PODS, meta["namespace"]).delete(
                meta["name"], grace_period_seconds=0, preconditions={"uid": meta["uid"]}
            )
        except ApiError as err:
            if err.code not in (404, 409):
                log.warning("cannot delete the mirror pod %s: %s", full_name(mirror), err)
                return
        log.info("deleted the mirror pod %s", full_name(mirror))
        if self._mirrors.get(full_name(mirror)) is mirror:
            del self._mirrors[full_name(mirror)]
