"""LimitRanger: the namespace's LimitRanges default and bound new pods' resources.

Mutating: each container without a limit (request) for a resource gets the ``Container``
item's ``default`` (``defaultRequest``), recorded in the pod annotation
``kubernetes.io/limit-ranger``. Validating: ``min``, ``max`` and ``maxLimitRequestRatio`` of
``Container`` items per container and of ``Pod`` items for the pod's totals, refused with
upstream's messages (403). Items are read with upstream's LimitRange defaulting applied
(``default`` from ``max``, ``defaultRequest`` from ``default`` then ``min``). Pod updates are
not checked: containers' resources cannot change."""

from __future__ import annotations

from typing import Any

from apiserver.admission.attributes import Attributes, Operation, forbidden
from apiserver.admission.interfaces import Plugin
from apiserver.admission.plugins import resources as res
from apiserver.lookup import Lookup
from minikube_py.api.quantity import Quantity
from minikube_py.api.unstructured import Object

NAME = "LimitRanger"
ANNOTATION = "kubernetes.io/limit-ranger"


def defaulted_item(item: Object) -> Object:
    """A LimitRange item with upstream's defaults (``SetDefaults_LimitRangeItem``)."""
    item = dict(item)
    if item.get("type") != "Container":
        return item
    default = dict(item.get("default") or {})
    request = dict(item.get("defaultRequest") or {})
    for name, value in (item.get("max") or {}).items():
        default.setdefault(name, value)
    for name, value in default.items():
        request.setdefault(name, value)
    for name, value in (item.get("min") or {}).items():
        request.setdefault(name, value)
    return {**item, "default": default, "defaultRequest": request}


def _merge(container: Object, defaults: Object, part: str, set_fields: list[str]) -> None:
    resources = container.setdefault("resources", {})
    current = dict(resources.get(part) or {})
    for name, value in defaults.items():
        if name not in current:
            current[name] = value
            set_fields.append(name)
    if current:
        resources[part] = current


def default_pod(pod: Object, item: Object) -> list[str]:
    """Fill containers' missing limits and requests from a ``Container`` item; the
    annotation fragments upstream records (``cpu, memory request for container web``)."""
    notes: list[str] = []
    spec = pod.get("spec") or {}
    for prefix, key in (("container", "containers"), ("init container", "initContainers")):
        for container in spec.get(key) or []:
            requests: list[str] = []
            limits: list[str] = []
            _merge(container, item.get("default") or {}, "limits", limits)
            _merge(container, item.get("defaultRequest") or {}, "requests", requests)
            for done, what in ((requests, "request"), (limits, "limit")):
                if done:
                    notes.append(f"{', '.join(sorted(done))} {what} for {prefix} {container.get('name', '')}")
    return notes


def _min(kind: str, name: str, bound: Quantity, requests: res.Resources, limits: res.Resources) -> str | None:
    if name not in requests:
        return f"minimum {name} usage per {kind} is {bound}.  No request is specified"
    if requests[name] < bound:
        return f"minimum {name} usage per {kind} is {bound}, but request is {requests[name]}"
    if name in limits and limits[name] < bound:
        return f"minimum {name} usage per {kind} is {bound}, but limit is {limits[name]}"
    return None


def _max(kind: str, name: str, bound: Quantity, requests: res.Resources, limits: res.Resources) -> str | None:
    if name not in limits:
        return f"maximum {name} usage per {kind} is {bound}.  No limit is specified"
    if bound < limits[name]:
        return f"maximum {name} usage per {kind} is {bound}, but limit is {limits[name]}"
    if name in requests and bound < requests[name]:
        return f"maximum {name} usage per {kind} is {bound}, but request is {requests[name]}"
    return None


def _ratio(
    kind: str, name: str, bound: Quantity, requests: res.Resources, limits: res.Resources
) -> str | None:
    prefix = f"{name} max limit to request ratio per {kind} is {bound}"
    if name not in requests or requests[name].is_zero():
        return f"{prefix}, but no request is specified or request is 0"
    if name not in limits or limits[name].is_zero():
        return f"{prefix}, but no limit is specified or limit is 0"
    ratio = limits[name].as_decimal() / requests[name].as_decimal()
    if ratio > bound.as_decimal():
        return f"{prefix}, but provided ratio is {float(ratio):f}"
    return None


def check(item: Object, kind: str, requests: res.Resources, limits: res.Resources) -> list[str]:
    found: list[str] = []
    for field, rule in (("min", _min), ("max", _max), ("maxLimitRequestRatio", _ratio)):
        bounds = res.parse(item.get(field))
        for name in sorted(bounds):
            problem = rule(kind, name, bounds[name], requests, limits)
            if problem:
                found.append(problem)
    return found


def validate_pod(pod: Object, item: Object) -> list[str]:
    spec = pod.get("spec") or {}
    if item.get("type") == "Container":
        found: list[str] = []
        for container in res.containers(spec):
            requests = res.container_resources(container, "requests")
            limits = res.container_resources(container, "limits")
            found += check(item, "Container", requests, limits)
        return found
    if item.get("type") == "Pod":
        return check(item, "Pod", res.pod_resources(spec, "requests"), res.pod_resources(spec, "limits"))
    return []


def aggregate(messages: list[str]) -> str:
    """Upstream's error aggregate: one message, or ``[a, b]`` (duplicates once)."""
    unique = list(dict.fromkeys(messages))
    return unique[0] if len(unique) == 1 else "[" + ", ".join(unique) + "]"


class LimitRanger(Plugin):
    name = NAME
    operations = frozenset({Operation.CREATE})  # pod updates cannot change resources

    def __init__(self, lookup: Lookup) -> None:
        super().__init__()
        self.lookup = lookup

    async def _ranges(self, namespace: str) -> list[list[Object]]:
        """Each LimitRange's items, defaulted, in name order."""
        ranges = await self.lookup.lister("", "v1", "limitranges").list(namespace, fresh=True)
        ranges.sort(key=lambda lr: lr["metadata"].get("name", ""))
        return [[defaulted_item(i) for i in (lr.get("spec") or {}).get("limits") or []] for lr in ranges]

    async def admit(self, attrs: Attributes) -> None:
        if not attrs.is_main("", "pods") or attrs.object is None:
            return
        notes: list[str] = []
        for items in await self._ranges(attrs.namespace):
            for item in items:
                if item.get("type") == "Container":
                    notes += default_pod(attrs.object, item)
        if notes:
            annotations: dict[str, Any] = attrs.object["metadata"].setdefault("annotations", {})
            annotations[ANNOTATION] = "LimitRanger plugin set: " + "; ".join(notes)

    async def validate(self, attrs: Attributes) -> None:
        if not attrs.is_main("", "pods") or attrs.object is None:
            return
        for items in await self._ranges(attrs.namespace):  # one aggregate error per LimitRange
            problems = [p for item in items for p in validate_pod(attrs.object, item)]
            if problems:
                raise forbidden(attrs, aggregate(problems))
