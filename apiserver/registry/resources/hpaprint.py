"""The ``kubectl get hpa`` row, as upstream's ``printHorizontalPodAutoscaler`` prints it:
``NAME REFERENCE TARGETS MINPODS MAXPODS REPLICAS AGE``, TARGETS like ``cpu: 40%/50%`` (each
metric's current value over its target, ``<unknown>`` before the first reading, at most two
listed then ``+ N more...``)."""

from __future__ import annotations

from typing import Any

from apiserver.registry.age import age
from apiserver.registry.resources.configmap import AGE_COLUMN
from apiserver.registry.strategy import NAME_COLUMN, Column
from minikube_py.api.unstructured import Object

COLUMNS: list[Column] = [
    NAME_COLUMN,
    (
        "Reference",
        "string",
        "",
        "The target resource to scale: its pods are measured and its replicas changed.",
        0,
    ),
    ("Targets", "string", "", "The metrics the desired replica count is calculated from.", 0),
    ("MinPods", "string", "", "The lower limit for the number of replicas. It defaults to 1 pod.", 0),
    ("MaxPods", "string", "", "The upper limit for the number of replicas.", 0),
    ("Replicas", "string", "", "The current number of replicas, as last seen by the autoscaler.", 0),
    AGE_COLUMN,
]
UNKNOWN = "<unknown>"
MAX_LISTED = 2


def _at(statuses: list[Any], i: int, source: str) -> Object | None:
    if i < len(statuses) and isinstance(statuses[i], dict) and isinstance(statuses[i].get(source), dict):
        found: Object = statuses[i][source].get("current") or {}
        return found
    return None


def _value_pair(spec: Object, current: Object | None) -> str:
    target = spec.get("target") or {}
    if target.get("averageValue") is not None:
        now = (current or {}).get("averageValue")
        return f"{now if current is not None and now is not None else UNKNOWN}/{target['averageValue']} (avg)"
    now = (current or {}).get("value") if current is not None else None
    return f"{now if now is not None else UNKNOWN}/{target.get('value', '')}"


def _resource(spec: Object, current: Object | None) -> str:
    target = spec.get("target") or {}
    name = spec.get("name", "")
    if target.get("averageValue") is not None:
        now = (current or {}).get("averageValue")
        return f"{name}: {now if now is not None else UNKNOWN}/{target['averageValue']}"
    utilization = (current or {}).get("averageUtilization")
    now = f"{utilization}%" if utilization is not None else UNKNOWN
    wanted = f"{target['averageUtilization']}%" if target.get("averageUtilization") is not None else "<auto>"
    return f"{name}: {now}/{wanted}"


def format_metrics(specs: list[Any], statuses: list[Any]) -> str:
    if not specs:
        return "<none>"
    listed = []
    for i, metric in enumerate(specs):
        kind = metric.get("type") if isinstance(metric, dict) else None
        if kind in ("Resource", "ContainerResource"):
            source = "resource" if kind == "Resource" else "containerResource"
            listed.append(_resource(metric.get(source) or {}, _at(statuses, i, source)))
        elif kind in ("External", "Object"):
            source = kind.lower()
            listed.append(_value_pair(metric.get(source) or {}, _at(statuses, i, source)))
        elif kind == "Pods":
            current = _at(statuses, i, "pods")
            now = (current or {}).get("averageValue")
            target = ((metric.get("pods") or {}).get("target") or {}).get("averageValue", "")
            listed.append(f"{now if now is not None else UNKNOWN}/{target}")
        else:
            listed.append("<unknown type>")
    text = ", ".join(listed[:MAX_LISTED])
    return f"{text} + {len(listed) - MAX_LISTED} more..." if len(listed) > MAX_LISTED else text


def hpa_cells(hpa: Object, now: float) -> list[Any]:
    """The row of an autoscaling/v2 HPA."""
    meta, spec, status = hpa["metadata"], hpa.get("spec") or {}, hpa.get("status") or {}
    ref = spec.get("scaleTargetRef") or {}
    minimum = spec.get("minReplicas")
    return [
        meta["name"],
        f"{ref.get('kind', '')}/{ref.get('name', '')}",
        format_metrics(spec.get("metrics") or [], status.get("currentMetrics") or []),
        str(minimum) if minimum is not None else "<unset>",
        int(spec.get("maxReplicas") or 0),
        int(status.get("currentReplicas") or 0),
        age(meta.get("creationTimestamp"), now),
    ]
