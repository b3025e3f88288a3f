"""Which pods a scale-down removes first (upstream's ``ActivePodsWithRanks``).

Order, first deleted first:
1. unassigned (no ``spec.nodeName``) before assigned;
2. phase Pending before Unknown before Running;
3. not ready before ready;
4. lower ``controller.kubernetes.io/pod-deletion-cost`` before higher;
5. higher rank (more related pods on the same node) before lower;
6. both ready: ready more recently first (times compared in log2 buckets of their age, as
   upstream's LogarithmicScaleDown; equal buckets fall back to the uid);
7. more container restarts first;
8. created more recently first (same log2 buckets).
"""

from __future__ import annotations

import functools
import math
from collections import Counter
from collections.abc import Sequence

from controllers.podcontrol.pods import is_pod_ready, max_container_restarts, pod_ready_condition
from minikube_py.api.timestamps import parse_rfc3339 as parse_time
from minikube_py.api.unstructured import Object

DELETION_COST_ANNOTATION = "controller.kubernetes.io/pod-deletion-cost"
_PHASE_ORDINAL = {"Pending": 0, "Unknown": 1, "Running": 2}


def rank_pods_by_related_on_same_node(pods: Sequence[Object], related: Sequence[Object]) -> list[int]:
    """For each pod, how many of ``related`` (active pods of sibling sets) share its node."""
    per_node = Counter(
        (p.get("spec") or {}).get("nodeName") for p in related if (p.get("spec") or {}).get("nodeName")
    )
    return [per_node.get((p.get("spec") or {}).get("nodeName"), 0) for p in pods]


def sort_pods_for_deletion(pods: Sequence[Object], ranks: Sequence[int], now: float) -> list[Object]:
    """``pods`` in deletion order (ranks parallel to ``pods``)."""
    ranked = list(zip(pods, ranks, strict=True))
    compare = functools.partial(_compare, now=now)
    return [pod for pod, _ in sorted(ranked, key=functools.cmp_to_key(compare))]


def _compare(a: tuple[Object, int], b: tuple[Object, int], now: float) -> int:
    for key in (_node_key, _phase_key, _ready_key, _cost_key):
        ka, kb = key(a[0]), key(b[0])
        if ka != kb:
            return -1 if ka < kb else 1
    if a[1] != b[1]:
        return -1 if a[1] > b[1] else 1
    if is_pod_ready(a[0]) and is_pod_ready(b[0]):
        result = _compare_times(a[0], b[0], _ready_time(a[0]), _ready_time(b[0]), now)
        if result:
            return result
    ra, rb = max_container_restarts(a[0]), max_container_restarts(b[0])
    if ra != rb:
        return -1 if ra > rb else 1
    created_a = parse_time(a[0]["metadata"].get("creationTimestamp"))
    created_b = parse_time(b[0]["metadata"].get("creationTimestamp"))
    return _compare_times(a[0], b[0], created_a, created_b, now)


def _node_key(pod: Object) -> int:
    return 1 if (pod.get("spec") or {}).get("nodeName") else 0


def _phase_key(pod: Object) -> int:
    return _PHASE_ORDINAL.get((pod.get("status") or {}).get("phase") or "", 0)


def _ready_key(pod: Object) -> int:
    return 1 if is_pod_ready(pod) else 0


def _cost_key(pod: Object) -> int:
    value = (pod["metadata"].get("annotations") or {}).get(DELETION_COST_ANNOTATION)
    try:
        return int(value) if value is not None else 0
    except ValueError:
        return 0


def _ready_time(pod: Object) -> float | None:
    return parse_time((pod_ready_condition(pod) or {}).get("lastTransitionTime"))


def _compare_times(a: Object, b: Object, ta: float | None, tb: float | None, now: float) -> int:
    """Newer (or unknown) time first; -1 when ``a`` goes first, 0 when undecided."""
    if ta == tb:
        return 0
    if ta is None or tb is None:
        return -1 if ta is None else 1
    diff = _log_rank(now - ta) - _log_rank(now - tb)
    if diff == 0:
        ua, ub = a["metadata"].get("uid", ""), b["metadata"].get("uid", "")
        return 0 if ua == ub else (-1 if ua < ub else 1)
    return -1 if diff < 0 else 1


def _log_rank(age_seconds: float) -> int:
    nanos = age_seconds * 1e9
    return int(math.log2(nanos)) if nanos > 0 else -1
