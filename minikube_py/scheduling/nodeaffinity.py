"""Node selectors compiled once per pod (upstream component-helpers ``nodeaffinity``), shared by
the scheduler's plugins and the DaemonSet controller.

A ``NodeSelectorTerm`` ANDs its ``matchExpressions`` (on node labels) and ``matchFields``
(only ``metadata.name``); a ``NodeSelector`` ORs its terms. A term that is empty or does
not parse (``In`` without values, ``Gt`` on a non-integer) matches nothing, like upstream's
lazy-error selector whose errors the scheduler ignores."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from minikube_py.api.unstructured import Object

_LABEL_OPS = ("In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt")


@dataclass(frozen=True, slots=True)
class _Requirement:
    key: str
    op: str
    values: frozenset[str]
    number: int = 0

    def matches(self, labels: Mapping[str, str]) -> bool:
        value = labels.get(self.key)
        op = self.op
        if op == "In":
            return value is not None and value in self.values
        if op == "NotIn":
            return value is None or value not in self.values
        if op == "Exists":
            return value is not None
        if op == "DoesNotExist":
            return value is None
        have = _int64(value) if value is not None else None
        if have is None:
            return False
        return have > self.number if op == "Gt" else have < self.number


@dataclass(frozen=True, slots=True)
class NodeSelectorTerm:
    expressions: tuple[_Requirement, ...]
    fields: tuple[_Requirement, ...]

    def matches(self, labels: Mapping[str, str], node_name: str) -> bool:
        for r in self.expressions:
            if not r.matches(labels):
                return False
        if self.fields:
            name = {"metadata.name": node_name}
            return all(r.matches(name) for r in self.fields)
        return True

    def required_node_names(self) -> frozenset[str] | None:
        """The node names this term is limited to by ``metadata.name In``, or None."""
        names: frozenset[str] | None = None
        for r in self.fields:
            if r.op == "In":
                names = r.values if names is None else names & r.values
        return names


def compile_term(term: Mapping[str, Any]) -> NodeSelectorTerm | None:
    """None when the term is empty or invalid (it then matches nothing)."""
    try:
        expressions = tuple(_label_requirement(e) for e in term.get("matchExpressions") or [])
        fields = tuple(_field_requirement(e) for e in term.get("matchFields") or [])
    except ValueError:
        return None
    if not expressions and not fields:
        return None
    return NodeSelectorTerm(expressions, fields)


def _label_requirement(expr: Mapping[str, Any]) -> _Requirement:
    op, key = expr.get("operator", ""), str(expr.get("key", ""))
    values = [str(v) for v in expr.get("values") or []]
    if op not in _LABEL_OPS:
        raise ValueError(f"{op!r} is not a valid node selector operator")
    if op in ("In", "NotIn") and not values:
        raise ValueError("values must be non-empty")
    if op in ("Exists", "DoesNotExist") and values:
        raise ValueError("values must be empty")
    number = 0
    if op in ("Gt", "Lt"):
        parsed = _int64(values[0]) if len(values) == 1 else None
        if parsed is None:
            raise ValueError("Gt/Lt need one integer value")
        number = parsed
    return _Requirement(key, op, frozenset(values), number)


def _field_requirement(expr: Mapping[str, Any]) -> _Requirement:
    op, key = expr.get("operator", ""), str(expr.get("key", ""))
    values = [str(v) for v in expr.get("values") or []]
    if key != "metadata.name" or op not in ("In", "NotIn") or len(values) != 1:
        raise ValueError(f"unsupported node field selector {key} {op}")
    return _Requirement(key, op, frozenset(values))


def _int64(text: str) -> int | None:
    try:
        number = int(text, 10)
    except ValueError:
        return None
    return number if -(2**63) <= number < 2**63 else None


@dataclass(frozen=True, slots=True)
class NodeSelector:
    """ORed terms; ``terms`` holds only the valid ones (so no terms matches nothing)."""

    terms: tuple[NodeSelectorTerm, ...]

    @classmethod
    def of(cls, selector: Mapping[str, Any]) -> NodeSelector:
        compiled = (compile_term(t) for t in selector.get("nodeSelectorTerms") or [])
        return cls(tuple(t for t in compiled if t is not None))

    def matches(self, labels: Mapping[str, str], node_name: str) -> bool:
        return any(t.matches(labels, node_name) for t in self.terms)


@dataclass(frozen=True, slots=True)
class RequiredNodeAffinity:
    """A pod's hard node constraints: ``spec.nodeSelector`` AND its required node affinity
    (upstream ``nodeaffinity.GetRequiredNodeAffinity``)."""

    node_selector: tuple[tuple[str, str], ...] = ()
    affinity: NodeSelector | None = None

    @classmethod
    def of(cls, pod: Object) -> RequiredNodeAffinity:
        spec = pod.get("spec") or {}
        selector = tuple((str(k), str(v)) for k, v in (spec.get("nodeSelector") or {}).items())
        node_affinity = (spec.get("affinity") or {}).get("nodeAffinity") or {}
        required = node_affinity.get("requiredDuringSchedulingIgnoredDuringExecution")
        return cls(selector, NodeSelector.of(required) if required is not None else None)

    @property
    def empty(self) -> bool:
        return not self.node_selector and self.affinity is None

    def matches(self, node: Object | None) -> bool:
        if node is None:
            return False
        meta = node.get("metadata") or {}
        labels: Mapping[str, str] = meta.get("labels") or {}
        for key, value in self.node_selector:
            if labels.get(key) != value:
                return False
        return self.affinity is None or self.affinity.matches(labels, str(meta.get("name", "")))


def node_labels(node: Object | None) -> Mapping[str, str]:
    if node is None:
        return {}
    labels: Mapping[str, str] = (node.get("metadata") or {}).get("labels") or {}
    return labels
