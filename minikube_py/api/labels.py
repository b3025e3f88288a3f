"""Label selectors as upstream (``k8s.io/apimachinery/pkg/labels`` and ``metav1.LabelSelector``).

``parse_label_selector("app=web,tier in (a,b),!legacy")`` and
``label_selector_as_selector({"matchLabels": ..., "matchExpressions": ...})`` both give a ``Selector``;
requirements are ANDed and kept sorted by key, so ``str()`` is canonical.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from minikube_py.api._label_parser import Parser
from minikube_py.api._label_requirement import Operator, Requirement, SelectorError, new_requirement
from minikube_py.api.field_errors import go_quote

__all__ = [
    "Operator",
    "Requirement",
    "Selector",
    "SelectorError",
    "label_selector_as_selector",
    "new_requirement",
    "parse_label_selector",
    "selector_from_set",
]

# metav1.LabelSelectorOperator -> selection.Operator
_EXPRESSION_OPERATORS = {
    "In": Operator.IN,
    "NotIn": Operator.NOT_IN,
    "Exists": Operator.EXISTS,
    "DoesNotExist": Operator.DOES_NOT_EXIST,
}


@dataclass(frozen=True, slots=True)
class Selector:
    """An AND of requirements. ``Selector()`` matches everything; ``Selector.nothing()`` matches nothing."""

    requirements: tuple[Requirement, ...] = ()
    selects_nothing: bool = False

    @classmethod
    def everything(cls) -> Selector:
        """The selector that matches every label set (what an empty string parses to)."""
        return cls()

    @classmethod
    def nothing(cls) -> Selector:
        """The selector that matches no label set (what a nil ``LabelSelector`` converts to)."""
        return cls(selects_nothing=True)

    @property
    def empty(self) -> bool:
        """True when the selector does not restrict anything (upstream's ``Empty()``)."""
        return not self.selects_nothing and not self.requirements

    def matches(self, labels: Mapping[str, str]) -> bool:
        """Whether every requirement holds for ``labels``."""
        if self.selects_nothing:
            return False
        return all(r.matches(labels) for r in self.requirements)

    def add(self, *requirements: Requirement) -> Selector:
        """A copy with more requirements (sorted by key, stably)."""
        if self.selects_nothing:
            return self
        merged = sorted((*self.requirements, *requirements), key=lambda r: r.key)
        return Selector(tuple(merged))

    def requires_exact_match(self, label: str) -> str | None:
        """The value ``label`` must have (``=``, ``==`` or a one-value ``in``) per its first requirement."""
        for r in self.requirements:
            if r.key == label:
                exact = r.operator in (Operator.EQUALS, Operator.DOUBLE_EQUALS, Operator.IN)
                return r.values[0] if exact and len(r.values) == 1 else None
        return None

    def __str__(self) -> str:
        return ",".join(str(r) for r in self.requirements)


def parse_label_selector(text: str) -> Selector:
    """Parse upstream's label selector syntax; raises ``SelectorError`` with upstream's message."""
    return Selector().add(*Parser(text).parse())


def selector_from_set(labels: Mapping[str, str]) -> Selector:
    """``key=value`` for every entry, unvalidated (upstream's ``SelectorFromValidatedSet``)."""
    return Selector().add(*(Requirement(k, Operator.EQUALS, (v,)) for k, v in labels.items()))


def label_selector_as_selector(selector: Mapping[str, Any] | None) -> Selector:
    """Convert a ``metav1.LabelSelector`` dict like upstream's ``LabelSelectorAsSelector``.

    ``None`` selects nothing; ``{}`` (no matchLabels, no matchExpressions) selects everything.
    """
    if selector is None:
        return Selector.nothing()
    match_labels = _mapping(selector.get("matchLabels"), "matchLabels")
    expressions = _sequence(selector.get("matchExpressions"), "matchExpressions")
    requirements = [new_requirement(k, Operator.EQUALS, [_text(v)]) for k, v in sorted(match_labels.items())]
    requirements += [_expression(_mapping(e, "matchExpressions[]")) for e in expressions]
    return Selector().add(*requirements)


def _expression(expr: Mapping[str, Any]) -> Requirement:
    operator = expr.get("operator", "")
    if operator not in _EXPRESSION_OPERATORS:
        raise SelectorError(f"{go_quote(str(operator))} is not a valid label selector operator")
    values = [_text(v) for v in _sequence(expr.get("values"), "values")]
    return new_requirement(_text(expr.get("key", "")), _EXPRESSION_OPERATORS[operator], values)


def _mapping(value: Any, what: str) -> Mapping[str, Any]:
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise SelectorError(f"{what} must be an object")
    return value


def _sequence(value: Any, what: str) -> Sequence[Any]:
    if value is None:
        return []
    if not isinstance(value, list | tuple):
        raise SelectorError(f"{what} must be a list")
    return value


def _text(value: Any) -> str:
    if not isinstance(value, str):
        raise SelectorError(f"expected a string, got {type(value).__name__}")
    return value
