"""Fields upstream's JSON always carries, even empty: ``fill`` adds them to an object being stored.

Upstream serializes Go structs: a field without ``omitempty`` is always written (``""``, ``0``,
``false``), and a non-pointer struct field is always written, as ``{}`` when empty (``omitempty``
does not apply to structs). Typed clients rely on both: the official Python client refuses a
NodeSystemInfo without ``kubeProxyVersion``, and kr8s' ``wait()`` or a typed ``status`` read
fails on a new Deployment that has no ``status`` yet.

Derived from the models, for every kind alike:

- the top-level ``spec`` and ``status`` of a kind whose model has them as objects (upstream's
  ``Spec``/``Status`` fields are non-pointer structs in every kind we serve) become ``{}`` when
  missing or null;
- inside ``status``, every object's ``required_fields`` (upstream's OpenAPI ``required``: the
  fields without ``omitempty``) that are strings, numbers or booleans get their zero value when
  missing. Lists (Go writes ``null`` for a nil slice) and timestamps (``null`` when zero) are
  left alone, as are ``spec`` fields, which validation requires on write.

The field tags (``tags.py``) carry the same Go facts (no ``"*"``, no ``omitempty``) but only for
the models that have a protobuf message; the status models this matters most for (Pod, Node,
ReplicaSet...) have none yet, so ``required_fields`` stays the source here. Once they are tagged,
"not a pointer and not omitempty" can replace ``required_fields`` for the zero values.
"""

from __future__ import annotations

import typing
from collections.abc import Callable
from functools import cache
from typing import Any

from minikube_py.api.models.base import K8sModel, SchemaRef
from minikube_py.api.models.registry import model_for
from minikube_py.api.models.shapes import strip

Fill = Callable[[Any], None]
_ZERO: dict[type, Any] = {str: "", bool: False, int: 0, float: 0}


def fill(api_version: str, kind: str, obj: dict[str, Any]) -> None:
    """Add to ``obj`` (in place) the empty fields upstream would serialize for ``kind``."""
    model = model_for(api_version, kind)
    if model is not None:
        for name, fill_status in _top_level(model):
            value = obj.get(name)
            if value is None:
                obj[name] = value = {}
            if fill_status is not None and isinstance(value, dict):
                fill_status(value)


@cache
def _top_level(model: type[K8sModel]) -> tuple[tuple[str, Fill | None], ...]:
    """The model's struct-typed ``spec``/``status`` fields, with the filler of status."""
    out = []
    for name in ("spec", "status"):
        info = model.model_fields.get(name)
        if info is None:
            continue
        base, _ = strip(info.annotation)
        if isinstance(base, type) and issubclass(base, K8sModel):
            out.append((name, _filler(base) if name == "status" else None))
    return tuple(out)


def _zero(annotation: Any) -> tuple[bool, Any]:
    """Whether a field of type ``annotation`` has a zero value to write, and that value."""
    base, metadata = strip(annotation)
    if any(isinstance(mark, SchemaRef) for mark in metadata):
        return False, None  # Time is null when zero; Quantity and IntOrString are never required
    if isinstance(base, type) and base in _ZERO:
        return True, _ZERO[base]
    return False, None


def _children(annotation: Any) -> Fill | None:
    """The filler of values of type ``annotation`` (objects, lists and maps of objects)."""
    base, _ = strip(annotation)
    origin = typing.get_origin(base)
    if origin in (list, dict):
        inner = _children(typing.get_args(base)[-1])
        if inner is None:
            return None
        if origin is list:

            def each_item(value: Any) -> None:
                if isinstance(value, list):
                    for item in value:
                        inner(item)

            return each_item

        def each_value(value: Any) -> None:
            if isinstance(value, dict):
                for item in value.values():
                    inner(item)

        return each_value
    if isinstance(base, type) and issubclass(base, K8sModel):
        return _filler(base)
    return None


@cache
def _filler(model: type[K8sModel]) -> Fill:
    """Fill ``model``'s zero-valued required scalars, then descend into its nested objects."""
    zeros: list[tuple[str, Any]] = []
    nested: list[tuple[str, Fill]] = []
    ready = False

    def prepare() -> None:
        nonlocal ready
        required = set(model.required_fields)
        for name, info in model.model_fields.items():
            key = info.alias or name
            has_zero, zero = _zero(info.annotation)
            if has_zero and key in required:
                zeros.append((key, zero))
            elif not has_zero and (child := _children(info.annotation)) is not None:
                nested.append((key, child))
        ready = True

    def fill_object(value: Any) -> None:
        if not isinstance(value, dict):
            return
        if not ready:
            prepare()  # late: models refer to each other recursively
        for key, zero in zeros:
            if value.get(key) is None:
                value[key] = zero
        for key, child in nested:
            item = value.get(key)
            if item is not None:
                child(item)

    return fill_object
