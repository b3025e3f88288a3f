"""``DeploymentController`` (upstream's pkg/controller/deployment).

Handlers only map a Deployment, ReplicaSet or Pod event to the Deployment key and enqueue it.
``sync`` (upstream's ``syncDeployment``) is a ladder, one module per branch: deleted -> status
only; paused -> ``sync`` (scale, no rollout); scaling event -> ``sync``; otherwise
``rollout_recreate`` or ``rollout_rolling``.

The ReplicaSet and Pod informers carry the ``controller-uid`` index: a ReplicaSet event finds
its Deployment by owner reference, and a Deployment finds its pods through its ReplicaSets'
uids, so no handler scans every object.
"""

from __future__ import annotations

import copy
import logging
from typing import Any

from controllers.deployment.context import SyncContext
from controllers.deployment.progress import check_paused_conditions
from controllers.deployment.recreate import rollout_recreate
from controllers.deployment.rolling import rollout_rolling
from controllers.deployment.sync import is_scaling_event, sync, sync_status_only
from controllers.deployment.util import deployments as du
from controllers.deployment.writes import update_deployment_status
from controllers.podcontrol.controllerref import objects_selecting, resolve_controller_ref
from controllers.podcontrol.ownerrefs import (
    CONTROLLER_UID_INDEX,
    add_controller_uid_index,
    get_controller_of,
    objects_for_owner,
)
from controllers.podcontrol.refmanager import ControllerRefManager, recheck_owner
from minikube_py.api.labels import label_selector_as_selector
from minikube_py.api.replicas import invalid_replicas_message, spec_replicas
from minikube_py.api.unstructured import Object
from minikube_py.cache.factory import SharedInformerFactory
from minikube_py.cache.informer import EventHandlerFuncs
from minikube_py.cache.store import NAMESPACE_INDEX, DeletedFinalStateUnknown, final_state, meta_namespace_key
from minikube_py.client.interfaces import Client
from minikube_py.client.resourcetypes import DEPLOYMENTS, PODS, REPLICASETS
from minikube_py.clock import Clock, RealClock
from minikube_py.controller import run_workers
from minikube_py.events import Recorder
from minikube_py.workqueue import RateLimitingQueue

API_VERSION = "apps/v1"
KIND = "Deployment"


log = logging.getLogger("deployment")


class DeploymentController:
    name = "deployment"

    def __init__(
        self,
        client: Client,
        factory: SharedInformerFactory,
        recorder: Recorder,
        *,
        clock: Clock | None = None,
        burst_replicas: int = 500,
    ) -> None:
        self.client = client
        self.recorder = recorder
        self.clock: Clock = clock or RealClock()
        self.queue: RateLimitingQueue[str] = RateLimitingQueue(clock=self.clock, name=self.name)
        self.d_informer = factory.informer(DEPLOYMENTS)
        self.rs_informer = factory.informer(REPLICASETS)
        self.pod_informer = factory.informer(PODS)
        add_controller_uid_index(self.rs_informer)
        add_controller_uid_index(self.pod_informer)
        self.d_informer.add_event_handler(
            EventHandlerFuncs(
                add=self._enqueue,
                update=lambda old, cur: self._enqueue(cur),
                delete=lambda obj: self._enqueue(final_state(obj)),
            )
        )
        self.rs_informer.add_event_handler(
            EventHandlerFuncs(add=self._add_rs, update=self._update_rs, delete=self._delete_rs)
        )
        self.pod_informer.add_event_handler(EventHandlerFuncs(delete=self._delete_pod))
        self.context = SyncContext(client, recorder, self.clock, self.queue, self.rs_informer.indexer)

    async def run(self, workers: int) -> None:
        synced = [self.d_informer.has_synced, self.rs_informer.has_synced, self.pod_informer.has_synced]
        await run_workers(self.name, self.queue, self.sync, workers, synced, clock=self.clock)

    # -- event handlers ------------------------------------------------------------------------

    def _enqueue(self, d: Object) -> None:
        self.queue.add(meta_namespace_key(d))

    def _resolve(self, namespace: str, ref: Any) -> Object | None:
        return resolve_controller_ref(self.d_informer.indexer, KIND, namespace, ref)

    def _deployments_selecting(self, rs: Object) -> list[Object]:
        return objects_selecting(self.d_informer.indexer, rs)

    def _add_rs(self, rs: Object) -> None:
        if rs["metadata"].get("deletionTimestamp"):
            self._delete_rs(rs)
            return
        ref = get_controller_of(rs)
        if ref is not None:
            if (d := self._resolve(rs["metadata"]["namespace"], ref)) is not None:
                self._enqueue(d)
            return
        for d in self._deployments_selecting(rs):
            self._enqueue(d)

    def _update_rs(self, old: Object, cur: Object) -> None:
        if old["metadata"].get("resourceVersion") == cur["metadata"].get("resourceVersion"):
            return
        namespace = cur["metadata"]["namespace"]
        old_ref, cur_ref = get_controller_of(old), get_controller_of(cur)
        ref_changed = old_ref != cur_ref
        if ref_changed and old_ref is not None and (d := self._resolve(namespace, old_ref)) is not None:
            self._enqueue(d)
        if cur_ref is not None:
            if (d := self._resolve(namespace, cur_ref)) is not None:
                self._enqueue(d)
            return
        if ref_changed or old["metadata"].get("labels") != cur["metadata"].get("labels"):
            for d in self._deployments_selecting(cur):
                self._enqueue(d)

    def _delete_rs(self, obj: Object | DeletedFinalStateUnknown) -> None:
        rs = final_state(obj)
        ref = get_controller_of(rs)
        if ref is not None and (d := self._resolve(rs["metadata"].get("namespace", ""), ref)) is not None:
            self._enqueue(d)

    def _delete_pod(self, obj: Object | DeletedFinalStateUnknown) -> None:
        """A Recreate rollout waits for old pods to go: sync once the last one is gone."""
        pod = final_state(obj)
        namespace = pod["metadata"].get("namespace", "")
        ref = get_controller_of(pod)
        if ref is None or ref.get("kind") != "ReplicaSet":
            return
        rs = self.rs_informer.indexer.get_by_key(f"{namespace}/{ref.get('name')}")
        if rs is None or rs["metadata"].get("uid") != ref.get("uid"):
            return
        rs_ref = get_controller_of(rs)
        d = self._resolve(namespace, rs_ref) if rs_ref is not None else None
        if d is None or du.strategy_type(d) != du.RECREATE:
            return
        siblings = self.rs_informer.indexer.by_index(CONTROLLER_UID_INDEX, d["metadata"]["uid"])
        if not any(
            self.pod_informer.indexer.index_keys(CONTROLLER_UID_INDEX, s["metadata"]["uid"]) for s in siblings
        ):
            self._enqueue(d)

    # -- sync ------------------------------------------------------------------------------------

    async def sync(self, key: str) -> None:
        await self.sync_deployment(key)

    async def sync_deployment(self, key: str) -> None:
        cached = self.d_informer.indexer.get_by_key(key)
        if cached is None:
            return
        d = copy.deepcopy(cached)
        if spec_replicas(d) is None:  # stored before the apiserver checked types: never act
            log.warning("deployment %s skipped: spec.replicas %r", key, d["spec"].get("replicas"))
            self.recorder.event(d, "Warning", "InvalidReplicas", invalid_replicas_message(d))
            return
        if not d["spec"].get("selector"):
            self.recorder.event(
                d,
                "Warning",
                "SelectingAll",
                "This deployment is selecting all pods. A non-empty selector is required.",
            )
            status = d.setdefault("status", {})
            if int(status.get("observedGeneration") or 0) < int(d["metadata"].get("generation") or 0):
                status["observedGeneration"] = d["metadata"]["generation"]
                await update_deployment_status(self.context, d)
            return
        rs_list = await self.get_replica_sets_for_deployment(d)
        absurd = [rs for rs in rs_list if spec_replicas(rs) is None]
        if absurd:  # its ReplicaSets' counts feed every scaling decision
            name = absurd[0]["metadata"]["name"]
            log.warning(
                "deployment %s skipped: replica set %s has spec.replicas %r",
                key,
                name,
                absurd[0]["spec"].get("replicas"),
            )
            self.recorder.event(
                d, "Warning", "InvalidReplicas", f"replica set {name}: {invalid_replicas_message(absurd[0])}"
            )
            return
        if d["metadata"].get("deletionTimestamp"):
            await sync_status_only(self.context, d, rs_list)
            return
        await check_paused_conditions(self.context, d)
        if d["spec"].get("paused") or await is_scaling_event(self.context, d, rs_list):
            await sync(self.context, d, rs_list)
            return
        if du.strategy_type(d) == du.RECREATE:
            await rollout_recreate(self.context, d, rs_list, self.get_pod_map_for_deployment(d, rs_list))
        else:
            await rollout_rolling(self.context, d, rs_list)

    async def get_replica_sets_for_deployment(self, d: Object) -> list[Object]:
        """Claim the namespace's ReplicaSets: keep, adopt or release by selector."""
        selector = label_selector_as_selector(d["spec"].get("selector"))
        candidates = self.rs_informer.indexer.by_index(NAMESPACE_INDEX, d["metadata"]["namespace"])
        manager = ControllerRefManager(
            self.client,
            d,
            API_VERSION,
            KIND,
            selector,
            REPLICASETS,
            recheck_owner(self.client, DEPLOYMENTS, d),
        )
        return await manager.claim(candidates)

    def get_pod_map_for_deployment(self, d: Object, rs_list: list[Object]) -> dict[str, list[Object]]:
        """Pods of each of ``rs_list`` (by ReplicaSet uid) that the deployment selects."""
        selector = label_selector_as_selector(d["spec"].get("selector"))
        return {
            rs["metadata"]["uid"]: [
                p
                for p in objects_for_owner(self.pod_informer, rs, include_orphans=False)
                if selector.matches(p["metadata"].get("labels") or {})
            ]
            for rs in rs_list
        }
