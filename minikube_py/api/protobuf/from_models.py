"""Build the decoder's ``Message`` descriptions from the models' field tags (``models/tags.py``).

A model with tags is a message of the same name: each tagged field with a number becomes a ``Field``
in the model's field order (Go's struct order, which is the JSON key order), its shape and element
type derived from the annotation (``list[...]`` repeated, ``dict[str, ...]`` a map, ``dict[str,
list[...]]`` a map of wrapped lists, ``"*"`` a pointer; see ``tags.py`` for the element types). A
model declared ``inline=N`` embeds its base model's message at number N, placed before the first of
its own fields numbered above N. A field without a tag in a model reached from a decodable kind is
a half-declared model and refused (``SchemaError``) when the registry is built.
"""

from __future__ import annotations

import typing
from collections.abc import Iterable
from typing import Any

from minikube_py.api.models.base import Format, K8sModel, SchemaRef
from minikube_py.api.models.shapes import strip
from minikube_py.api.models.tags import Tag, tag_of
from minikube_py.api.protobuf.schema import SCALARS, SPECIALS, Field, Message, SchemaError, Shape

_FORMATS = {"int32": "int32", "int64": "int64", "byte": "bytes", "double": "float64"}
_REFS = {
    "Time": "Time",
    "MicroTime": "MicroTime",
    "Quantity": "Quantity",
    "IntOrString": "IntOrString",
    "FieldsV1": "RawJSON",
}
_PLAIN = {str: "string", bool: "bool", float: "float64"}


def message_name(model: type[K8sModel]) -> str:
    """The protobuf message a model describes: the model's class name."""
    return model.__name__


def element_type(annotation: Any) -> str | type[K8sModel]:
    """The protobuf element type of a (non-repeated) value of type ``annotation``: a scalar or
    special type name, or the model whose message it is."""
    base, metadata = strip(annotation)
    for mark in metadata:
        if isinstance(mark, Format) and mark.name in _FORMATS:
            return _FORMATS[mark.name]
        if isinstance(mark, SchemaRef) and mark.name.rpartition(".")[2] in _REFS:
            return _REFS[mark.name.rpartition(".")[2]]
    if isinstance(base, type) and issubclass(base, K8sModel):
        return base
    if typing.get_origin(base) is dict and typing.get_args(base)[1] is Any:
        return "RawJSON"  # a free-form object: runtime.RawExtension
    if base in _PLAIN:
        return _PLAIN[base]
    raise SchemaError(f"no protobuf type for {annotation!r}: use a marker type or tag(proto=...)")


def field_shape(annotation: Any, tag: Tag) -> tuple[Shape, str | type[K8sModel]]:
    """A tagged field's shape and element type (``tag.proto`` overrides the element type)."""
    base, _ = strip(annotation)
    origin, args = typing.get_origin(base), typing.get_args(base)
    shape, element = (Shape.POINTER if tag.pointer else Shape.SINGLE), annotation
    if origin is list:
        shape, element = Shape.LIST, args[0]
    elif origin is dict and args[1] is not Any:
        value, _ = strip(args[1])
        if typing.get_origin(value) is list:
            shape, element = Shape.MAP_OF_LISTS, typing.get_args(value)[0]
        else:
            shape, element = Shape.MAP, args[1]
    if tag.pointer and shape is not Shape.POINTER:
        raise SchemaError(f'a {shape.value} field cannot be a pointer: drop the "*" flag')
    if isinstance(tag.proto, str):
        return shape, tag.proto
    if tag.proto is not None:
        if not issubclass(tag.proto, K8sModel):
            raise SchemaError(f"tag(proto={tag.proto!r}) is neither a type name nor a model")
        return shape, tag.proto
    return shape, element_type(element)


def _lower_camel(name: str) -> str:
    return name[:1].lower() + name[1:]


def _embedded(model: type[K8sModel]) -> type[K8sModel] | None:
    """The model ``model`` embeds inline (its first base), or None."""
    if model.embedded_at is None:
        return None
    base = model.__bases__[0]
    if not issubclass(base, K8sModel) or base is K8sModel:
        raise SchemaError(f"{model.__name__} is declared inline but does not subclass a model")
    return base


def message_of(model: type[K8sModel]) -> tuple[Message, list[type[K8sModel]]]:
    """The message ``model`` describes, and the models its message fields refer to."""
    name = message_name(model)
    embedded = _embedded(model)
    inherited = set(embedded.model_fields) if embedded is not None else set()
    fields: list[Field] = []
    refers: list[type[K8sModel]] = []
    for attr, info in model.model_fields.items():
        if attr in inherited:
            continue
        json = info.alias or attr
        tag = tag_of(info)
        if tag is None:
            raise SchemaError(f"{name}.{json} has no tag (a field of a protobuf message needs tag(...))")
        if tag.number is None:
            continue  # JSON only
        shape, element = field_shape(info.annotation, tag)
        if isinstance(element, type):
            refers.append(element)
            element = message_name(element)
        elif element not in SCALARS and element not in SPECIALS:
            raise SchemaError(f"{name}.{json}: unknown protobuf type {element!r}")
        fields.append(Field(tag.number, json, element, shape, tag.omitempty, tag.omitzero))
    if embedded is not None and model.embedded_at is not None:
        at = next((i for i, f in enumerate(fields) if f.number > model.embedded_at), len(fields))
        inline_name = model.embedded_name or _lower_camel(message_name(embedded))
        inline = Field(model.embedded_at, inline_name, message_name(embedded), inline=True)
        fields.insert(at, inline)
        refers.append(embedded)
    return _checked(name, fields), refers


def _checked(name: str, fields: list[Field]) -> Message:
    numbers = [f.number for f in fields]
    if len(set(numbers)) != len(numbers):
        raise SchemaError(f"message {name} repeats a field number")
    if not fields:
        raise SchemaError(f"message {name} has no fields")
    return Message(name, tuple(fields))


def build_registry_from_models(roots: Iterable[type[K8sModel]]) -> dict[str, Message]:
    """Every message reachable from ``roots``, by name; a name met twice must be one model."""
    registry: dict[str, Message] = {}
    models: dict[str, type[K8sModel]] = {}
    pending = list(roots)
    while pending:
        model = pending.pop()
        name = message_name(model)
        if name in models:
            if models[name] is not model:
                raise SchemaError(f"two models describe message {name}: {models[name]} and {model}")
            continue
        models[name] = model
        registry[name], refers = message_of(model)
        pending.extend(refers)
    return registry
