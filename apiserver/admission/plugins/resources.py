"""Pod resource arithmetic shared by LimitRanger and ResourceQuota: resource lists (name ->
quantity string) as ``Quantity`` maps, and a pod's effective requests and limits (the sum of
its containers, or its largest init container when that is larger, as upstream)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from minikube_py.api.quantity import Quantity, parse_quantity

Resources = dict[str, Quantity]


def parse(values: Mapping[str, Any] | None) -> Resources:
    return {name: parse_quantity(str(value)) for name, value in (values or {}).items()}


def render(values: Mapping[str, Quantity]) -> dict[str, str]:
    return {name: str(value) for name, value in values.items()}


def pretty(values: Mapping[str, Quantity]) -> str:
    """Upstream's ``prettyPrint``: ``name=value`` sorted by name, comma-separated."""
    return ",".join(f"{name}={values[name]}" for name in sorted(values))


def add(a: Mapping[str, Quantity], b: Mapping[str, Quantity]) -> Resources:
    out = dict(a)
    for name, value in b.items():
        out[name] = out[name] + value if name in out else value
    return out


def containers(spec: Mapping[str, Any], *, init: bool = True) -> Iterator[dict[str, Any]]:
    yield from spec.get("containers") or []
    if init:
        yield from spec.get("initContainers") or []


def container_resources(container: Mapping[str, Any], part: str) -> Resources:
    return parse((container.get("resources") or {}).get(part))


def pod_resources(spec: Mapping[str, Any], part: str) -> Resources:
    """``part`` (``requests`` or ``limits``) of the whole pod."""
    total: Resources = {}
    for container in spec.get("containers") or []:
        total = add(total, container_resources(container, part))
    for container in spec.get("initContainers") or []:
        for name, value in container_resources(container, part).items():
            if name not in total or total[name] < value:
                total[name] = value
    return total
