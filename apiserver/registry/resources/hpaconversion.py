"""autoscaling/v1 HorizontalPodAutoscaler <-> autoscaling/v2, the shape both are stored in.

As upstream's ``pkg/apis/autoscaling/v1/conversion.go``: v1 has one metric, the target CPU
utilization (``spec.targetCPUUtilizationPercentage``, ``status.currentCPUUtilizationPercentage``);
everything else of v2 travels in annotations, JSON-encoded:

- ``autoscaling.alpha.kubernetes.io/metrics``: the other metrics of ``spec.metrics``, in v1's
  alpha MetricSpec shape (``targetAverageUtilization``, ``targetAverageValue``, ``metricName``...);
  converted to v2 they come first, the CPU utilization metric last;
- ``autoscaling.alpha.kubernetes.io/current-metrics``: every entry of ``status.currentMetrics``
  (the CPU one too, which keeps its raw average value);
- ``autoscaling.alpha.kubernetes.io/conditions``: ``status.conditions``;
- ``autoscaling.alpha.kubernetes.io/behavior``: ``spec.behavior`` (v2's shape).

Converting to v1 drops any such annotation already on the object first, so only what this
conversion wrote is there; converting to v2 drops them after reading them. An annotation that is
not valid JSON is ignored, as upstream ignores one that does not unmarshal. A v1 object without a
CPU target and without other metrics gets v2's default metric (80% CPU) when stored, as upstream's
storage decode defaults it.
"""

from __future__ import annotations

import json
from typing import Any

from minikube_py.api.unstructured import Object

V1, V2 = "autoscaling/v1", "autoscaling/v2"
KIND = "HorizontalPodAutoscaler"
METRICS = "autoscaling.alpha.kubernetes.io/metrics"
CURRENT_METRICS = "autoscaling.alpha.kubernetes.io/current-metrics"
CONDITIONS = "autoscaling.alpha.kubernetes.io/conditions"
BEHAVIOR = "autoscaling.alpha.kubernetes.io/behavior"
ROUND_TRIP = (METRICS, CURRENT_METRICS, CONDITIONS, BEHAVIOR)
DEFAULT_CPU_UTILIZATION = 80


def cpu_utilization_metric(percent: int) -> Object:
    target = {"type": "Utilization", "averageUtilization": percent}
    return {"type": "Resource", "resource": {"name": "cpu", "target": target}}


def _is_cpu_utilization(metric: Object) -> bool:
    resource = metric.get("resource") or {}
    target = resource.get("target") or {}
    return (
        metric.get("type") == "Resource"
        and resource.get("name") == "cpu"
        and target.get("averageUtilization") is not None
    )


def _set(out: Object, key: str, value: Any) -> None:
    if value is not None:
        out[key] = value


# -- one metric, v1 alpha shape <-> v2 ---------------------------------------------------------


def _target_to_v1(target: Object, value: str, average: str, utilization: str) -> Object:
    out: Object = {}
    _set(out, utilization, target.get("averageUtilization"))
    _set(out, value, target.get("value"))
    _set(out, average, target.get("averageValue"))
    return out


def _target_from_v1(src: Object, value: str, average: str, utilization: str) -> Object:
    out: Object = {}
    if src.get(utilization) is not None:
        out = {"type": "Utilization", "averageUtilization": src[utilization]}
    elif src.get(average) is not None:
        out = {"type": "AverageValue", "averageValue": src[average]}
    elif src.get(value) is not None:
        out = {"type": "Value", "value": src[value]}
    return out


def _identifier(metric: Object) -> Object:
    out: Object = {"name": metric.get("name", "")}
    _set(out, "selector", metric.get("selector"))
    return out


def metric_spec_to_v1(metric: Object) -> Object:
    kind = metric.get("type")
    out: Object = {"type": kind}
    keys = ("targetValue", "targetAverageValue", "targetAverageUtilization")
    if isinstance(res := metric.get("resource"), dict):
        out["resource"] = {"name": res.get("name", ""), **_target_to_v1(res.get("target") or {}, *keys)}
    if isinstance(res := metric.get("containerResource"), dict):
        out["containerResource"] = {"name": res.get("name", ""), "container": res.get("container", ""),
                                    **_target_to_v1(res.get("target") or {}, *keys)}  # fmt: skip
    if isinstance(pods := metric.get("pods"), dict):
        ident = pods.get("metric") or {}
        out["pods"] = {"metricName": ident.get("name", ""), **_target_to_v1(pods.get("target") or {}, *keys)}
        _set(out["pods"], "selector", ident.get("selector"))
    if isinstance(obj := metric.get("object"), dict):
        ident = obj.get("metric") or {}
        target = obj.get("target") or {}
        out["object"] = {"target": obj.get("describedObject") or {}, "metricName": ident.get("name", "")}
        _set(out["object"], "targetValue", target.get("value"))
        _set(out["object"], "averageValue", target.get("averageValue"))
        _set(out["object"], "selector", ident.get("selector"))
    if isinstance(ext := metric.get("external"), dict):
        ident = ext.get("metric") or {}
        target = ext.get("target") or {}
        out["external"] = {"metricName": ident.get("name", "")}
        _set(out["external"], "metricSelector", ident.get("selector"))
        _set(out["external"], "targetValue", target.get("value"))
        _set(out["external"], "targetAverageValue", target.get("averageValue"))
    return out


def metric_spec_from_v1(metric: Object) -> Object:
    out: Object = {"type": metric.get("type")}
    keys = ("targetValue", "targetAverageValue", "targetAverageUtilization")
    if isinstance(res := metric.get("resource"), dict):
        out["resource"] = {"name": res.get("name", ""), "target": _target_from_v1(res, *keys)}
    if isinstance(res := metric.get("containerResource"), dict):
        out["containerResource"] = {"name": res.get("name", ""), "container": res.get("container", ""),
                                    "target": _target_from_v1(res, *keys)}  # fmt: skip
    if isinstance(pods := metric.get("pods"), dict):
        ident = {"name": pods.get("metricName", ""), "selector": pods.get("selector")}
        out["pods"] = {"metric": _identifier(ident), "target": _target_from_v1(pods, *keys)}
    if isinstance(obj := metric.get("object"), dict):
        ident = {"name": obj.get("metricName", ""), "selector": obj.get("selector")}
        target = _target_from_v1(obj, "targetValue", "averageValue", "-")
        out["object"] = {
            "describedObject": obj.get("target") or {},
            "metric": _identifier(ident),
            "target": target,
        }
    if isinstance(ext := metric.get("external"), dict):
        ident = {"name": ext.get("metricName", ""), "selector": ext.get("metricSelector")}
        out["external"] = {"metric": _identifier(ident), "target": _target_from_v1(ext, *keys)}
    return out


def _current_to_v1(current: Object, value: str, average: str, utilization: str) -> Object:
    return _target_to_v1(current, value, average, utilization)


def metric_status_to_v1(status: Object) -> Object:
    out: Object = {"type": status.get("type")}
    keys = ("currentValue", "currentAverageValue", "currentAverageUtilization")
    for source in ("resource", "containerResource"):
        if isinstance(res := status.get(source), dict):
            out[source] = {"name": res.get("name", ""), **_current_to_v1(res.get("current") or {}, *keys)}
            _set(out[source], "container", res.get("container"))
    for source in ("pods", "object", "external"):
        if isinstance(res := status.get(source), dict):
            ident = res.get("metric") or {}
            entry: Object = {
                "metricName": ident.get("name", ""),
                **_current_to_v1(res.get("current") or {}, *keys),
            }
            _set(entry, "metricSelector" if source == "external" else "selector", ident.get("selector"))
            if source == "object":
                entry["target"] = res.get("describedObject") or {}
            out[source] = entry
    return out


def metric_status_from_v1(status: Object) -> Object:
    out: Object = {"type": status.get("type")}
    keys = ("currentValue", "currentAverageValue", "currentAverageUtilization")

    def current(src: Object) -> Object:
        found: Object = {}
        _set(found, "averageUtilization", src.get(keys[2]))
        _set(found, "averageValue", src.get(keys[1]))
        _set(found, "value", src.get(keys[0]))
        return found

    for source in ("resource", "containerResource"):
        if isinstance(res := status.get(source), dict):
            out[source] = {"name": res.get("name", ""), "current": current(res)}
            _set(out[source], "container", res.get("container"))
    for source in ("pods", "object", "external"):
        if isinstance(res := status.get(source), dict):
            selector = res.get("metricSelector" if source == "external" else "selector")
            out[source] = {"metric": _identifier({"name": res.get("metricName", ""), "selector": selector}),
                           "current": current(res)}  # fmt: skip
            if source == "object":
                out[source]["describedObject"] = res.get("target") or {}
    return out


# -- whole objects -----------------------------------------------------------------------------


def _without_round_trip(meta: Object) -> Object:
    out = dict(meta)
    annotations = {k: v for k, v in (meta.get("annotations") or {}).items() if k not in ROUND_TRIP}
    if annotations:
        out["annotations"] = annotations
    else:
        out.pop("annotations", None)
    return out


def _decoded(annotations: dict[str, str], key: str) -> Any:
    try:
        return json.loads(annotations[key]) if key in annotations else None
    except ValueError:
        return None


def _encoded(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"))


def hpa_to_v2(hpa: Object) -> Object:
    """The autoscaling/v2 form of an autoscaling/v1 HPA (``hpa`` is not modified)."""
    meta = hpa.get("metadata") or {}
    annotations = meta.get("annotations") or {}
    out: Object = {
        "apiVersion": V2,
        "kind": KIND,
        **{k: v for k, v in hpa.items() if k not in ("apiVersion", "kind")},
    }
    out["metadata"] = _without_round_trip(meta)
    if isinstance(spec := hpa.get("spec"), dict):
        v2spec = {k: v for k, v in spec.items() if k != "targetCPUUtilizationPercentage"}
        others = _decoded(annotations, METRICS)
        metrics = (
            [metric_spec_from_v1(m) for m in others if isinstance(m, dict)]
            if isinstance(others, list)
            else []
        )
        if spec.get("targetCPUUtilizationPercentage") is not None:
            metrics.append(cpu_utilization_metric(spec["targetCPUUtilizationPercentage"]))
        v2spec["metrics"] = metrics or [cpu_utilization_metric(DEFAULT_CPU_UTILIZATION)]
        if isinstance(behavior := _decoded(annotations, BEHAVIOR), dict):
            v2spec["behavior"] = behavior
        out["spec"] = v2spec
    if isinstance(status := hpa.get("status"), dict):
        v2status = {k: v for k, v in status.items() if k != "currentCPUUtilizationPercentage"}
        if not v2status.get("currentReplicas"):
            v2status.pop("currentReplicas", None)  # omitempty in v2, always sent in v1
        v2status.setdefault("currentMetrics", None)  # v2 always sends it (null when none)
        current = _decoded(annotations, CURRENT_METRICS)
        if isinstance(current, list):
            v2status["currentMetrics"] = [metric_status_from_v1(m) for m in current if isinstance(m, dict)]
        elif status.get("currentCPUUtilizationPercentage") is not None:
            utilization = status["currentCPUUtilizationPercentage"]
            cpu = {"name": "cpu", "current": {"averageUtilization": utilization}}
            v2status["currentMetrics"] = [{"type": "Resource", "resource": cpu}]
        if isinstance(conditions := _decoded(annotations, CONDITIONS), list):
            v2status["conditions"] = conditions
        out["status"] = v2status
    return out


def hpa_to_v1(hpa: Object) -> Object:
    """The autoscaling/v1 form of an autoscaling/v2 HPA (``hpa`` is not modified)."""
    out: Object = {
        "apiVersion": V1,
        "kind": KIND,
        **{k: v for k, v in hpa.items() if k not in ("apiVersion", "kind")},
    }
    meta = _without_round_trip(hpa.get("metadata") or {})
    annotations: dict[str, str] = dict(meta.get("annotations") or {})
    if isinstance(spec := hpa.get("spec"), dict):
        v1spec = {k: v for k, v in spec.items() if k not in ("metrics", "behavior")}
        metrics = [m for m in spec.get("metrics") or [] if isinstance(m, dict)]
        for metric in metrics:
            if _is_cpu_utilization(metric):
                v1spec["targetCPUUtilizationPercentage"] = metric["resource"]["target"]["averageUtilization"]
        others = [metric_spec_to_v1(m) for m in metrics if not _is_cpu_utilization(m)]
        if others:
            annotations[METRICS] = _encoded(others)
        if spec.get("behavior") is not None:
            annotations[BEHAVIOR] = _encoded(spec["behavior"])
        out["spec"] = v1spec
    if isinstance(status := hpa.get("status"), dict):
        v1status = {k: v for k, v in status.items() if k not in ("currentMetrics", "conditions")}
        v1status.setdefault("currentReplicas", 0)
        v1status.setdefault("desiredReplicas", 0)
        current = [m for m in status.get("currentMetrics") or [] if isinstance(m, dict)]
        for metric in current:
            res = metric.get("resource") or {}
            utilization = (res.get("current") or {}).get("averageUtilization")
            if metric.get("type") == "Resource" and res.get("name") == "cpu" and utilization is not None:
                v1status["currentCPUUtilizationPercentage"] = utilization
                break
        if current:
            annotations[CURRENT_METRICS] = _encoded([metric_status_to_v1(m) for m in current])
        if status.get("conditions"):
            annotations[CONDITIONS] = _encoded(status["conditions"])
        out["status"] = v1status
    if annotations:
        meta["annotations"] = annotations
    out["metadata"] = meta
    return out


class HPAV1Conversion:
    """``StorageConversion`` of autoscaling/v1 HPAs, stored as autoscaling/v2."""

    def to_storage(self, obj: Object) -> Object:
        return hpa_to_v2(obj)

    def from_storage(self, obj: Object) -> Object:
        return hpa_to_v1(obj)
