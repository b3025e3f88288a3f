"""Schema-guided walks for server-side apply: naming list items, field sets, removal.

These are structured-merge-diff's ``ToFieldSet`` and ``RemoveItems`` (``compare.py`` has
``Compare``), driven by the strategic-merge ``PatchSchema`` (``schemas.py``) in place of an
OpenAPI schema:

- a ``List`` with a merge key is an associative list; its items are ``k:{"<key>":<value>}``;
- a ``List`` without one is a set of primitives; its items are ``v:<value>``;
- every other list is atomic (a leaf), and every object is a struct whose fields are ``f:``.

A list we cannot name item by item (an item without its merge key, an object in a set) is
treated as atomic when it comes from the live object, and refused when it comes from an
applied configuration (``strict``), as upstream refuses it.
"""

from __future__ import annotations

from typing import Any

from apiserver.patch import fieldpath as fp
from apiserver.patch.fieldpath import FieldSet, Path
from apiserver.patch.schema import Fields, List, Schema, fields_of
from minikube_py.api.unstructured import Object as JSONMap

ABSENT: Any = object()
"""A value that is not there (``None`` is JSON ``null``, a value)."""


class InvalidConfig(ValueError):
    """An applied configuration whose lists cannot be merged (upstream's typed-value errors)."""


# naming list items


def item_element(item: Any, schema: List) -> str | None:
    """The path element naming ``item`` in a list described by ``schema``, or None."""
    if schema.merge_key is None:
        return None if isinstance(item, dict | list) else fp.value(item)
    if not isinstance(item, dict):
        return None
    key = item.get(schema.merge_key)
    if key is None or isinstance(key, dict | list):
        return None
    return fp.key({schema.merge_key: key})


def list_elements(items: list[Any], schema: List) -> list[str] | None:
    """The element of every item, or None when one cannot be named (the list is atomic)."""
    elements = [item_element(item, schema) for item in items]
    named = [element for element in elements if element is not None]
    return named if len(named) == len(elements) else None


def _unnamed_reason(item: Any, schema: List) -> str:
    if schema.merge_key is None:
        kind = "map" if isinstance(item, dict) else "list"
        return f"associative list without keys has an element that's a {kind} type"
    if not isinstance(item, dict):
        return "associative list with keys may not have non-map elements"
    if item.get(schema.merge_key) is None:
        return (
            f'associative list with keys has an element that omits key field "{schema.merge_key}" '
            "(and doesn't have default value)"
        )
    return f'associative list with keys has an element whose key field "{schema.merge_key}" is not a scalar'


def strict_elements(items: list[Any], schema: List, path: Path) -> list[str]:
    """The elements of an applied list: every item named, no two alike, else ``InvalidConfig``."""
    elements: list[str] = []
    for index, item in enumerate(items):
        element = item_element(item, schema)
        if element is None:
            reason = _unnamed_reason(item, schema)
            raise InvalidConfig(f"{fp.path_string(path)}: element {index}: {reason}")
        if element in elements:
            where = fp.path_string(path)
            raise InvalidConfig(f"{where}: duplicate entries for key {fp.path_string((element,))}")
        elements.append(element)
    return elements


# ToFieldSet


def field_set(obj: JSONMap, schema: Fields, *, strict: bool = False) -> FieldSet:
    """The members of ``obj``: its leaves (scalars, atomic lists, empty objects, nulls) and
    the items of its associative lists and sets. ``strict`` raises ``InvalidConfig`` for lists
    that cannot be named item by item."""
    out: FieldSet = set()
    _map_fields(obj, schema, (), out, strict)
    return out


def _map_fields(obj: JSONMap, schema: Fields, path: Path, out: FieldSet, strict: bool) -> None:
    for name, value in obj.items():
        child, here = schema.child(name), (*path, fp.field(name))
        if isinstance(value, dict) and value:
            _map_fields(value, fields_of(child), here, out, strict)
        elif isinstance(value, list) and isinstance(child, List):
            _list_fields(value, child, here, out, strict)
        else:
            out.add(here)


def _list_fields(items: list[Any], schema: List, path: Path, out: FieldSet, strict: bool) -> None:
    elements = strict_elements(items, schema, path) if strict else list_elements(items, schema)
    if elements is None:
        out.add(path)
        return
    for item, element in zip(items, elements, strict=True):
        here = (*path, element)
        out.add(here)
        if isinstance(item, dict) and elements.count(element) == 1:
            _map_fields(item, schema.item, here, out, strict)


# RemoveItems


def is_empty(value: Any) -> bool:
    """Absent, or an empty object or list."""
    return value is ABSENT or (isinstance(value, dict | list) and not value)


def remove_paths(obj: JSONMap, doomed: FieldSet, schema: Fields) -> JSONMap:
    """``obj`` without the members in ``doomed`` (each with everything under it). An object
    or list emptied by the removal goes too, as upstream's typed values drop it."""
    prefixes = {path[:end] for path in doomed for end in range(1, len(path))}
    return _remove_map(obj, schema, (), doomed, prefixes)


def _remove_map(obj: JSONMap, schema: Fields, path: Path, doomed: FieldSet, prefixes: FieldSet) -> JSONMap:
    out: JSONMap = {}
    for name, value in obj.items():
        here = (*path, fp.field(name))
        if here in doomed:
            continue
        kept = _remove(value, schema.child(name), here, doomed, prefixes) if here in prefixes else value
        if not (is_empty(kept) and not is_empty(value)):
            out[name] = kept
    return out


def _remove(value: Any, schema: Schema, path: Path, doomed: FieldSet, prefixes: FieldSet) -> Any:
    if isinstance(value, dict):
        return _remove_map(value, fields_of(schema), path, doomed, prefixes)
    if not isinstance(value, list) or not isinstance(schema, List):
        return value
    elements = list_elements(value, schema)
    if elements is None:
        return value
    kept = []
    for item, element in zip(value, elements, strict=True):
        here = (*path, element)
        if here not in doomed:
            kept.append(_remove(item, schema.item, here, doomed, prefixes) if here in prefixes else item)
    return kept
