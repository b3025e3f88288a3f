"""Which fields of an object its kind's model does not know, and where types are wrong.

Paths are upstream's (``sigs.k8s.io/json`` strict decoding): field names joined by ``.``, list
indexes as ``[i]``, map keys as ``.key`` (``spec.template.spec.containers[0].imagee``). Maps of
scalars (labels, annotations, ConfigMap data) and free-form objects are never looked into. Kinds
without a model have no unknown fields.

``find_unknown`` walks an object once and returns each unknown field with the object holding it,
so ``prune`` drops them (what upstream's decoding into Go structs does) by deleting keys, with
no second walk. Paths are built only for the fields found: the walk itself allocates nothing for
known fields, which keeps it cheap on the create path.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError

from minikube_py.api.models.base import K8sModel
from minikube_py.api.models.registry import model_for
from minikube_py.api.models.shapes import LEAF, ListOf, MapOf, Shape, fields_of

Step = str | int
"""One step of a path: an object key, or a list index."""


@dataclass(slots=True)
class UnknownField:
    """A field the model does not define: ``parent[key]``, reached from the object's root by
    ``steps`` (the last step is ``key``)."""

    parent: dict[str, Any]
    key: str
    reversed_steps: list[Step]  # filled leaf first while the walk unwinds

    @property
    def steps(self) -> tuple[Step, ...]:
        return tuple(reversed(self.reversed_steps))

    @property
    def path(self) -> str:
        """The strict decoding path (``spec.containers[0].imagee``)."""
        out: list[str] = []
        for step in reversed(self.reversed_steps):
            out.append(f"[{step}]" if isinstance(step, int) else f".{step}" if out else step)
        return "".join(out)


def find_unknown(api_version: str, kind: str, obj: Mapping[str, Any]) -> list[UnknownField]:
    """The fields of ``obj`` that the model of ``kind`` does not define, in document order. An
    unknown field is never looked into, so no two of them nest."""
    model = model_for(api_version, kind)
    found: list[UnknownField] = []
    if model is not None and isinstance(obj, dict):
        _walk(model, obj, found)
    return found


def prune(found: Iterable[UnknownField]) -> None:
    """Delete the fields ``find_unknown`` found (a field already gone is skipped)."""
    for field in found:
        field.parent.pop(field.key, None)


def unknown_fields(api_version: str, kind: str, obj: Mapping[str, Any]) -> list[str]:
    """Paths of the fields of ``obj`` that the model of ``kind`` does not define, in document
    order."""
    return [field.path for field in find_unknown(api_version, kind, obj)]


def unknown_fields_of(model: type[K8sModel], obj: Mapping[str, Any]) -> list[str]:
    """Paths of the fields of ``obj`` that ``model`` does not define, in document order."""
    found: list[UnknownField] = []
    if isinstance(obj, dict):
        _walk(model, obj, found)
    return [field.path for field in found]


_NESTED = (dict, list)


def _walk(shape: Shape, value: dict[str, Any] | list[Any], found: list[UnknownField]) -> None:
    """Append the unknown fields under ``value`` (of ``shape``) to ``found``. Only objects and
    lists are descended into; on the way back up each step is added to the fields found below
    it (``_prefix``), so known fields cost no path."""
    if isinstance(value, dict):
        if isinstance(shape, type):
            known = fields_of(shape)
            for key, item in value.items():
                child = known.get(key)
                if child is None:
                    found.append(UnknownField(value, key, [key]))
                elif child is not LEAF and isinstance(item, _NESTED):
                    mark = len(found)
                    _walk(child, item, found)
                    if len(found) > mark:
                        _prefix(found, mark, key)
        elif isinstance(shape, MapOf) and shape.value is not LEAF:
            for key, item in value.items():
                if isinstance(item, _NESTED):
                    mark = len(found)
                    _walk(shape.value, item, found)
                    if len(found) > mark:
                        _prefix(found, mark, key)
    elif isinstance(shape, ListOf) and shape.item is not LEAF:
        for index, item in enumerate(value):
            if isinstance(item, _NESTED):
                mark = len(found)
                _walk(shape.item, item, found)
                if len(found) > mark:
                    _prefix(found, mark, index)


def _prefix(found: list[UnknownField], mark: int, step: Step) -> None:
    for field in found[mark:]:
        field.reversed_steps.append(step)


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


def _join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


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
