"""``HorizontalController`` (upstream's ``horizontal.go``): every HPA is reconciled once per sync
period (``--horizontal-pod-autoscaler-sync-period``, 15 s, on the controller's clock).

A reconcile reads the target's ``scale`` subresource (AbleToScale ``FailedGetScale`` when it
cannot), clamps a target outside [minReplicas, maxReplicas] into it, otherwise computes the
desired replicas from the metrics (``computing``), normalizes them (stabilization, rate limits:
``normalize``), writes the new ``spec.replicas`` through the scale subresource
(``SuccessfulRescale`` / ``FailedRescale``) and then the status: currentReplicas,
desiredReplicas, currentMetrics, lastScaleTime and the conditions. A target at 0 replicas is not
autoscaled (ScalingActive ``ScalingDisabled``).

Deviation: a new HPA is reconciled at once (upstream waits one sync period), so ``kubectl get
hpa`` shows a reading (or the reason there is none) right after ``kubectl autoscale``.
"""

from __future__ import annotations

import copy
import logging
from typing import Any

from controllers.podautoscaler.computing import ComputeError, MetricsComputer
from controllers.podautoscaler.conditions import set_condition
from controllers.podautoscaler.metrics import ResourceMetricsClient
from controllers.podautoscaler.normalize import History, normalize, normalize_with_behavior
from minikube_py.api.errors import ApiError
from minikube_py.api.scheme import ResourceType
from minikube_py.api.timestamps import format_rfc3339
from minikube_py.api.unstructured import Object
from minikube_py.cache.factory import SharedInformerFactory
from minikube_py.cache.informer import EventHandlerFuncs
from minikube_py.cache.store import NAMESPACE_INDEX, DeletedFinalStateUnknown, final_state, meta_namespace_key
from minikube_py.client.interfaces import Client
from minikube_py.client.resourcetypes import HORIZONTALPODAUTOSCALERS, PODS, resource_type_for_kind
from minikube_py.clock import Clock, RealClock
from minikube_py.controller import run_workers
from minikube_py.events import Recorder
from minikube_py.workqueue import RateLimitingQueue

log = logging.getLogger("horizontal-pod-autoscaler")

SYNC_PERIOD = 15.0  # --horizontal-pod-autoscaler-sync-period
CANNOT_GET_SCALE = "the HPA controller was unable to get the target's current scale: "


class ScaleTargetError(Exception):
    pass


def scale_target(ref: Object) -> ResourceType:
    """The resource of ``scaleTargetRef`` (upstream: the REST mapper); errors as upstream's."""
    api_version, kind = str(ref.get("apiVersion") or ""), str(ref.get("kind") or "")
    if api_version.count("/") > 1:
        raise ScaleTargetError(f"unexpected GroupVersion string: {api_version}")
    found = resource_type_for_kind(api_version, kind) if api_version else None
    if found is None:
        group = api_version.rpartition("/")[0] if "/" in api_version else ""
        raise ScaleTargetError(f'no matches for kind "{kind}" in group "{group}"')
    return found


class HorizontalController:
    name = "horizontal-pod-autoscaler"

    def __init__(
        self,
        client: Client,
        factory: SharedInformerFactory,
        recorder: Recorder,
        *,
        clock: Clock | None = None,
        sync_period: float = SYNC_PERIOD,
    ) -> None:
        self.client = client
        self.recorder = recorder
        self.clock: Clock = clock or RealClock()
        self.sync_period = sync_period
        self.queue: RateLimitingQueue[str] = RateLimitingQueue(clock=self.clock, name=self.name)
        self.hpa_informer = factory.informer(HORIZONTALPODAUTOSCALERS)
        self.pod_informer = factory.informer(PODS)
        self.computer = MetricsComputer(ResourceMetricsClient(client), recorder)
        self.histories: dict[str, History] = {}
        self.hpa_informer.add_event_handler(
            EventHandlerFuncs(add=self._add, update=self._update, delete=self._delete)
        )

    async def run(self, workers: int) -> None:
        synced = [self.hpa_informer.has_synced, self.pod_informer.has_synced]
        await run_workers(self.name, self.queue, self.sync, workers, synced, clock=self.clock)

    def _add(self, hpa: Object) -> None:
        self.queue.add(meta_namespace_key(hpa))

    def _update(self, old: Object, cur: Object) -> None:
        self.queue.add_after(meta_namespace_key(cur), self.sync_period)

    def _delete(self, obj: Object | DeletedFinalStateUnknown) -> None:
        hpa = final_state(obj)
        self.histories.pop(meta_namespace_key(hpa), None)

    async def sync(self, key: str) -> None:
        """Reconcile ``key`` and queue it again one sync period later (never a backoff: upstream
        re-adds every HPA at the sync period, failed or not)."""
        hpa = self.hpa_informer.indexer.get_by_key(key)
        if hpa is None:
            self.histories.pop(key, None)
            return
        try:
            await self.reconcile(key, hpa)
        except Exception as err:
            log.error("horizontal pod autoscaler %s: %s", key, err)
        finally:
            self.queue.add_after(key, self.sync_period)

    async def reconcile(self, key: str, shared: Object) -> None:
        hpa = copy.deepcopy(shared)
        original = copy.deepcopy(hpa.get("status") or {})
        now = self.clock.now()
        spec, meta = hpa["spec"], hpa["metadata"]
        ref = spec.get("scaleTargetRef") or {}
        reference = f"{ref.get('kind', '')}/{meta['namespace']}/{ref.get('name', '')}"
        try:
            target = scale_target(ref)
            scales = self.client.resource(target, meta["namespace"])
            scale = await scales.get(str(ref.get("name") or ""), subresource="scale")
        except (ScaleTargetError, ApiError) as err:
            self.recorder.event(hpa, "Warning", "FailedGetScale", str(err))
            set_condition(hpa, "AbleToScale", "False", "FailedGetScale", CANNOT_GET_SCALE + str(err), now)
            await self._update_status(original, hpa)
            raise RuntimeError(f"failed to query scale subresource for {reference}: {err}") from err
        message = "the HPA controller was able to get the target's current scale"
        set_condition(hpa, "AbleToScale", "True", "SucceededGetScale", message, now)
        current = int((scale.get("spec") or {}).get("replicas") or 0)
        history = self.histories.setdefault(key, History())
        if not history.recommendations:
            history.recommendations.append((current, now))
        minimum, maximum = int(spec.get("minReplicas") or 1), int(spec["maxReplicas"])
        statuses: list[Object] = []
        desired, reason, rescale = 0, "", True
        if current == 0 and minimum != 0:
            message = "scaling is disabled since the replica count of the target is zero"
            set_condition(hpa, "ScalingActive", "False", "ScalingDisabled", message, now)
            rescale = False
        elif current > maximum:
            desired, reason = maximum, "Current number of replicas above Spec.MaxReplicas"
        elif current < minimum:
            desired, reason = minimum, "Current number of replicas below Spec.MinReplicas"
        else:
            pods = self.pod_informer.indexer.by_index(NAMESPACE_INDEX, meta["namespace"])
            try:
                computed = await self.computer.compute(hpa, scale, pods, now)
            except ComputeError as err:
                self._set_status(
                    hpa, current, int(original.get("desiredReplicas") or 0), err.statuses, False, now
                )
                await self._update_status(original, hpa)
                self.recorder.event(hpa, "Warning", "FailedComputeMetricsReplicas", str(err))
                raise RuntimeError(
                    f"failed to compute desired number of replicas for {reference}: {err}"
                ) from err
            statuses = computed.statuses
            desired = computed.replicas
            if desired > current:
                reason = f"{computed.metric} above target"
            elif desired < current:
                reason = "All metrics below target"
            if spec.get("behavior") is None:
                desired = normalize(hpa, history, current, desired, minimum, now)
            else:
                desired = normalize_with_behavior(hpa, history, current, desired, minimum, now)
            rescale = desired != current
        if rescale:
            await self._rescale(
                hpa, scales, scale, current, desired, reason, statuses, original, reference, now
            )
            history.record_scale(spec.get("behavior"), current, desired, now)
        else:
            desired = current
        self._set_status(hpa, current, desired, statuses, rescale, now)
        await self._update_status(original, hpa)

    async def _rescale(
        self,
        hpa: Object,
        scales: Any,
        scale: Object,
        current: int,
        desired: int,
        reason: str,
        statuses: list[Object],
        original: Object,
        reference: str,
        now: float,
    ) -> None:
        scale = copy.deepcopy(scale)
        scale.setdefault("spec", {})["replicas"] = desired
        try:
            await scales.update(scale, subresource="scale")
        except ApiError as err:
            message = f"New size: {desired}; reason: {reason}; error: {err}"
            self.recorder.event(hpa, "Warning", "FailedRescale", message)
            detail = f"the HPA controller was unable to update the target scale: {err}"
            set_condition(hpa, "AbleToScale", "False", "FailedUpdateScale", detail, now)
            self._set_status(hpa, current, int(original.get("desiredReplicas") or 0), statuses, False, now)
            await self._update_status(original, hpa)
            raise RuntimeError(f"failed to rescale {reference}: {err}") from err
        message = f"the HPA controller was able to update the target scale to {desired}"
        set_condition(hpa, "AbleToScale", "True", "SucceededRescale", message, now)
        self.recorder.event(hpa, "Normal", "SuccessfulRescale", f"New size: {desired}; reason: {reason}")
        log.info("rescaled %s from %d to %d: %s", reference, current, desired, reason)

    @staticmethod
    def _set_status(
        hpa: Object, current: int, desired: int, statuses: list[Object], rescale: bool, now: float
    ) -> None:
        """Upstream's ``setStatus``: a new status keeping lastScaleTime and the conditions."""
        old = hpa.get("status") or {}
        status: Object = {"desiredReplicas": desired, "currentMetrics": statuses or None}  # as Go encodes it
        if current:
            status["currentReplicas"] = current  # omitempty
        if rescale:
            status["lastScaleTime"] = format_rfc3339(now)
        elif old.get("lastScaleTime"):
            status["lastScaleTime"] = old["lastScaleTime"]
        if old.get("conditions"):
            status["conditions"] = old["conditions"]
        hpa["status"] = status

    async def _update_status(self, original: Object, hpa: Object) -> None:
        if hpa.get("status") == original:
            return
        await self.client.resource(HORIZONTALPODAUTOSCALERS, hpa["metadata"]["namespace"]).update_status(hpa)
