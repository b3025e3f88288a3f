"""Upstream's HorizontalPodAutoscaler validation (``pkg/apis/autoscaling/validation``), on the
autoscaling/v2 form (v1 objects are validated after conversion, so paths are v2's, as upstream
validates the internal object): replica bounds, the target reference, every metric source and
target, and the behavior's rules and policies."""

from __future__ import annotations

from typing import Any

from minikube_py.api.field_errors import FieldError, forbidden, invalid, not_supported, required
from minikube_py.api.quantity import QuantityError, parse_quantity
from minikube_py.api.unstructured import Object
from minikube_py.api.validation import is_path_segment_name

METRIC_SOURCE_TYPES = ("ContainerResource", "External", "Object", "Pods", "Resource")
SOURCE_FIELDS = {
    "Object": "object",
    "Pods": "pods",
    "Resource": "resource",
    "ContainerResource": "containerResource",
    "External": "external",
}
SELECT_POLICIES = ("Disabled", "Max", "Min")
POLICY_TYPES = ("Percent", "Pods")
MAX_PERIOD_SECONDS = 1800
MAX_STABILIZATION_WINDOW_SECONDS = 3600


def validate_hpa(hpa: Object) -> list[FieldError]:
    spec = hpa.get("spec")
    if not isinstance(spec, dict):
        return [required("spec")]
    errs: list[FieldError] = []
    minimum, maximum = spec.get("minReplicas"), spec.get("maxReplicas")
    if isinstance(minimum, int) and minimum < 1:
        errs.append(invalid("spec.minReplicas", minimum, "must be greater than or equal to 1"))
    if not isinstance(maximum, int) or maximum < 1:
        errs.append(invalid("spec.maxReplicas", maximum or 0, "must be greater than 0"))
    if isinstance(minimum, int) and isinstance(maximum, int) and maximum < minimum:
        errs.append(invalid("spec.maxReplicas", maximum, "must be greater than or equal to `minReplicas`"))
    errs += validate_reference(spec.get("scaleTargetRef") or {}, "spec.scaleTargetRef")
    for i, metric in enumerate(spec.get("metrics") or []):
        errs += validate_metric(metric if isinstance(metric, dict) else {}, f"spec.metrics[{i}]")
    behavior = spec.get("behavior")
    if isinstance(behavior, dict):
        for direction in ("scaleUp", "scaleDown"):
            if isinstance(rules := behavior.get(direction), dict):
                errs += validate_rules(rules, f"spec.behavior.{direction}")
    return errs


def validate_reference(ref: Object, path: str) -> list[FieldError]:
    errs: list[FieldError] = []
    for key in ("kind", "name"):
        value = ref.get(key) or ""
        if not value:
            errs.append(required(f"{path}.{key}"))
        else:
            errs += [invalid(f"{path}.{key}", value, msg) for msg in is_path_segment_name(str(value))]
    return errs


def validate_metric(metric: Object, path: str) -> list[FieldError]:
    errs: list[FieldError] = []
    kind = metric.get("type") or ""
    if not kind:
        errs.append(required(f"{path}.type", "must specify a metric source type"))
    present = [field for field in SOURCE_FIELDS.values() if metric.get(field) is not None]
    if len(present) == 1:
        errs += _validate_source(present[0], metric[present[0]], f"{path}.{present[0]}")
    expected = SOURCE_FIELDS.get(kind)
    if expected is None:
        errs.append(not_supported(f"{path}.type", kind, METRIC_SOURCE_TYPES))
    elif metric.get(expected) is None:
        errs.append(required(f"{path}.{expected}", "must populate information for the given metric source"))
    if len(present) != 1:
        errs += [
            forbidden(f"{path}.{field}", "must populate the given metric source only")
            for field in sorted(present)
            if field != expected
        ]
    return errs


def _validate_source(field: str, source: Any, path: str) -> list[FieldError]:
    source = source if isinstance(source, dict) else {}
    target = source.get("target") if isinstance(source.get("target"), dict) else {}
    errs: list[FieldError] = []
    if field in ("resource", "containerResource"):
        if not source.get("name"):
            errs.append(required(f"{path}.name", "must specify a resource name"))
        if field == "containerResource" and not source.get("container"):
            errs.append(required(f"{path}.container", "must specify a container"))
        errs += validate_target(target, f"{path}.target")
        if target.get("averageUtilization") is None and target.get("averageValue") is None:
            errs.append(
                required(
                    f"{path}.target.averageUtilization",
                    "must set either a target raw value or a target utilization",
                )
            )
        if target.get("averageUtilization") is not None and target.get("averageValue") is not None:
            errs.append(
                invalid(
                    f"{path}.target.averageValue",
                    target["averageValue"],
                    "may not set both a target raw value and a target utilization",
                )
            )
        return errs
    metric = source.get("metric") if isinstance(source.get("metric"), dict) else {}
    if not metric.get("name"):
        errs.append(required(f"{path}.metric.name", "must specify a metric name"))
    if field == "object":
        errs += validate_reference(source.get("describedObject") or {}, f"{path}.describedObject")
    errs += validate_target(target, f"{path}.target")
    wanted = {
        "pods": ("averageValue",),
        "object": ("value", "averageValue"),
        "external": ("value", "averageValue"),
    }
    if all(target.get(key) is None for key in wanted[field]):
        detail = (
            "must specify a positive target averageValue"
            if field == "pods"
            else "must set either a target value or averageValue"
        )
        errs.append(required(f"{path}.target.{wanted[field][0]}", detail))
    return errs


def validate_target(target: Object, path: str) -> list[FieldError]:
    errs: list[FieldError] = []
    kind = target.get("type") or ""
    if not kind:
        errs.append(required(f"{path}.type", "must specify a metric target type"))
    if kind not in ("Utilization", "Value", "AverageValue"):
        errs.append(invalid(f"{path}.type", kind, "must be either Utilization, Value, or AverageValue"))
    for key in ("value", "averageValue"):
        if target.get(key) is not None and _sign(target[key]) != 1:
            errs.append(invalid(f"{path}.{key}", target[key], "must be positive"))
    utilization = target.get("averageUtilization")
    if isinstance(utilization, int) and utilization < 1:
        errs.append(invalid(f"{path}.averageUtilization", utilization, "must be greater than 0"))
    return errs


def _sign(value: Any) -> int:
    try:
        return parse_quantity(str(value)).sign()
    except QuantityError:
        return 0


def validate_rules(rules: Object, path: str) -> list[FieldError]:
    errs: list[FieldError] = []
    window = rules.get("stabilizationWindowSeconds")
    if isinstance(window, int) and window < 0:
        errs.append(
            invalid(f"{path}.stabilizationWindowSeconds", window, "must be greater than or equal to zero")
        )
    if isinstance(window, int) and window > MAX_STABILIZATION_WINDOW_SECONDS:
        detail = f"must be less than or equal to {MAX_STABILIZATION_WINDOW_SECONDS}"
        errs.append(invalid(f"{path}.stabilizationWindowSeconds", window, detail))
    select = rules.get("selectPolicy")
    if select is not None and select not in SELECT_POLICIES:
        errs.append(not_supported(f"{path}.selectPolicy", select, SELECT_POLICIES))
    policies = rules.get("policies") or []
    if not policies:
        errs.append(required(f"{path}.policies", "must specify at least one Policy"))
    for i, policy in enumerate(policies):
        errs += validate_policy(policy if isinstance(policy, dict) else {}, f"{path}.policies[{i}]")
    return errs


def validate_policy(policy: Object, path: str) -> list[FieldError]:
    errs: list[FieldError] = []
    if policy.get("type") not in POLICY_TYPES:
        errs.append(not_supported(f"{path}.type", policy.get("type") or "", POLICY_TYPES))
    value, period = policy.get("value") or 0, policy.get("periodSeconds") or 0
    if value <= 0:
        errs.append(invalid(f"{path}.value", value, "must be greater than zero"))
    if period <= 0:
        errs.append(invalid(f"{path}.periodSeconds", period, "must be greater than zero"))
    if period > MAX_PERIOD_SECONDS:
        errs.append(
            invalid(f"{path}.periodSeconds", period, f"must be less than or equal to {MAX_PERIOD_SECONDS}")
        )
    return errs
