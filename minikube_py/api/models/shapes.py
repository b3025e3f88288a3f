"""The shape of a model's JSON, derived from its type annotations.

A shape is a model class (a JSON object with known keys), a ``ListOf`` or ``MapOf`` another
shape, or ``LEAF``: a scalar or anything else whose content is not checked. Maps of scalars
(labels) and free-form objects (``dict[str, Any]``) are both ``MapOf(LEAF)``. Field validation
walks objects along shapes; the OpenAPI generator reads the same annotations for the details
(formats, enums, named scalar types).
"""

from __future__ import annotations

import types
import typing
from collections.abc import Hashable
from dataclasses import dataclass
from functools import cache
from typing import Annotated, Any, TypeAlias, Union

from minikube_py.api.models.base import K8sModel


@dataclass(frozen=True, slots=True)
class ListOf:
    """A JSON array of ``item``."""

    item: Shape


@dataclass(frozen=True, slots=True)
class MapOf:
    """A JSON object with arbitrary keys and ``value`` values."""

    value: Shape


class _Leaf:
    def __repr__(self) -> str:
        return "LEAF"


LEAF = _Leaf()
Shape: TypeAlias = type[K8sModel] | ListOf | MapOf | _Leaf


def strip(annotation: Any) -> tuple[Any, list[Any]]:
    """``annotation`` without ``Annotated`` wrappers and ``None`` options, and the metadata of
    every ``Annotated`` met on the way (outermost first)."""
    metadata: list[Any] = []
    while True:
        origin = typing.get_origin(annotation)
        if origin is Annotated:
            annotation, *extra = typing.get_args(annotation)
            metadata.extend(extra)
        elif origin in (Union, types.UnionType):
            options = [a for a in typing.get_args(annotation) if a is not type(None)]
            if len(options) != 1:
                return annotation, metadata
            annotation = options[0]
        else:
            return annotation, metadata


def shape_of(annotation: Any) -> Shape:
    """The shape of values of type ``annotation``."""
    return _shape_of(annotation)


@cache
def _shape_of(annotation: Hashable) -> Shape:
    annotation, _ = strip(annotation)
    origin = typing.get_origin(annotation)
    if origin is list:
        return ListOf(shape_of(typing.get_args(annotation)[0]))
    if origin is dict:
        return MapOf(shape_of(typing.get_args(annotation)[1]))
    if isinstance(annotation, type) and issubclass(annotation, K8sModel):
        return annotation
    return LEAF


@cache
def fields_of(model: type[K8sModel]) -> dict[str, Shape]:
    """The JSON names of ``model``'s fields and their shapes."""
    return {info.alias or name: shape_of(info.annotation) for name, info in model.model_fields.items()}
