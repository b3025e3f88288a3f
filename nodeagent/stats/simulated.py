"""Simulated usage from pod annotations: the scripted CPU and memory of a demo.

A pod annotated ``minikube-py.io/simulated-cpu: "400m"`` (a CPU quantity) and/or
``minikube-py.io/simulated-memory: "128Mi"`` reports that usage for each of its containers in the
node's Summary (so in ``kubectl top``, the metrics.k8s.io API, the horizontal pod autoscaler and
the eviction manager), instead of what the runtime measured. The annotation is read on every
sample from the node agent's current copy of the pod, so ``kubectl annotate pod ... --overwrite``
(or a new value in a Deployment's template) changes the usage within one sample. A value that
does not parse is ignored (the measured usage is reported).
"""

from __future__ import annotations

from minikube_py.api.quantity import QuantityError, parse_quantity
from minikube_py.api.unstructured import Object

SIMULATED_CPU = "minikube-py.io/simulated-cpu"
SIMULATED_MEMORY = "minikube-py.io/simulated-memory"


def _quantity(annotations: dict[str, str], key: str, nano: bool) -> int | None:
    text = annotations.get(key)
    if text is None:
        return None
    try:
        value = parse_quantity(str(text))
    except QuantityError:
        return None
    if value.sign() < 0:
        return None
    return value.milli_value() * 1_000_000 if nano else value.value()


def simulated_usage(pod: Object | None) -> tuple[int | None, int | None]:
    """(CPU nanocores, memory bytes) per container that ``pod``'s annotations script, or None."""
    annotations = ((pod or {}).get("metadata") or {}).get("annotations") or {}
    return _quantity(annotations, SIMULATED_CPU, True), _quantity(annotations, SIMULATED_MEMORY, False)
