"""PodDisruptionBudgets (policy/v1): no defaults, upstream's validation of the spec
(``ValidatePodDisruptionBudgetSpec``) and of the status (``ValidatePodDisruptionBudgetStatusUpdate``),
a status subresource, and ``kubectl get pdb``'s row."""

from __future__ import annotations

import re
from typing import Any

from apiserver.registry.age import age
from apiserver.registry.resources.conditionvalidation import validate_conditions
from apiserver.registry.resources.configmap import AGE_COLUMN
from apiserver.registry.resources.podvalidation import (
    NEGATIVE,
    non_negative,
    parsed_selector,
    to_causes,
    validate_label_selector,
)
from apiserver.registry.strategy import NAME_COLUMN, Column, Strategy
from minikube_py.api.errors import Cause
from minikube_py.api.field_errors import FieldError, invalid, not_supported
from minikube_py.api.models import policy
from minikube_py.api.unstructured import Object

COLUMNS: list[Column] = [
    NAME_COLUMN,
    ("Min Available", "string", "", "The minimum number of pods that must be available.", 0),
    ("Max Unavailable", "string", "", "The maximum number of pods that may be unavailable.", 0),
    (
        "Allowed Disruptions",
        "integer",
        "",
        "Calculated number of pods that may be disrupted at this time.",
        0,
    ),
    AGE_COLUMN,
]
UNHEALTHY_POD_EVICTION_POLICIES = ("AlwaysAllow", "IfHealthyBudget")
STATUS_COUNTS = ("disruptionsAllowed", "currentHealthy", "desiredHealthy", "expectedPods")
_PERCENT = re.compile(r"[0-9]+%")
PERCENT_MESSAGE = (
    "a valid percent string must be a numeric string followed by an ending '%' "
    "(e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')"
)


def validate_int_or_percent(value: Any, path: str) -> list[FieldError]:
    """``ValidatePositiveIntOrPercent`` plus ``IsNotMoreThan100Percent``."""
    if isinstance(value, bool) or not isinstance(value, int | str):
        return [invalid(path, value, "must be an integer or percentage (e.g '5%')")]
    if isinstance(value, int):
        return [invalid(path, value, NEGATIVE)] if value < 0 else []
    if not _PERCENT.fullmatch(value):
        return [invalid(path, value, PERCENT_MESSAGE)]
    return [invalid(path, value, "must not be greater than 100%")] if int(value[:-1]) > 100 else []


def validate_spec(spec: Object) -> list[FieldError]:
    errs: list[FieldError] = []
    if spec.get("minAvailable") is not None and spec.get("maxUnavailable") is not None:
        errs.append(invalid("spec", spec, "minAvailable and maxUnavailable cannot be both set"))
    for key in ("minAvailable", "maxUnavailable"):
        if spec.get(key) is not None:
            errs += validate_int_or_percent(spec[key], f"spec.{key}")
    selector = spec.get("selector")
    errs += validate_label_selector(selector, "spec.selector")
    if selector is not None and parsed_selector(selector) is None:
        errs.append(invalid("spec.selector", selector, "invalid label selector"))
    policy_name = spec.get("unhealthyPodEvictionPolicy")
    if policy_name is not None and policy_name not in UNHEALTHY_POD_EVICTION_POLICIES:
        errs.append(
            not_supported("spec.unhealthyPodEvictionPolicy", policy_name, UNHEALTHY_POD_EVICTION_POLICIES)
        )
    return errs


def validate_status(status: Object) -> list[FieldError]:
    """The conditions, and every count non-negative (policy/v1 only, as upstream)."""
    errs = validate_conditions(status.get("conditions"), "status.conditions")
    for key in STATUS_COUNTS:
        errs += non_negative(status, key, "status")
    return errs


def int_or_string(value: Any) -> str:
    """``IntOrString.String()``; ``N/A`` when unset, as ``kubectl get pdb`` shows it."""
    return "N/A" if value is None else str(value)


class PodDisruptionBudgetStrategy(Strategy):
    kinds = (policy.PodDisruptionBudget,)
    status_field = "status"
    spec_field = "spec"
    columns = COLUMNS

    def prepare_for_create(self, obj: Object) -> None:
        obj["status"] = {"disruptionsAllowed": 0, "currentHealthy": 0, "desiredHealthy": 0, "expectedPods": 0}

    def validate(self, obj: Object) -> list[Cause]:
        spec = obj.get("spec")
        return to_causes(validate_spec(spec if isinstance(spec, dict) else {}))

    def validate_update(self, new: Object, old: Object) -> list[Cause]:
        """The spec may change (policy/v1); a status update is checked as upstream's status strategy."""
        status = new.get("status")
        return self.validate(new) + to_causes(validate_status(status if isinstance(status, dict) else {}))

    def table_cells(self, obj: Object, now: float) -> list[Any]:
        meta, spec, status = obj["metadata"], obj.get("spec") or {}, obj.get("status") or {}
        return [
            meta["name"],
            int_or_string(spec.get("minAvailable")),
            int_or_string(spec.get("maxUnavailable")),
            status.get("disruptionsAllowed", 0),
            age(meta.get("creationTimestamp"), now),
        ]
