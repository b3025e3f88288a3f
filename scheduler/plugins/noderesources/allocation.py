"""The shared resource scoring (upstream ``resource_allocation.go`` and the three strategies
of ``NodeResourcesFit``): per scored resource, the node's allocatable and what would be
requested with the pod on it, folded into 0..100 by a strategy."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from scheduler.framework.types import (
    CPU,
    EPHEMERAL_STORAGE,
    MAX_NODE_SCORE,
    MEMORY,
    NodeInfo,
    Object,
    Resource,
    compute_pod_resource_request,
)
from scheduler.plugins.helper.normalize import go_div, go_round

ResourceSpec = tuple[str, int]  # (resource name, weight)
Scorer = Callable[[Sequence[int], Sequence[int]], int]  # (requested, allocatable) -> score

DEFAULT_RESOURCES: tuple[ResourceSpec, ...] = ((CPU, 1), (MEMORY, 1))
MAX_UTILIZATION = 100
MAX_CUSTOM_PRIORITY_SCORE = 10


def parse_resources(raw: Any) -> tuple[ResourceSpec, ...]:
    if not raw:
        return DEFAULT_RESOURCES
    return tuple((str(r["name"]), int(r.get("weight") or 1)) for r in raw)


def amount(resource: Resource, name: str) -> int:
    if name == CPU:
        return resource.milli_cpu
    if name == MEMORY:
        return resource.memory
    if name == EPHEMERAL_STORAGE:
        return resource.ephemeral_storage
    return resource.scalar.get(name, 0)


def pod_request_list(pod: Object, resources: Sequence[ResourceSpec], use_requested: bool) -> list[int]:
    """What the pod asks of each scored resource; cpu/memory default to upstream's non-zero
    values unless ``use_requested``."""
    request = compute_pod_resource_request(pod, non_zero=not use_requested)
    return [amount(request, name) for name, _ in resources]


def allocatable_and_requested(
    node_info: NodeInfo, name: str, pod_request: int, use_requested: bool
) -> tuple[int, int]:
    if pod_request == 0 and name not in (CPU, MEMORY, EPHEMERAL_STORAGE):
        return 0, 0  # an extended resource the pod does not ask for is not scored
    if name in (CPU, MEMORY):
        requested = node_info.requested if use_requested else node_info.non_zero_requested
        return amount(node_info.allocatable, name), amount(requested, name) + pod_request
    if name == EPHEMERAL_STORAGE:
        return node_info.allocatable.ephemeral_storage, node_info.requested.ephemeral_storage + pod_request
    if name in node_info.allocatable.scalar:
        return node_info.allocatable.scalar[name], node_info.requested.scalar.get(name, 0) + pod_request
    return 0, 0


def node_score(
    node_info: NodeInfo,
    pod_requests: Sequence[int],
    resources: Sequence[ResourceSpec],
    use_requested: bool,
    scorer: Scorer,
) -> int:
    requested = [0] * len(resources)
    allocatable = [0] * len(resources)
    for i, (name, _) in enumerate(resources):
        alloc, req = allocatable_and_requested(node_info, name, pod_requests[i], use_requested)
        if alloc:
            allocatable[i], requested[i] = alloc, req
    return scorer(requested, allocatable)


def _weighted(resources: Sequence[ResourceSpec], per_resource: Callable[[int, int], int]) -> Scorer:
    def score(requested: Sequence[int], allocatable: Sequence[int]) -> int:
        total = weights = 0
        for i, (_, weight) in enumerate(resources):
            if allocatable[i] == 0:
                continue
            total += per_resource(requested[i], allocatable[i]) * weight
            weights += weight
        return total // weights if weights else 0

    return score


def least_allocated(resources: Sequence[ResourceSpec]) -> Scorer:
    """Prefers emptier nodes: (capacity - requested) / capacity."""

    def per_resource(requested: int, capacity: int) -> int:
        if requested > capacity:
            return 0
        return (capacity - requested) * MAX_NODE_SCORE // capacity

    return _weighted(resources, per_resource)


def most_allocated(resources: Sequence[ResourceSpec]) -> Scorer:
    """Prefers fuller nodes (bin packing): requested / capacity."""

    def per_resource(requested: int, capacity: int) -> int:
        return min(requested, capacity) * MAX_NODE_SCORE // capacity

    return _weighted(resources, per_resource)


def broken_linear(shape: Sequence[tuple[int, int]]) -> Callable[[int], int]:
    """The piecewise-linear function through the (utilization, score) points."""

    def f(p: int) -> int:
        for i, (utilization, score) in enumerate(shape):
            if p <= utilization:
                if i == 0:
                    return score
                u0, s0 = shape[i - 1]
                return s0 + go_div((score - s0) * (p - u0), utilization - u0)
        return shape[-1][1]

    return f


def requested_to_capacity_ratio(resources: Sequence[ResourceSpec], raw_shape: Any) -> Scorer:
    """Scores utilization through a user shape (``utilization`` 0..100 -> ``score`` 0..10)."""
    scale = MAX_NODE_SCORE // MAX_CUSTOM_PRIORITY_SCORE
    shape = [(int(p.get("utilization", 0)), int(p.get("score", 0)) * scale) for p in raw_shape or []]
    if not shape:
        shape = [(0, 0), (100, MAX_NODE_SCORE)]
    raw = broken_linear(shape)

    def per_resource(requested: int, capacity: int) -> int:
        if capacity == 0 or requested > capacity:
            return raw(MAX_UTILIZATION)
        return raw(requested * MAX_UTILIZATION // capacity)

    def score(requested: Sequence[int], allocatable: Sequence[int]) -> int:
        total = weights = 0
        for i, (_, weight) in enumerate(resources):
            if allocatable[i] == 0:
                continue
            resource_score = per_resource(requested[i], allocatable[i])
            if resource_score > 0:
                total += resource_score * weight
                weights += weight
        return go_round(total / weights) if weights else 0

    return score


NodeScorer = Callable[[NodeInfo, Sequence[int]], int]  # (node, pod requests) -> score


def _cpu_memory_weights(resources: Sequence[ResourceSpec]) -> tuple[int, int] | None:
    """The (cpu, memory) weights when exactly cpu then memory are scored (the default)."""
    if len(resources) == 2 and resources[0][0] == CPU and resources[1][0] == MEMORY:
        return resources[0][1], resources[1][1]
    return None


def make_node_scorer(
    resources: Sequence[ResourceSpec], use_requested: bool, scorer: Scorer, kind: str = ""
) -> NodeScorer:
    """``node_score`` bound to its arguments; for ``kind`` ``least``/``most``/``balanced``
    over cpu and memory alone, an inlined equivalent giving identical results."""
    weights = _cpu_memory_weights(resources)
    if weights is None or kind not in ("least", "most", "balanced"):

        def generic(node_info: NodeInfo, pod_requests: Sequence[int]) -> int:
            return node_score(node_info, pod_requests, resources, use_requested, scorer)

        return generic
    w_cpu, w_mem = weights
    if kind == "balanced":
        return _balanced_cpu_memory(use_requested)
    most = kind == "most"

    def score(node_info: NodeInfo, pod_requests: Sequence[int]) -> int:
        used = node_info.requested if use_requested else node_info.non_zero_requested
        alloc = node_info.allocatable
        total = weight_sum = 0
        capacity = alloc.milli_cpu
        if capacity:
            requested = used.milli_cpu + pod_requests[0]
            if most:
                total = min(requested, capacity) * MAX_NODE_SCORE // capacity * w_cpu
            elif requested <= capacity:
                total = (capacity - requested) * MAX_NODE_SCORE // capacity * w_cpu
            weight_sum = w_cpu
        capacity = alloc.memory
        if capacity:
            requested = used.memory + pod_requests[1]
            if most:
                total += min(requested, capacity) * MAX_NODE_SCORE // capacity * w_mem
            elif requested <= capacity:
                total += (capacity - requested) * MAX_NODE_SCORE // capacity * w_mem
            weight_sum += w_mem
        return total // weight_sum if weight_sum else 0

    return score


def _balanced_cpu_memory(use_requested: bool) -> NodeScorer:
    """``balanced_score`` over cpu and memory: fewer than two fractions score the maximum."""

    def score(node_info: NodeInfo, pod_requests: Sequence[int]) -> int:
        alloc = node_info.allocatable
        cpu, memory = alloc.milli_cpu, alloc.memory
        if not (cpu and memory):
            return MAX_NODE_SCORE
        used = node_info.requested if use_requested else node_info.non_zero_requested
        f_cpu = (used.milli_cpu + pod_requests[0]) / cpu
        if f_cpu > 1.0:
            f_cpu = 1.0
        f_memory = (used.memory + pod_requests[1]) / memory
        if f_memory > 1.0:
            f_memory = 1.0
        std = abs((f_cpu - f_memory) / 2)
        return int((1 - std) * MAX_NODE_SCORE)

    return score
