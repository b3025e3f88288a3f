"""A pod's QoS class as upstream's ``qos.GetPodQOS`` computes it (``status.qosClass``).

Only cpu and memory count. ``BestEffort``: no container requests or limits either. ``Guaranteed``:
every container limits both, and the summed requests equal the summed limits. Else ``Burstable``.
"""

from __future__ import annotations

import functools

from minikube_py.api.quantity import Quantity, QuantityError
from minikube_py.api.unstructured import Object

_SUPPORTED = ("cpu", "memory")


def _quantity(value: object) -> Quantity | None:
    return _parse(str(value))


# Pods repeat the same few request and limit strings; the parsed values never leave this module
# (only compared and summed into new quantities), so sharing them is safe.
@functools.lru_cache(maxsize=1024)
def _parse(text: str) -> Quantity | None:
    try:
        return Quantity.parse(text)
    except QuantityError:
        return None


def _add_positive(totals: dict[str, Quantity], values: dict[str, object]) -> set[str]:
    """Add the positive cpu/memory quantities of ``values`` to ``totals``; return their names."""
    found = set()
    for name, raw in values.items():
        quantity = _quantity(raw)
        if name not in _SUPPORTED or quantity is None or quantity.sign() <= 0:
            continue
        totals[name] = totals[name] + quantity if name in totals else quantity
        found.add(name)
    return found


def pod_qos_class(spec: Object) -> str:
    """``BestEffort``, ``Burstable`` or ``Guaranteed`` for a (defaulted) pod spec."""
    requests: dict[str, Quantity] = {}
    limits: dict[str, Quantity] = {}
    guaranteed = True
    containers = [*(spec.get("containers") or []), *(spec.get("initContainers") or [])]
    for container in containers:
        resources = (container.get("resources") if isinstance(container, dict) else None) or {}
        _add_positive(requests, resources.get("requests") or {})
        if not set(_SUPPORTED) <= _add_positive(limits, resources.get("limits") or {}):
            guaranteed = False
    if not requests and not limits:
        return "BestEffort"
    equal = all(name in limits and limits[name] == req for name, req in requests.items())
    if guaranteed and equal and len(requests) == len(limits):
        return "Guaranteed"
    return "Burstable"
