"""Spread constraints compiled once per pod, and the counting both sides share."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from minikube_py.api.labels import Operator, Requirement, Selector, label_selector_as_selector
from minikube_py.api.unstructured import Object
from scheduler.framework.types import PodInfo
from scheduler.plugins.helper.nodeselector import RequiredNodeAffinity
from scheduler.plugins.helper.taints import (
    DO_NOT_SCHEDULE_EFFECTS,
    Toleration,
    find_untolerated_taint,
    node_taints,
)

DO_NOT_SCHEDULE, SCHEDULE_ANYWAY = "DoNotSchedule", "ScheduleAnyway"
HOSTNAME, ZONE = "kubernetes.io/hostname", "topology.kubernetes.io/zone"
SYSTEM_DEFAULT_CONSTRAINTS: tuple[Mapping[str, Any], ...] = (
    {"topologyKey": HOSTNAME, "whenUnsatisfiable": SCHEDULE_ANYWAY, "maxSkew": 3},
    {"topologyKey": ZONE, "whenUnsatisfiable": SCHEDULE_ANYWAY, "maxSkew": 5},
)


@dataclass(frozen=True, slots=True)
class Constraint:
    max_skew: int
    topology_key: str
    selector: Selector
    min_domains: int = 1
    honor_node_affinity: bool = True
    honor_node_taints: bool = False
    matches: Callable[[Mapping[str, str]], bool] = field(init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "matches", fast_matcher(self.selector))

    def includes_node(
        self, node: Object | None, required: RequiredNodeAffinity, tolerations: Sequence[Toleration]
    ) -> bool:
        """The node inclusion policies: whether ``node`` counts as a domain member."""
        if self.honor_node_affinity and not required.matches(node):
            return False
        if self.honor_node_taints:
            return find_untolerated_taint(node_taints(node), tolerations, DO_NOT_SCHEDULE_EFFECTS) is None
        return True


def compile_constraints(
    raw: Sequence[Mapping[str, Any]], pod_labels: Mapping[str, str], action: str
) -> list[Constraint]:
    """The constraints with ``whenUnsatisfiable == action``; ``matchLabelKeys`` become ``key in
    (the pod's value)`` requirements. Raises ``SelectorError`` on a bad selector."""
    out = []
    for c in raw:
        if c.get("whenUnsatisfiable") != action:
            continue
        selector = label_selector_as_selector(c.get("labelSelector"))
        extra = [
            Requirement(key, Operator.IN, (pod_labels[key],))
            for key in c.get("matchLabelKeys") or []
            if key in pod_labels
        ]
        if extra:
            selector = selector.add(*extra)
        out.append(
            Constraint(
                int(c.get("maxSkew") or 1),
                str(c.get("topologyKey", "")),
                selector,
                int(c.get("minDomains") or 1),
                (c.get("nodeAffinityPolicy") or "Honor") == "Honor",
                (c.get("nodeTaintsPolicy") or "Ignore") == "Honor",
            )
        )
    return out


def default_selector(pod: Object) -> Selector | None:
    """What the pod's controller selects. Upstream asks the Services, ReplicationControllers,
    ReplicaSets and StatefulSets selecting the pod; this approximates it by the pod's own
    labels, for pods with a controller owner reference."""
    meta = pod.get("metadata") or {}
    owned = any(ref.get("controller") for ref in meta.get("ownerReferences") or [])
    labels = meta.get("labels") or {}
    if not owned or not labels:
        return None
    return Selector().add(*(Requirement(k, Operator.EQUALS, (v,)) for k, v in labels.items()))


def default_constraints(pod: Object, defaults: Sequence[Mapping[str, Any]], action: str) -> list[Constraint]:
    selector = default_selector(pod)
    if selector is None:
        return []
    return [
        Constraint(int(c.get("maxSkew") or 1), str(c.get("topologyKey", "")), selector)
        for c in defaults
        if c.get("whenUnsatisfiable") == action
    ]


def node_has_all_keys(labels: Mapping[str, str], constraints: Sequence[Constraint]) -> bool:
    return all(c.topology_key in labels for c in constraints)


def fast_matcher(selector: Selector) -> Callable[[Mapping[str, str]], bool]:
    """``selector.matches``, or a quicker equivalent when it is only ``=``/``in`` requirements
    (the common case: matchLabels, and the defaults built from pod labels)."""
    positive = (Operator.EQUALS, Operator.DOUBLE_EQUALS, Operator.IN)
    if selector.selects_nothing or not all(r.operator in positive for r in selector.requirements):
        return selector.matches
    wanted = tuple((r.key, frozenset(r.values)) for r in selector.requirements)

    def matches(labels: Mapping[str, str]) -> bool:
        for key, values in wanted:  # noqa: SIM110 (hot path: cheaper than all() over a generator)
            if labels.get(key) not in values:
                return False
        return True

    return matches


def count_matching(pods: Sequence[PodInfo], constraint: Constraint, namespace: str) -> int:
    """Pods in ``namespace``, not being deleted, whose labels the constraint's selector matches."""
    matches = constraint.matches
    count = 0
    for info in pods:
        meta = info.pod.get("metadata") or {}
        if meta.get("namespace") != namespace or meta.get("deletionTimestamp"):
            continue
        if matches(meta.get("labels") or {}):
            count += 1
    return count


def pod_labels(pod: Object) -> Mapping[str, str]:
    labels: Mapping[str, str] = (pod.get("metadata") or {}).get("labels") or {}
    return labels
