"""One label selector requirement (``key op values``), validated like upstream's ``NewRequirement``."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum

from minikube_py.api.field_errors import FieldError, aggregate_message, invalid, not_supported
from minikube_py.api.validation import is_qualified_name, is_valid_label_value


class SelectorError(ValueError):
    """A label or field selector that does not parse; the message is upstream's."""


class Operator(StrEnum):
    """Upstream's ``selection.Operator`` values."""

    IN = "in"
    NOT_IN = "notin"
    EQUALS = "="
    DOUBLE_EQUALS = "=="
    NOT_EQUALS = "!="
    GREATER_THAN = "gt"
    LESS_THAN = "lt"
    EXISTS = "exists"
    DOES_NOT_EXIST = "!"


BINARY_OPERATORS = ("in", "notin", "=", "==", "!=", "gt", "lt")
VALID_OPERATORS = (*BINARY_OPERATORS, "exists", "!")
_EXACT = (Operator.EQUALS, Operator.DOUBLE_EQUALS, Operator.NOT_EQUALS)
_INT64 = re.compile(r"[+-]?[0-9]+")
_SYMBOL = {
    Operator.EQUALS: "=",
    Operator.DOUBLE_EQUALS: "==",
    Operator.NOT_EQUALS: "!=",
    Operator.IN: " in ",
    Operator.NOT_IN: " notin ",
    Operator.GREATER_THAN: ">",
    Operator.LESS_THAN: "<",
}


def parse_int64(text: str) -> int | None:
    """Go's ``strconv.ParseInt(text, 10, 64)``: ``None`` when it would fail."""
    if not _INT64.fullmatch(text):
        return None
    number = int(text)
    return number if -(2**63) <= number < 2**63 else None


@dataclass(frozen=True, slots=True)
class Requirement:
    """``key operator values``; build it with ``new_requirement`` so it is validated."""

    key: str
    operator: Operator
    values: tuple[str, ...] = ()

    def matches(self, labels: Mapping[str, str]) -> bool:
        """Upstream's ``Requirement.Matches``; a missing key satisfies only ``notin``, ``!=`` and ``!``."""
        op, present = self.operator, self.key in labels
        if op in (Operator.IN, Operator.EQUALS, Operator.DOUBLE_EQUALS):
            return present and labels[self.key] in self.values
        if op in (Operator.NOT_IN, Operator.NOT_EQUALS):
            return not present or labels[self.key] not in self.values
        if op is Operator.EXISTS:
            return present
        if op is Operator.DOES_NOT_EXIST:
            return not present
        return present and self._compare(labels[self.key])

    def _compare(self, label_value: str) -> bool:
        have = parse_int64(label_value)
        want = parse_int64(self.values[0]) if len(self.values) == 1 else None
        if have is None or want is None:
            return False
        return have > want if self.operator is Operator.GREATER_THAN else have < want

    def __str__(self) -> str:
        if self.operator is Operator.DOES_NOT_EXIST:
            return "!" + self.key
        if self.operator is Operator.EXISTS:
            return self.key
        values = self.values[0] if len(self.values) == 1 else ",".join(sorted(self.values))
        if self.operator in (Operator.IN, Operator.NOT_IN):
            values = f"({values})"
        return self.key + _SYMBOL[self.operator] + values


def new_requirement(key: str, operator: str, values: Sequence[str] | None) -> Requirement:
    """Upstream's ``NewRequirement``: raises ``SelectorError`` with the aggregated field errors."""
    vals = list(values or ())
    errs = [invalid("key", key, "; ".join(msgs))] if (msgs := is_qualified_name(key)) else []
    errs += _operator_errors(operator, vals)
    for i, value in enumerate(vals):
        if msgs := is_valid_label_value(value):
            errs.append(invalid(f"values[{i}][{key}]", value, "; ".join(msgs)))
    if errs:
        raise SelectorError(aggregate_message(errs))
    return Requirement(key, Operator(operator), tuple(vals))


def _operator_errors(operator: str, vals: list[str]) -> list[FieldError]:
    bad = vals or None  # upstream hands over a nil slice, which prints as null
    if operator in (Operator.IN, Operator.NOT_IN):
        return (
            [] if vals else [invalid("values", bad, "for 'in', 'notin' operators, values set can't be empty")]
        )
    if operator in _EXACT:
        return (
            []
            if len(vals) == 1
            else [invalid("values", bad, "exact-match compatibility requires one single value")]
        )
    if operator in (Operator.EXISTS, Operator.DOES_NOT_EXIST):
        detail = "values set must be empty for exists and does not exist"
        return [invalid("values", bad, detail)] if vals else []
    if operator in (Operator.GREATER_THAN, Operator.LESS_THAN):
        errs = (
            []
            if len(vals) == 1
            else [invalid("values", bad, "for 'Gt', 'Lt' operators, exactly one value is required")]
        )
        detail = "for 'Gt', 'Lt' operators, the value must be an integer"
        return errs + [
            invalid(f"values[{i}]", v, detail) for i, v in enumerate(vals) if parse_int64(v) is None
        ]
    return [not_supported("operator", operator, VALID_OPERATORS)]
