"""Which fields of an object its kind's model does not know, and where types are wrong.

Paths are upstream's (``sigs.k8s.io/json`` strict decoding): field names joined by ``.``, list
indexes as ``[i]``, map keys as ``.key`` (``spec.template.spec.containers[0].imagee``). Maps of
scalars (labels, annotations, ConfigMap data) and free-form objects are never looked into. Kinds
without a model have no unknown fields.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from pydantic import ValidationError

from minikube_py.api.models.base import K8sModel
from minikube_py.api.models.registry import model_for
from minikube_py.api.models.shapes import LEAF, ListOf, MapOf, Shape, fields_of


def unknown_fields(api_version: str, kind: str, obj: Mapping[str, Any]) -> list[str]:
    """Paths of the fields of ``obj`` that the model of ``kind`` does not define, in document
    order."""
    model = model_for(api_version, kind)
    return [] if model is None else unknown_fields_of(model, obj)


def unknown_fields_of(model: type[K8sModel], obj: Mapping[str, Any]) -> list[str]:
    """Paths of the fields of ``obj`` that ``model`` does not define, in document order."""
    return list(_unknown(model, obj, ""))


def _unknown(shape: Shape, value: Any, path: str) -> Iterator[str]:
    if isinstance(shape, ListOf):
        if shape.item is not LEAF and isinstance(value, list):
            for index, item in enumerate(value):
                yield from _unknown(shape.item, item, f"{path}[{index}]")
    elif isinstance(shape, MapOf):
        if shape.value is not LEAF and isinstance(value, dict):
            for key, item in value.items():
                yield from _unknown(shape.value, item, _join(path, key))
    elif shape is not LEAF and isinstance(value, dict):
        known = fields_of(shape)  # type: ignore[arg-type]
        for key, item in value.items():
            child = known.get(key)
            if child is None:
                yield _join(path, key)
            else:
                yield from _unknown(child, item, _join(path, key))


def _join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def type_errors(api_version: str, kind: str, obj: Mapping[str, Any]) -> list[str]:
    """``<path>: <problem>`` for every value of ``obj`` whose JSON type does not fit the model
    (a string where a list belongs, a malformed quantity...); empty for kinds without a model."""
    model = model_for(api_version, kind)
    if model is None:
        return []
    try:
        model.model_validate(obj)
    except ValidationError as err:
        found = {_loc_path(model, e["loc"]): e["msg"].removeprefix("Value error, ") for e in err.errors()}
        return [f"{path}: {message}" if path else message for path, message in found.items()]
    return []


def _loc_path(model: Shape, loc: Sequence[int | str]) -> str:
    """A pydantic error location as a field path; union member tags past a leaf are dropped."""
    path, shape = "", model
    for part in loc:
        if isinstance(shape, ListOf) and isinstance(part, int):
            path, shape = f"{path}[{part}]", shape.item
        elif isinstance(shape, MapOf):
            path, shape = _join(path, str(part)), shape.value
        elif isinstance(shape, type) and str(part) in fields_of(shape):
            path, shape = _join(path, str(part)), fields_of(shape)[str(part)]
        else:
            break
    return path
