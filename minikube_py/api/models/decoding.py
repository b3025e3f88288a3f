"""Typed decoding: does an object's JSON fit its kind's Go types, as upstream's decoding needs?

Upstream decodes every body into Go structs: ``spec.replicas`` must be a JSON integer that fits
an ``int32``, a label value a string, ``immutable`` a boolean, a quantity a parsable quantity.
``check`` walks an object along a per-kind checker compiled once from the model's annotations
(the same annotations ``shapes`` reads for field validation) and returns the first value that
would not decode, as a ``Mismatch``. The walk allocates nothing for values that fit, so it is
cheap on the create path; unknown fields and ``null`` values are skipped (decoding ignores a
``null`` for a scalar, and unknown fields are field validation's business).

A ``Mismatch`` is rendered the way each upstream decoder reports it:

- ``json_message``: Go's ``encoding/json`` (``sigs.k8s.io/json``) as used for create, update and
  JSON/merge patches: ``json: cannot unmarshal string into Go struct field
  DeploymentSpec.spec.replicas of type int32``. The path is the dotted struct field names (list
  indexes and map keys are not in it), the struct the innermost one holding the field, and a
  number into a numeric field is quoted as written (``number 2.5``, ``number 2147483648``).
  Values with their own unmarshalers (quantities, int-or-strings, timestamps) report their
  unmarshaler's message, without path, as upstream does.
- ``unstructured_message``: the map -> struct converter used for strategic merge patches and the
  result of server-side apply (``cannot convert float64 to int32``). That converter accepts an
  integral float for an integer field; ``check(..., UNSTRUCTURED)`` rewrites such values as
  integers in place, so no float is ever stored where an integer belongs.
- ``schema_message``: structured-merge-diff's scalar check of an apply configuration
  (``expected numeric (int or float), got string``), which looks at kinds only.

Deviation: upstream's converter silently wraps an out-of-range integer into an ``int32``
(2147483648 becomes -2147483648); we refuse it (``cannot convert int64 to int32``), since a
wrapped value is never what the client meant.
"""

from __future__ import annotations

import json
import math
import sys
import typing
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache, lru_cache
from typing import Any

from minikube_py.api.models.base import Format, K8sModel, SchemaRef
from minikube_py.api.models.gotime import RFC3339, RFC3339_MICRO, parse_error
from minikube_py.api.models.registry import model_for
from minikube_py.api.models.shapes import strip
from minikube_py.api.quantity import QuantityError, parse_quantity

JSON, UNSTRUCTURED = "json", "unstructured"
"""Decoders: Go's encoding/json over the body's text; the converter from an unstructured map."""

# Scalar kinds of a leaf.
ANY, STRING, BOOL, INT32, INT64, FLOAT, QUANTITY, INTSTR, TIME, MICROTIME = range(10)
STRUCT, LIST, MAP = -1, -2, -3  # nested values, checked by their own checkers
_NUMERIC = (INT32, INT64, FLOAT)
_INT_RANGE = {INT32: (-(2**31), 2**31 - 1), INT64: (-(2**63), 2**63 - 1)}
_GO_SCALAR = {
    STRING: "string",
    BOOL: "bool",
    INT32: "int32",
    INT64: "int64",
    FLOAT: "float64",
    QUANTITY: "resource.Quantity",
    INTSTR: "intstr.IntOrString",
    TIME: "v1.Time",
    MICROTIME: "v1.MicroTime",
}
_NAMED = {"Quantity": QUANTITY, "IntOrString": INTSTR, "Time": TIME, "MicroTime": MICROTIME}
_QUANTITY_FORMAT = (
    "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"
)

Step = str | int
Check = Callable[[Any, str], None]


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

    def _in_field(self, key: str, struct: str) -> None:
        self.reversed_steps.append(key)
        self.reversed_fields.append(key)
        if not self.struct:
            self.struct = struct

    def json_message(self, raw: bytes | None = None) -> str:
        """Go's ``encoding/json`` error; ``raw`` (the body) gives numbers as written."""
        if self.fatal is not None:
            return self.fatal
        what = _json_kind(self.value)
        if what == "number" and self.kind in _NUMERIC:
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
        convertible = isinstance(self.value, int | float) and not isinstance(self.value, bool)
        if convertible and (self.kind in _NUMERIC or (self.kind == STRING and type(self.value) is int)):
            return f"cannot convert {source} to {target}"
        return f"unrecognized type: {target}"

    def schema_message(self) -> str | None:
        """structured-merge-diff's scalar check, or None when the value's kind fits (its check
        never looks at ranges, integrality or formats)."""
        value = self.value
        if self.kind in _NUMERIC and not _is_number(value):
            return f"expected numeric (int or float), got {_go_unstructured_type(value)}"
        if self.kind == STRING and not isinstance(value, str) and not isinstance(value, dict | list):
            return f"expected string, got &value.valueUnstructured{{Value:{_go_value(value)}}}"
        if self.kind == BOOL and not isinstance(value, bool) and not isinstance(value, dict | list):
            return f"expected boolean, got &{{{_go_value(value)}}}"
        return None

    def _literal(self, raw: bytes | None) -> str:
        if raw is not None:
            found = _raw_literal(raw, self.steps)
            if found is not None:
                return found
        return _go_value(self.value)


def check(api_version: str, kind: str, obj: Any, decoder: str = JSON) -> Mismatch | None:
    """The first value of ``obj`` (in document order) that does not decode into ``kind``'s Go
    types, or None (always None for kinds without a model)."""
    model = model_for(api_version, kind)
    if model is None:
        return None
    return check_model(model, obj, decoder)


def check_model(model: type[K8sModel], obj: Any, decoder: str = JSON) -> Mismatch | None:
    """``check`` against ``model``."""
    try:
        _compiled(model)(obj, decoder)
    except Mismatch as found:
        return found
    return None


# -- JSON values as Go names them ------------------------------------------------------------


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _json_kind(value: Any) -> str:
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


def _go_value(value: Any) -> str:
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


# -- the compiled checkers -------------------------------------------------------------------


def _leaf(annotation: Any) -> tuple[int, str]:
    """The scalar kind of a leaf annotation and its Go type name."""
    base, metadata = strip(annotation)
    for mark in metadata:
        if isinstance(mark, SchemaRef):
            found = _NAMED.get(mark.name.rsplit(".", 1)[-1], ANY)
            return found, _GO_SCALAR.get(found, "")
    formats = [mark.name for mark in metadata if isinstance(mark, Format)]
    if base is str:
        return STRING, "[]uint8" if "byte" in formats else "string"
    if base is bool:
        return BOOL, "bool"
    if base is int:
        kind = INT32 if "int32" in formats else INT64
        return kind, _GO_SCALAR[kind]
    if base is float:
        return FLOAT, "float64"
    return ANY, ""


def _go_struct_name(model: type[K8sModel]) -> str:
    package = str(vars(sys.modules[model.__module__]).get("OPENAPI_PACKAGE", "v1"))
    return f"{package.rsplit('.', 1)[-1]}.{model.__name__}"


@dataclass(frozen=True, slots=True)
class _Node:
    """How to check one value: a scalar ``kind`` checked inline, or a nested ``check``."""

    kind: int
    go_type: str
    check: Check | None = None


def _node(annotation: Any) -> _Node:
    base, _ = strip(annotation)
    origin = typing.get_origin(base)
    if origin is list:
        item = _node(typing.get_args(base)[0])
        return _Node(LIST, "[]" + item.go_type, _list_check("[]" + item.go_type, item, LIST))
    if origin is dict:
        value = _node(typing.get_args(base)[1])
        if value.kind == ANY and value.check is None:
            return _Node(ANY, "")  # free-form object: anything goes inside
        name = "v1.ResourceList" if value.kind == QUANTITY else "map[string]" + value.go_type
        return _Node(MAP, name, _map_check(name, value, MAP))
    if isinstance(base, type) and issubclass(base, K8sModel):
        return _Node(STRUCT, _go_struct_name(base), _compiled(base))
    kind, go_type = _leaf(annotation)
    return _Node(kind, go_type)


@cache
def _compiled(model: type[K8sModel]) -> Check:
    """The checker of ``model``'s objects (compiled once; recursive models resolve lazily)."""
    fields: dict[str, _Node] = {}
    go_type, struct = _go_struct_name(model), model.__name__

    def check_struct(value: Any, decoder: str) -> None:
        if type(value) is not dict:
            raise Mismatch(value, go_type)
        if not fields:
            _fill()
        for key, item in value.items():
            node = fields.get(key)
            if node is None or item is None:
                continue
            kind = node.kind  # the common kinds inline: this loop is the hot path
            if kind == STRING:
                if type(item) is str:
                    continue
            elif kind == ANY or (kind == BOOL and type(item) is bool):
                continue
            else:
                try:
                    if _fits(node, item, value, key, decoder):
                        continue
                except Mismatch as found:
                    found._in_field(key, struct)
                    raise
            wrong = _scalar_mismatch(node, item)
            wrong._in_field(key, struct)
            raise wrong

    def _fill() -> None:
        for name, info in model.model_fields.items():
            fields[info.alias or name] = _node(info.annotation)

    return check_struct


def _fits(node: _Node, item: Any, holder: Any, key: Any, decoder: str) -> bool:
    """Whether ``item`` (``holder[key]``) fits ``node``; nested checkers raise ``Mismatch``."""
    kind = node.kind
    if kind == STRING:
        return type(item) is str
    if kind in (INT32, INT64):
        low, high = _INT_RANGE[kind]
        if type(item) is int:
            return low <= item <= high
        if type(item) is float and decoder == UNSTRUCTURED and item.is_integer() and low <= item <= high:
            holder[key] = int(item)  # the converter makes an integer of it
            return True
        return False
    if kind == BOOL:
        return type(item) is bool
    if kind < 0:
        assert node.check is not None
        node.check(item, decoder)
        return True
    if kind == ANY:
        return True
    if kind == FLOAT:
        return (type(item) is float and math.isfinite(item)) or type(item) is int
    fatal = _custom_error(kind, item)
    if fatal is None:
        return True
    raise Mismatch(item, node.go_type, kind, fatal)


def _scalar_mismatch(node: _Node, item: Any) -> Mismatch:
    return Mismatch(item, node.go_type, node.kind)


@lru_cache(maxsize=4096)
def _quantity_error(text: str) -> str | None:
    """Cached: the same few quantities (``100m``, ``1Gi``) come in every pod."""
    try:
        parse_quantity(text)
    except QuantityError as err:
        return str(err)
    return None


@lru_cache(maxsize=4096)
def _time_error(layout: str, text: str) -> str | None:
    """Cached: objects repeat their timestamps (managedFields, conditions)."""
    return parse_error(layout, text)


def _custom_error(kind: int, item: Any) -> str | None:
    """The message of a custom unmarshaler refusing ``item``, or None when it decodes."""
    if kind == QUANTITY:
        if isinstance(item, str):
            return _quantity_error(item.strip())
        if _is_number(item):
            return _quantity_error(_go_value(item))
        return _QUANTITY_FORMAT
    if kind == INTSTR:
        if isinstance(item, str):
            return None
        if type(item) is int and -(2**31) <= item < 2**31:
            return None
        what = _json_kind(item)
        if what == "number":
            what = f"number {_go_value(item)}"
        return f"json: cannot unmarshal {what} into Go value of type int32"
    if kind in (TIME, MICROTIME):
        if not isinstance(item, str):
            return f"json: cannot unmarshal {_json_kind(item)} into Go value of type string"
        return _time_error(RFC3339 if kind == TIME else RFC3339_MICRO, item)
    return None


def _list_check(go_type: str, item: _Node, kind: int) -> Check:
    def check_list(value: Any, decoder: str) -> None:
        if type(value) is not list:
            raise Mismatch(value, go_type, kind)
        for index, element in enumerate(value):
            if element is None:
                continue
            try:
                if _fits(item, element, value, index, decoder):
                    continue
            except Mismatch as found:
                found.reversed_steps.append(index)
                raise
            wrong = _scalar_mismatch(item, element)
            wrong.reversed_steps.append(index)
            raise wrong

    return check_list


def _map_check(go_type: str, item: _Node, kind: int) -> Check:
    def check_map(value: Any, decoder: str) -> None:
        if type(value) is not dict:
            raise Mismatch(value, go_type, kind)
        for key, element in value.items():
            if element is None:
                continue
            try:
                if _fits(item, element, value, key, decoder):
                    continue
            except Mismatch as found:
                found.reversed_steps.append(key)
                raise
            wrong = _scalar_mismatch(item, element)
            wrong.reversed_steps.append(key)
            raise wrong

    return check_map
