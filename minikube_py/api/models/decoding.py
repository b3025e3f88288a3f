"""Typed decoding: does an object's JSON fit its kind's Go types, as upstream's decoding needs?

Upstream decodes every body into Go structs: ``spec.replicas`` must be a JSON integer that fits
an ``int32``, a label value a string, ``immutable`` a boolean, a quantity a parsable quantity.
``check`` walks an object along a per-kind checker compiled once from the model's annotations
(the same annotations ``shapes`` reads for field validation) and returns the first value that
would not decode, as a ``Mismatch`` (``decodeerrors``, which renders it the way each upstream
decoder reports it). The walk allocates nothing for values that fit, so it is cheap on the
create path; unknown fields and ``null`` values are skipped (decoding ignores a ``null`` for a
scalar, and unknown fields are field validation's business).

Two decoders check alike but for one thing: the unstructured converter (strategic merge
patches, the result of server-side apply) accepts an integral float for an integer field;
``check(..., UNSTRUCTURED)`` rewrites such values as integers in place, so no float is ever
stored where an integer belongs.
"""

from __future__ import annotations

import math
import sys
import typing
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import cache, lru_cache
from typing import Any

from minikube_py.api.models.base import Format, K8sModel, SchemaRef
from minikube_py.api.models.decodeerrors import (
    ANY,
    BOOL,
    FLOAT,
    INT32,
    INT64,
    INTSTR,
    LIST,
    MAP,
    MICROTIME,
    QUANTITY,
    STRING,
    STRUCT,
    TIME,
    Mismatch,
    Step,
    go_value,
    is_number,
    json_kind,
)
from minikube_py.api.models.gotime import RFC3339, RFC3339_MICRO, parse_error
from minikube_py.api.models.registry import model_for
from minikube_py.api.models.shapes import strip
from minikube_py.api.quantity import QuantityError, parse_quantity

JSON, UNSTRUCTURED = "json", "unstructured"
"""Decoders: Go's encoding/json over the body's text; the converter from an unstructured map."""

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

Check = Callable[[Any, str], None]


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
        return _Node(LIST, "[]" + item.go_type, _entries_check("[]" + item.go_type, item, LIST))
    if origin is dict:
        value = _node(typing.get_args(base)[1])
        if value.kind == ANY and value.check is None:
            return _Node(ANY, "")  # free-form object: anything goes inside
        name = "v1.ResourceList" if value.kind == QUANTITY else "map[string]" + value.go_type
        return _Node(MAP, name, _entries_check(name, value, MAP))
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
                    found.in_field(key, struct)
                    raise
            wrong = _scalar_mismatch(node, item)
            wrong.in_field(key, struct)
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
        if is_number(item):
            return _quantity_error(go_value(item))
        return _QUANTITY_FORMAT
    if kind == INTSTR:
        if isinstance(item, str):
            return None
        if type(item) is int and -(2**31) <= item < 2**31:
            return None
        what = json_kind(item)
        if what == "number":
            what = f"number {go_value(item)}"
        return f"json: cannot unmarshal {what} into Go value of type int32"
    if kind in (TIME, MICROTIME):
        if not isinstance(item, str):
            return f"json: cannot unmarshal {json_kind(item)} into Go value of type string"
        return _time_error(RFC3339 if kind == TIME else RFC3339_MICRO, item)
    return None


def _entries_check(go_type: str, item: _Node, kind: int) -> Check:
    """The checker of a list (``kind`` LIST) or a map (MAP) of ``item``: the index or key of
    the entry that does not fit goes into the mismatch's path."""
    container: type = list if kind == LIST else dict
    entries: Callable[[Any], Iterable[tuple[Step, Any]]] = enumerate if kind == LIST else dict.items

    def check_entries(value: Any, decoder: str) -> None:
        if type(value) is not container:
            raise Mismatch(value, go_type, kind)
        for step, element in entries(value):
            if element is None:
                continue
            try:
                if _fits(item, element, value, step, decoder):
                    continue
            except Mismatch as found:
                found.reversed_steps.append(step)
                raise
            wrong = _scalar_mismatch(item, element)
            wrong.reversed_steps.append(step)
            raise wrong

    return check_entries
