"""Deployments: upstream's apps/v1 defaults (1 replica, RollingUpdate 25%/25%, 10 revisions,
600s progress deadline, the pod template's defaults), validation and ``kubectl get`` row."""

from __future__ import annotations

import re
from typing import Any

from apiserver.registry.age import age
from apiserver.registry.resources.configmap import AGE_COLUMN
from apiserver.registry.resources.podtemplatespec import (
    CONTAINERS_COLUMN,
    IMAGES_COLUMN,
    SELECTOR_COLUMN,
    container_cells,
    default_template,
    selector_string,
    template_spec,
)
from apiserver.registry.resources.podvalidation import (
    non_negative,
    to_causes,
    validate_selector_unchanged,
    validate_workload,
)
from apiserver.registry.strategy import NAME_COLUMN, Column, Strategy
from minikube_py.api.errors import Cause
from minikube_py.api.field_errors import FieldError, invalid, not_supported, required
from minikube_py.api.models import apps_deployment
from minikube_py.api.unstructured import Object

COLUMNS: list[Column] = [
    NAME_COLUMN,
    ("Ready", "string", "", "Number of the pod with ready state", 0),
    ("Up-to-date", "string", "", "Total number of non-terminated pods that have the desired template.", 0),
    ("Available", "string", "", "Total number of available pods targeted by this deployment.", 0),
    AGE_COLUMN,
    CONTAINERS_COLUMN,
    IMAGES_COLUMN,
    SELECTOR_COLUMN,
]
STRATEGY_TYPES = ("Recreate", "RollingUpdate")
_PERCENT = re.compile(r"[0-9]+%")
PERCENT_MESSAGE = (
    "a valid percent string must be a numeric string followed by an ending '%' "
    "(e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')"
)


def default_deployment(obj: Object) -> None:
    """``SetDefaults_Deployment`` (apps/v1) and the template's pod defaults."""
    spec = obj.setdefault("spec", {})
    spec.setdefault("replicas", 1)
    strategy = spec.setdefault("strategy", {})
    strategy.setdefault("type", "RollingUpdate")
    if strategy["type"] == "RollingUpdate":
        rolling = strategy.get("rollingUpdate")
        if not isinstance(rolling, dict):
            rolling = strategy["rollingUpdate"] = {}
        rolling.setdefault("maxUnavailable", "25%")
        rolling.setdefault("maxSurge", "25%")
    spec.setdefault("revisionHistoryLimit", 10)
    spec.setdefault("progressDeadlineSeconds", 600)
    default_template(spec)


def _int_or_percent(value: Any, path: str) -> list[FieldError]:
    """``ValidatePositiveIntOrPercent``."""
    if isinstance(value, bool) or not isinstance(value, int | str):
        return [invalid(path, value, "must be an integer or percentage (e.g '5%')")]
    if isinstance(value, str):
        return [] if _PERCENT.fullmatch(value) else [invalid(path, value, PERCENT_MESSAGE)]
    return [invalid(path, value, "must be greater than or equal to 0")] if value < 0 else []


def _is_zero(value: Any) -> bool:
    return not isinstance(value, bool) and value in (0, "0%")


def _validate_rolling_update(rolling: Object, path: str) -> list[FieldError]:
    unavailable, surge = rolling.get("maxUnavailable"), rolling.get("maxSurge")
    errs = _int_or_percent(unavailable, f"{path}.maxUnavailable")
    errs += _int_or_percent(surge, f"{path}.maxSurge")
    if _is_zero(unavailable) and _is_zero(surge):
        errs.append(invalid(f"{path}.maxUnavailable", unavailable, "may not be 0 when `maxSurge` is 0"))
    if isinstance(unavailable, str) and _PERCENT.fullmatch(unavailable) and int(unavailable[:-1]) > 100:
        errs.append(invalid(f"{path}.maxUnavailable", unavailable, "must not be greater than 100%"))
    return errs


def validate_strategy(strategy: Object) -> list[FieldError]:
    """``ValidateDeploymentStrategy``."""
    kind, rolling = strategy.get("type"), strategy.get("rollingUpdate")
    if kind == "Recreate":
        if rolling is not None:
            detail = "may not be specified when strategy `type` is 'Recreate'"
            return [FieldError("FieldValueForbidden", "spec.strategy.rollingUpdate", "", detail)]
        return []
    if kind == "RollingUpdate":
        if not isinstance(rolling, dict):
            return [required("spec.strategy.rollingUpdate", "this should be defaulted and never be nil")]
        return _validate_rolling_update(rolling, "spec.strategy.rollingUpdate")
    return [not_supported("spec.strategy", strategy, STRATEGY_TYPES)]


def validate_deployment(obj: Object) -> list[FieldError]:
    """``ValidateDeploymentSpec``: replicas, selector, template, strategy and the time limits."""
    spec = obj.get("spec") or {}
    errs = validate_workload(obj, "deployment")
    errs += validate_strategy(spec.get("strategy") or {})
    errs += non_negative(spec, "minReadySeconds", "spec")
    errs += non_negative(spec, "revisionHistoryLimit", "spec")
    deadline = spec.get("progressDeadlineSeconds")
    if isinstance(deadline, int):
        errs += non_negative(spec, "progressDeadlineSeconds", "spec")
        if deadline <= int(spec.get("minReadySeconds") or 0):
            detail = "must be greater than minReadySeconds"
            errs.append(invalid("spec.progressDeadlineSeconds", deadline, detail))
    return errs


class DeploymentStrategy(Strategy):
    kinds = (apps_deployment.Deployment,)
    status_field = "status"
    spec_field = "spec"
    columns = COLUMNS

    def default(self, obj: Object) -> None:
        default_deployment(obj)

    def validate(self, obj: Object) -> list[Cause]:
        return to_causes(validate_deployment(obj))

    def validate_update(self, new: Object, old: Object) -> list[Cause]:
        return to_causes(validate_deployment(new) + validate_selector_unchanged(new, old))

    def table_cells(self, obj: Object, now: float) -> list[Any]:
        meta, spec, status = obj["metadata"], obj.get("spec") or {}, obj.get("status") or {}
        return [
            meta["name"],
            f"{status.get('readyReplicas', 0)}/{spec.get('replicas', 1)}",
            status.get("updatedReplicas", 0),
            status.get("availableReplicas", 0),
            age(meta.get("creationTimestamp"), now),
            *container_cells(template_spec(obj)),
            selector_string(spec.get("selector")),
        ]
