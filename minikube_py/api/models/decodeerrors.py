"""A value that does not decode, and the message each upstream decoder gives for it.

``decoding`` walks an object along its kind's Go types and raises a ``Mismatch`` at the first
value that would not decode; this module owns that ``Mismatch``, the scalar kinds it names, and
its rendering in the words of each upstream decoder:

- ``json_message``: Go's ``encoding/json`` (``sigs.k8s.io/json``) as used for create, update and
  JSON/merge patches: ``json: cannot unmarshal string into Go struct field
  DeploymentSpec.spec.replicas of type int32``. The path is the dotted struct field names (list
  indexes and map keys are not in it), the struct the innermost one holding the field, and a
  number into a numeric field is quoted as written (``number 2.5``, ``number 2147483648``).
  Values with their own unmarshalers (quantities, int-or-strings, timestamps) report their
  unmarshaler's message, without path, as upstream does.
- ``unstructured_message``: the map -> struct converter used for strategic merge patches and the
  result of server-side apply (``cannot convert float64 to int32``).
- ``schema_message``: structured-merge-diff's scalar check of an apply configuration
  (``expected numeric (int or float), got string``), which looks at kinds only.

Deviation: upstream's converter silently wraps an out-of-range integer into an ``int32``
(2147483648 becomes -2147483648); we refuse it (``cannot convert int64 to int32``), since a
wrapped value is never what the client meant.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from typing import Any

# Scalar kinds of a leaf.
ANY, STRING, BOOL, INT32, INT64, FLOAT, QUANTITY, INTSTR, TIME, MICROTIME = range(10)
STRUCT, LIST, MAP = -1, -2, -3  # nested values, checked by their own checkers
NUMERIC = (INT32, INT64, FLOAT)

Step = str | int


@dataclass(slots=True)
class Mismatch(Exception):
    """A value that does not decode: ``value`` where a ``go_type`` (of ``kind``: a scalar kind,
    or ``STRUCT``, ``LIST``, ``MAP``) belongs. ``fatal`` is a custom unmarshaler's own message."""

    value: Any
    go_type: str
    kind: int = STRUCT
    fatal: str | None = None
    reversed_steps: list[Step] = field(default_factory=list)
    reversed_fields: list[str] = field(default_factory=list)
    struct: str = ""

    @property
    def steps(self) -> tuple[Step, ...]:
        """Keys and indexes from the object's root to the value."""
        return tuple(reversed(self.reversed_steps))

    def in_field(self, key: str, struct: str) -> None:
        """Record that the value is field ``key`` of a ``struct`` (the walk unwinds outwards)."""
        self.reversed_steps.append(key)
        self.reversed_fields.append(key)
        if not self.struct:
            self.struct = struct

    def json_message(self, raw: bytes | None = None) -> str:
        """Go's ``encoding/json`` error; ``raw`` (the body) gives numbers as written."""
        if self.fatal is not None:
            return self.fatal
        what = json_kind(self.value)
        if what == "number" and self.kind in NUMERIC:
            what = f"number {self._literal(raw)}"
        if self.struct or self.reversed_fields:
            where = f"Go struct field {self.struct}.{'.'.join(reversed(self.reversed_fields))}"
        else:
            where = "Go value"
        return f"json: cannot unmarshal {what} into {where} of type {self.go_type}"

    def unstructured_message(self) -> str:
        """The unstructured converter's error (``runtime.DefaultUnstructuredConverter``)."""
        if self.fatal is not None:
            return self.fatal
        source, target = _go_unstructured_type(self.value), self.go_type
        if self.kind < 0:
            noun = {STRUCT: "struct from:", LIST: "slice from", MAP: "map from"}[self.kind]
            return f"cannot restore {noun} {_go_kind(self.value)}"
        into_string = self.kind == STRING and type(self.value) is int
        if is_number(self.value) and (self.kind in NUMERIC or into_string):
            return f"cannot convert {source} to {target}"
        return f"unrecognized type: {target}"

    def schema_message(self) -> str | None:
        """structured-merge-diff's scalar check, or None when the value's kind fits (its check
        never looks at ranges, integrality or formats)."""
        value = self.value
        if self.kind in NUMERIC and not is_number(value):
            return f"expected numeric (int or float), got {_go_unstructured_type(value)}"
        if self.kind == STRING and not isinstance(value, str) and not isinstance(value, dict | list):
            return f"expected string, got &value.valueUnstructured{{Value:{go_value(value)}}}"
        if self.kind == BOOL and not isinstance(value, bool) and not isinstance(value, dict | list):
            return f"expected boolean, got &{{{go_value(value)}}}"
        return None

    def _literal(self, raw: bytes | None) -> str:
        if raw is not None:
            found = _raw_literal(raw, self.steps)
            if found is not None:
                return found
        return go_value(self.value)


# -- JSON values as Go names them ------------------------------------------------------------


def is_number(value: Any) -> bool:
    """A JSON number (Python's bool is an int, JSON's is not)."""
    return isinstance(value, int | float) and not isinstance(value, bool)


def json_kind(value: Any) -> str:
    """What ``encoding/json`` calls a JSON value in its errors: one ``number`` for integers and
    floats alike (the unstructured converter's names, below, tell them apart)."""
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, str):
        return "string"
    if isinstance(value, dict):
        return "object"
    if isinstance(value, list):
        return "array"
    return "number"


def _go_unstructured_type(value: Any) -> str:
    """The Go type of a value in an unstructured map (integers are int64, numbers float64)."""
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int64"
    if isinstance(value, float):
        return "float64"
    if isinstance(value, str):
        return "string"
    if isinstance(value, dict):
        return "map[string]interface {}"
    return "[]interface {}"


def _go_kind(value: Any) -> str:
    """``reflect.Kind`` of an unstructured value."""
    kind = _go_unstructured_type(value)
    return {"map[string]interface {}": "map", "[]interface {}": "slice"}.get(kind, kind)


def go_value(value: Any) -> str:
    """A scalar as Go prints it (``%v``): floats in their shortest form (``1e+308``)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        if math.isinf(value):
            return "+Inf" if value > 0 else "-Inf"
        text = repr(value)
        if "e" in text:
            mantissa, _, exponent = text.partition("e")
            sign, digits = exponent[0], exponent[1:].lstrip("0").rjust(2, "0")
            return f"{mantissa.removesuffix('.0')}e{sign}{digits}"
        return text.removesuffix(".0") if abs(value) < 1e21 else text
    return str(value)


class _Literal(str):
    """A number as written in the body."""


def _raw_literal(raw: bytes, steps: tuple[Step, ...]) -> str | None:
    """The text of the number at ``steps`` in the JSON document ``raw`` (error path only)."""
    try:
        value: Any = json.loads(raw, parse_float=_Literal, parse_int=_Literal)
        for step in steps:
            value = value[step]
    except (ValueError, KeyError, IndexError, TypeError, RecursionError):
        return None
    return str(value) if isinstance(value, _Literal) else None
