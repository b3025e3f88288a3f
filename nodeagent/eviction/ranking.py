"""Which pod goes first, and what it is told (upstream ``eviction/helpers.go``).

Under memory pressure pods are ordered by: usage above requests first, then lower priority,
then the largest usage above requests (``rankMemoryPressure``); under disk pressure the same
with ephemeral storage (the pods' log files here). A pod without stats goes first, as upstream.
Critical pods (static and mirror pods, priority 2000000000 and up) are never evicted.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping, Sequence

from minikube_py.api.quantity import Quantity, QuantityError
from minikube_py.api.unstructured import Object
from nodeagent.eviction.thresholds import Observation, Threshold, binary_quantity
from nodeagent.stats.usage import PodUsage

Stats = Mapping[str, PodUsage]  # pod uid -> usage
Compare = Callable[[Object, Object], int]
SYSTEM_CRITICAL_PRIORITY = 2_000_000_000
CONFIG_SOURCE = "kubernetes.io/config.source"
CONFIG_MIRROR = "kubernetes.io/config.mirror"


def is_critical(pod: Object) -> bool:
    """Upstream ``IsCriticalPod``: static, mirror, or system-critical priority."""
    annotations = (pod.get("metadata") or {}).get("annotations") or {}
    static = annotations.get(CONFIG_SOURCE, "api") != "api" or CONFIG_MIRROR in annotations
    return static or _priority(pod) >= SYSTEM_CRITICAL_PRIORITY


def pod_request(pod: Object, resource: str) -> int:
    """Upstream ``podRequest``: the larger of the containers' sum and any init container's."""

    def request(container: Object) -> int:
        value = ((container.get("resources") or {}).get("requests") or {}).get(resource)
        try:
            return Quantity.parse(str(value)).value() if value is not None else 0
        except QuantityError:
            return 0

    spec = pod.get("spec") or {}
    containers = sum(request(c) for c in spec.get("containers") or [])
    init = max((request(c) for c in spec.get("initContainers") or []), default=0)
    return max(containers, init)


def usage(stats: PodUsage, resource: str) -> int:
    if resource == "memory":
        return stats.memory_working_set_bytes
    return stats.ephemeral_storage_bytes


def rank_pods(pods: Sequence[Object], stats: Stats, resource: str) -> list[Object]:
    """``pods`` in eviction order for ``resource`` (``memory`` or ``ephemeral-storage``)."""
    return sorted(pods, key=functools.cmp_to_key(_ordered(_exceeds(stats, resource), _by_priority,
                                                          _by_usage(stats, resource))))  # fmt: skip


def _ordered(*compares: Compare) -> Compare:
    def compare(a: Object, b: Object) -> int:
        return next((c for c in (cmp(a, b) for cmp in compares) if c), 0)

    return compare


def _cmp_bool(a: bool, b: bool) -> int:
    """True first (upstream ``cmpBool``)."""
    return 0 if a == b else (-1 if a else 1)


def _exceeds(stats: Stats, resource: str) -> Compare:
    def compare(a: Object, b: Object) -> int:
        sa, sb = stats.get(_uid(a)), stats.get(_uid(b))
        if sa is None or sb is None:
            return _cmp_bool(sa is None, sb is None)
        return _cmp_bool(usage(sa, resource) > pod_request(a, resource),
                         usage(sb, resource) > pod_request(b, resource))  # fmt: skip

    return compare


def _by_priority(a: Object, b: Object) -> int:
    return (_priority(a) > _priority(b)) - (_priority(a) < _priority(b))


def _by_usage(stats: Stats, resource: str) -> Compare:
    def compare(a: Object, b: Object) -> int:
        sa, sb = stats.get(_uid(a)), stats.get(_uid(b))
        if sa is None or sb is None:
            return _cmp_bool(sa is None, sb is None)
        above_a = usage(sa, resource) - pod_request(a, resource)
        above_b = usage(sb, resource) - pod_request(b, resource)
        return (above_b > above_a) - (above_b < above_a)  # the larger first

    return compare


def _priority(pod: Object) -> int:
    return int((pod.get("spec") or {}).get("priority") or 0)


def _uid(pod: Object) -> str:
    return str(pod["metadata"]["uid"])


def eviction_message(pod: Object, stats: PodUsage | None, threshold: Threshold, observed: Observation) -> str:
    """Upstream ``evictionMessage``, trailing space included."""
    resource = threshold.resource
    message = f"The node was low on resource: {resource}. "
    quantity = binary_quantity(threshold.value(observed.capacity))
    message += f"Threshold quantity: {quantity}, available: {binary_quantity(observed.available)}. "
    if stats is None:
        return message
    for container in (pod.get("spec") or {}).get("containers") or []:
        found = next((c for c in stats.containers if c.name == container["name"]), None)
        if found is None or resource != "memory":
            continue
        request = pod_request({"spec": {"containers": [container]}}, resource)
        if found.memory_working_set_bytes > request:
            message += (
                f"Container {container['name']} was using {binary_quantity(found.memory_working_set_bytes)}, "
                f"request is {binary_quantity(request)}, has larger consumption of {resource}. "
            )
    return message
