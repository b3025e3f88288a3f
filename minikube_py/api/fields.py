"""Field selectors as upstream (``k8s.io/apimachinery/pkg/fields``).

``metadata.name=web,status.phase!=Running``: terms ANDed by ``,``; operators ``=``, ``==``, ``!=``;
in values ``\\,``, ``\\=`` and ``\\\\`` escape a comma, an equals sign and a backslash. A missing field
reads as the empty string.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import NamedTuple

from minikube_py.api._label_requirement import SelectorError

__all__ = ["FieldRequirement", "FieldSelector", "SelectorError", "escape_value", "parse_field_selector"]

_OPERATORS = ("!=", "==", "=")  # "==" before "=" so that no "=" is left on the value


class FieldRequirement(NamedTuple):
    """One term: ``operator`` is ``=`` (``==`` is read as ``=``) or ``!=``; ``value`` unescaped."""

    field: str
    operator: str
    value: str

    def matches(self, fields: Mapping[str, str]) -> bool:
        """Whether the (possibly missing, hence empty) field has, or has not, the value."""
        equal = fields.get(self.field, "") == self.value
        return equal if self.operator == "=" else not equal

    def __str__(self) -> str:
        return f"{self.field}{self.operator}{escape_value(self.value)}"


@dataclass(frozen=True, slots=True)
class FieldSelector:
    """An AND of field requirements, in upstream's order (terms sorted as written)."""

    requirements: tuple[FieldRequirement, ...] = ()

    @property
    def empty(self) -> bool:
        """True when the selector does not restrict anything."""
        return not self.requirements

    def matches(self, fields: Mapping[str, str]) -> bool:
        """Whether every requirement holds for ``fields`` (e.g. ``{"metadata.name": "web"}``)."""
        return all(r.matches(fields) for r in self.requirements)

    def exact_match(self, field: str) -> str | None:
        """The value ``field=value`` requires (the first such term), for index lookups; else ``None``."""
        for r in self.requirements:
            if r.field == field and r.operator == "=":
                return r.value
        return None

    def __str__(self) -> str:
        return ",".join(str(r) for r in self.requirements)


def escape_value(value: str) -> str:
    """Upstream's ``EscapeValue``: backslash-escape ``\\``, ``,`` and ``=`` for use in a selector."""
    return value.replace("\\", "\\\\").replace(",", "\\,").replace("=", "\\=")


def unescape_value(value: str) -> str:
    """Upstream's ``UnescapeValue``; raises ``SelectorError`` on a bad escape or a bare ``,``/``=``."""
    out: list[str] = []
    escaping = False
    for ch in value:
        if escaping:
            if ch not in "\\,=":
                raise SelectorError(f"invalid field selector: invalid escape sequence: \\{ch}")
            out.append(ch)
            escaping = False
        elif ch == "\\":
            escaping = True
        elif ch in ",=":
            raise SelectorError(f"invalid field selector: unescaped character in value: {ord(ch)}")
        else:
            out.append(ch)
    if escaping:
        raise SelectorError("invalid field selector: invalid escape sequence: \\")
    return "".join(out)


def _split_terms(text: str) -> list[str]:
    """Split on commas that are not escaped (the backslash stays in the term)."""
    if not text:
        return []
    terms, start, escaping = [], 0, False
    for i, ch in enumerate(text):
        if escaping:
            escaping = False
        elif ch == "\\":
            escaping = True
        elif ch == ",":
            terms.append(text[start:i])
            start = i + 1
    terms.append(text[start:])
    return terms


def _split_term(term: str) -> tuple[str, str, str] | None:
    """``(field, operator, raw value)`` at the first operator; fields have no escaping."""
    for i in range(len(term)):
        for op in _OPERATORS:
            if term.startswith(op, i):
                return term[:i], op, term[i + len(op) :]
    return None


def parse_field_selector(text: str) -> FieldSelector:
    """Parse a field selector; raises ``SelectorError`` with upstream's message."""
    requirements: list[FieldRequirement] = []
    for part in sorted(_split_terms(text)):
        if not part:
            continue
        split = _split_term(part)
        if split is None:
            raise SelectorError(f"invalid selector: '{text}'; can't understand '{part}'")
        field, op, raw = split
        value = unescape_value(raw)
        if field or value:  # upstream drops a term whose field and value are both empty
            requirements.append(FieldRequirement(field, "!=" if op == "!=" else "=", value))
    return FieldSelector(tuple(requirements))
