"""Downward API values: a pod's fields and a container's resources as strings.

Upstream's ``fieldpath.ExtractFieldPathAsString``, the kubelet's
``podFieldSelectorRuntimeValue`` and ``resource.ExtractContainerResourceValue``; shared by
environment variables (``nodeagent.envvars``) and downwardAPI / projected volumes
(``nodeagent.volumes``). Pure functions over the pod as a JSON dict. Errors are
``FieldPathError`` with upstream's message; callers wrap them in their own error type.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from minikube_py.api.quantity import Quantity, QuantityError
from minikube_py.api.unstructured import Object

DEFAULTED_LIMITS = ("cpu", "memory", "ephemeral-storage")
_SUPPORTED_FIELDS = frozenset(
    {
        "metadata.annotations",
        "metadata.labels",
        "metadata.name",
        "metadata.namespace",
        "metadata.uid",
        "spec.nodeName",
        "spec.restartPolicy",
        "spec.serviceAccountName",
        "spec.schedulerName",
        "status.phase",
        "status.hostIP",
        "status.hostIPs",
        "status.podIP",
        "status.podIPs",
    }
)


class FieldPathError(ValueError):
    """A field or resource selector that cannot be resolved (upstream's message)."""


def split_subscripted_path(field_path: str) -> tuple[str, str, bool]:
    """``metadata.labels['app']`` -> (``metadata.labels``, ``app``, True); else (path, "", False)."""
    if not field_path.endswith("']"):
        return field_path, "", False
    head, sep, subscript = field_path[: -len("']")].partition("['")
    if not sep or not head:
        return field_path, "", False
    return head, subscript, True


def format_map(values: Mapping[str, str]) -> str:
    """Upstream's ``FormatMap``: ``key="value"`` lines, keys sorted, no trailing newline."""
    return "\n".join(f"{key}={json.dumps(values[key], ensure_ascii=False)}" for key in sorted(values))


def extract_field_path(pod: Mapping[str, Any], field_path: str) -> str:
    """The value of a ``metadata.*`` field path (``ExtractFieldPathAsString``)."""
    meta = pod.get("metadata") or {}
    path, subscript, subscripted = split_subscripted_path(field_path)
    if subscripted:
        if path in ("metadata.annotations", "metadata.labels"):
            return str((meta.get(path.split(".")[1]) or {}).get(subscript, ""))
        raise FieldPathError(f'fieldPath "{field_path}" does not support subscript')
    if field_path in ("metadata.annotations", "metadata.labels"):
        return format_map(meta.get(field_path.split(".")[1]) or {})
    if field_path in ("metadata.name", "metadata.namespace", "metadata.uid"):
        return str(meta.get(field_path.split(".")[1]) or "")
    raise FieldPathError(f"unsupported fieldPath: {field_path}")


def check_field_label(api_version: str, field_path: str) -> None:
    """Upstream's ``ConvertDownwardAPIFieldLabel`` checks: pod version ``v1``, a known field."""
    if api_version not in ("", "v1"):
        raise FieldPathError(f"unsupported pod version: {api_version}")
    path, _, subscripted = split_subscripted_path(field_path)
    if subscripted and path in ("metadata.annotations", "metadata.labels"):
        return
    if field_path not in _SUPPORTED_FIELDS:
        raise FieldPathError(f"field label not supported: {field_path}")


def pod_field_value(
    pod: Mapping[str, Any],
    field_ref: Mapping[str, Any],
    *,
    pod_ips: Sequence[str],
    host_ips: Sequence[str],
) -> str:
    """A ``fieldRef`` as an environment variable sees it (``podFieldSelectorRuntimeValue``)."""
    field_path = str(field_ref.get("fieldPath") or "")
    check_field_label(str(field_ref.get("apiVersion") or ""), field_path)
    spec = pod.get("spec") or {}
    values = {
        "spec.nodeName": str(spec.get("nodeName") or ""),
        "spec.serviceAccountName": str(spec.get("serviceAccountName") or ""),
        "status.hostIP": host_ips[0] if host_ips else "",
        "status.hostIPs": ",".join(host_ips),
        "status.podIP": pod_ips[0] if pod_ips else "",
        "status.podIPs": ",".join(pod_ips),
    }
    if field_path in values:
        return values[field_path]
    return extract_field_path(pod, field_path)


def defaulted_limits(container: Mapping[str, Any], node_allocatable: Mapping[str, Any]) -> Object:
    """The container with unset cpu/memory/ephemeral-storage limits set to the node's
    allocatable (upstream's ``defaultPodLimitsForDownwardAPI``)."""
    resources = dict(container.get("resources") or {})
    limits = dict(resources.get("limits") or {})
    for name in DEFAULTED_LIMITS:
        if name not in limits and name in node_allocatable:
            limits[name] = node_allocatable[name]
    resources["limits"] = limits
    return {**container, "resources": resources}


def _quantity(value: Any) -> Quantity:
    try:
        return Quantity.parse(str(value))
    except QuantityError as err:
        raise FieldPathError(str(err)) from err


def _ceil_div(numerator: int, denominator: int) -> int:
    return -(-numerator // denominator)


def container_resource_value(selector: Mapping[str, Any], container: Mapping[str, Any]) -> str:
    """A ``resourceFieldRef`` of ``container`` (``ExtractContainerResourceValue``): the value
    divided by ``divisor`` (default 1), rounded up. CPU in cores (``divisor: 1m``: millicores)."""
    divisor_text = selector.get("divisor")
    divisor = _quantity(divisor_text) if divisor_text not in (None, "", 0, "0") else Quantity.from_int(1)
    resource = str(selector.get("resource") or "")
    kind, _, name = resource.partition(".")
    if kind not in ("limits", "requests") or not name:
        raise FieldPathError(f"unsupported container resource : {resource}")
    if name not in DEFAULTED_LIMITS and not name.startswith("hugepages-"):
        raise FieldPathError(f"unsupported container resource : {resource}")
    values = (container.get("resources") or {}).get(kind) or {}
    value = _quantity(values.get(name, "0"))
    if name == "cpu":
        return str(_ceil_div(value.milli_value(), divisor.milli_value()))
    return str(_ceil_div(value.value(), divisor.value()))


def find_container(pod: Mapping[str, Any], name: str) -> Object:
    """The container (or init container) called ``name``."""
    spec = pod.get("spec") or {}
    for container in [*(spec.get("containers") or []), *(spec.get("initContainers") or [])]:
        if container.get("name") == name:
            return dict(container)
    raise FieldPathError(f"container {name} not found")
