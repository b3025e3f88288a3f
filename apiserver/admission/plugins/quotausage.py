"""What an object counts against a ResourceQuota (upstream's quota evaluators): every object
``count/<resource>[.<group>]`` (and the legacy names of a few core kinds); a pod that is not
finished also ``pods`` and its requests and limits (``requests.cpu`` and ``cpu``,
``limits.memory``...)."""

from __future__ import annotations

from typing import Any

from apiserver.admission.plugins import resources as res
from minikube_py.api.quantity import Quantity, parse_quantity
from minikube_py.api.scheme import ResourceType

LEGACY_COUNTS = frozenset(
    {
        "pods",
        "services",
        "replicationcontrollers",
        "resourcequotas",
        "secrets",
        "configmaps",
        "persistentvolumeclaims",
    }
)
POD_COMPUTE = ("cpu", "memory", "ephemeral-storage")
# Quota of these needs every container to say how much it wants (upstream's validationSet).
MUST_SPECIFY = frozenset({"cpu", "memory", "requests.cpu", "requests.memory", "limits.cpu", "limits.memory"})
ONE = parse_quantity("1")


def count_name(rt: ResourceType) -> str:
    return f"count/{rt.resource}" + (f".{rt.group}" if rt.group else "")


def tracked(rt: ResourceType, name: str) -> bool:
    """Whether quota resource ``name`` counts objects of ``rt``."""
    if name == count_name(rt) or (not rt.group and name == rt.resource and name in LEGACY_COUNTS):
        return True
    if (rt.group, rt.resource) != ("", "pods"):
        return False
    return name in _pod_names()


def _pod_names() -> set[str]:
    names = set()
    for resource in POD_COMPUTE:
        names |= {resource, f"requests.{resource}", f"limits.{resource}"}
    return names


def pod_counts(pod: dict[str, Any]) -> bool:
    """A finished pod no longer counts (upstream's ``QuotaV1Pod``)."""
    return (pod.get("status") or {}).get("phase") not in ("Succeeded", "Failed")


def compute(requests: res.Resources, limits: res.Resources) -> dict[str, Quantity]:
    out: dict[str, Quantity] = {}
    for resource in POD_COMPUTE:
        if resource in requests:
            out[resource] = out[f"requests.{resource}"] = requests[resource]
        if resource in limits:
            out[f"limits.{resource}"] = limits[resource]
    return out


def usage(rt: ResourceType, obj: dict[str, Any]) -> dict[str, Quantity]:
    """What ``obj`` counts, every resource it counts for."""
    out = {count_name(rt): ONE}
    if not rt.group and rt.resource in LEGACY_COUNTS:
        out[rt.resource] = ONE
    if (rt.group, rt.resource) == ("", "pods"):
        if not pod_counts(obj):
            return {}
        spec = obj.get("spec") or {}
        out.update(compute(res.pod_resources(spec, "requests"), res.pod_resources(spec, "limits")))
    return out


def missing(pod: dict[str, Any], required: set[str]) -> str | None:
    """Upstream's pod ``Constraints``: ``must specify limits.cpu for: a,b; requests.cpu for: a``."""
    wanted = required & MUST_SPECIFY
    lacking: dict[str, set[str]] = {}
    for container in res.containers(pod.get("spec") or {}):
        has = compute(
            res.container_resources(container, "requests"), res.container_resources(container, "limits")
        )
        for name in wanted - set(has):
            lacking.setdefault(name, set()).add(container.get("name", ""))
    if not lacking:
        return None
    return "must specify " + "; ".join(f"{n} for: {','.join(sorted(lacking[n]))}" for n in sorted(lacking))
