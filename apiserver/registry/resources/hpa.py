"""HorizontalPodAutoscalers (``hpa``, ``/status``): autoscaling/v2 is the stored shape;
autoscaling/v1 is served from the same storage through ``hpaconversion`` (its v2-only fields in
``autoscaling.alpha.kubernetes.io/*`` annotations), as upstream serves both.

Defaults as upstream's v2 ``SetDefaults_HorizontalPodAutoscaler``: ``minReplicas`` 1, the 80% CPU
utilization metric when there are no metrics, and a behavior that is set gets every unset rule
filled: scale up with no stabilization, the higher of 100% and 4 pods per 15 s; scale down by up
to 100% per 15 s, its stabilization window left unset (the controller's
``--horizontal-pod-autoscaler-downscale-stabilization``, 300 s). v1 defaults ``minReplicas`` only
(its missing CPU target becomes the default metric when stored). Validation (``hpavalidation``)
runs on the v2 form of both versions.
"""

from __future__ import annotations

import copy
from typing import Any, ClassVar

from apiserver.registry.resources.hpaconversion import (
    DEFAULT_CPU_UTILIZATION,
    HPAV1Conversion,
    cpu_utilization_metric,
    hpa_to_v2,
)
from apiserver.registry.resources.hpaprint import COLUMNS, hpa_cells
from apiserver.registry.resources.hpavalidation import validate_hpa
from apiserver.registry.resources.podvalidation import to_causes
from apiserver.registry.strategy import ServedModels, Strategy
from minikube_py.api.errors import Cause
from minikube_py.api.models import autoscaling, autoscaling_v2
from minikube_py.api.unstructured import Object

SCALE_UP_DEFAULTS: Object = {
    "stabilizationWindowSeconds": 0,
    "selectPolicy": "Max",
    "policies": [
        {"type": "Pods", "value": 4, "periodSeconds": 15},
        {"type": "Percent", "value": 100, "periodSeconds": 15},
    ],
}
SCALE_DOWN_DEFAULTS: Object = {
    "selectPolicy": "Max",
    "policies": [{"type": "Percent", "value": 100, "periodSeconds": 15}],
}


def scaling_rules(rules: Any, defaults: Object) -> Object:
    """Upstream's ``GenerateHPAScale{Up,Down}Rules``: the defaults, overridden by every field
    ``rules`` sets."""
    out = copy.deepcopy(defaults)
    if isinstance(rules, dict):
        out.update({k: v for k, v in rules.items() if v is not None})
    return out


def default_v2(hpa: Object) -> None:
    spec = hpa.get("spec")
    if not isinstance(spec, dict):
        return
    spec.setdefault("minReplicas", 1)
    if not spec.get("metrics"):
        spec["metrics"] = [cpu_utilization_metric(DEFAULT_CPU_UTILIZATION)]
    behavior = spec.get("behavior")
    if isinstance(behavior, dict):
        behavior["scaleUp"] = scaling_rules(behavior.get("scaleUp"), SCALE_UP_DEFAULTS)
        behavior["scaleDown"] = scaling_rules(behavior.get("scaleDown"), SCALE_DOWN_DEFAULTS)


class HorizontalPodAutoscalerStrategy(Strategy):
    kinds: ClassVar[ServedModels] = (autoscaling_v2.HorizontalPodAutoscaler,)
    status_field = "status"
    spec_field = "spec"
    columns = COLUMNS

    def default(self, obj: Object) -> None:
        default_v2(obj)

    def prepare_for_create(self, obj: Object) -> None:
        """An empty status, as Go encodes upstream's zero v2 status."""
        obj["status"] = {"currentMetrics": None, "desiredReplicas": 0}

    def validate(self, obj: Object) -> list[Cause]:
        return to_causes(validate_hpa(obj))

    def table_cells(self, obj: Object, now: float) -> list[Any]:
        return hpa_cells(obj, now)


class HorizontalPodAutoscalerV1Strategy(HorizontalPodAutoscalerStrategy):
    kinds = (autoscaling.HorizontalPodAutoscaler,)
    conversion = HPAV1Conversion()

    def default(self, obj: Object) -> None:
        spec = obj.get("spec")
        if isinstance(spec, dict):
            spec.setdefault("minReplicas", 1)

    def prepare_for_create(self, obj: Object) -> None:
        obj["status"] = {"currentReplicas": 0, "desiredReplicas": 0}

    def validate(self, obj: Object) -> list[Cause]:
        v2 = hpa_to_v2(obj)
        default_v2(v2)
        return to_causes(validate_hpa(v2))

    def table_cells(self, obj: Object, now: float) -> list[Any]:
        return hpa_cells(hpa_to_v2(obj), now)
