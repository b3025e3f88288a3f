"""The ``FieldsV1`` a create records for its manager, built in one walk of the new object.

A create is an ``Update`` against nothing: the creator owns every member of the object
(``compare({}, new).added``), except what nobody owns (``STRIPPED``) and what the resource
resets (the status). ``fieldpath.to_fields_v1(compare(...).added)`` computes the same tree
through a set of path tuples; creates are the hottest write, so this walk renders the tree
directly (sorted keys, ``"."`` on list items that have children) and must stay equal to it
(``tests/patch/test_createdfields.py`` checks both against each other).
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from apiserver.patch import fieldpath as fp
from apiserver.patch.fieldset import list_elements
from apiserver.patch.schema import Fields, List, fields_of

Tree = dict[str, Any]

_MEMBER_WITH_CHILDREN = fp.SELF


def created_fields_v1(
    obj: dict[str, Any], schema: Fields, ignored_top: Collection[str], unowned_meta: Collection[str]
) -> Tree:
    """The ``FieldsV1`` tree owned by the creator of ``obj``.

    ``ignored_top`` names top-level fields nobody owns through this write (``apiVersion``,
    ``kind``, the status); ``unowned_meta`` names the metadata fields nobody owns (``name``,
    ``uid``, ...). An empty tree means the creator owns nothing."""
    tree: Tree = {}
    for name in sorted(obj):
        if name in ignored_top:
            continue
        value = obj[name]
        if name == "metadata" and isinstance(value, dict):
            kept = {k: v for k, v in value.items() if k not in unowned_meta}
            if kept:
                tree[fp.FIELD + name] = _map(kept, fields_of(schema.child(name)))
            continue
        tree[fp.FIELD + name] = _value(value, schema, name)
    return tree


def _map(obj: dict[str, Any], schema: Fields) -> Tree:
    return {fp.FIELD + name: _value(obj[name], schema, name) for name in sorted(obj)}


def _value(value: Any, parent: Fields, name: str) -> Tree:
    if isinstance(value, dict):
        return _map(value, fields_of(parent.child(name))) if value else {}
    if isinstance(value, list) and value:
        child = parent.child(name)
        if isinstance(child, List) and (elements := list_elements(value, child)) is not None:
            return _list(value, elements, child)
    return {}


def _list(items: list[Any], elements: list[str], schema: List) -> Tree:
    counts: dict[str, int] = {}
    for element in elements:
        counts[element] = counts.get(element, 0) + 1
    out: Tree = {}
    for item, element in zip(items, elements, strict=True):
        if counts[element] == 1 and isinstance(item, dict) and item:
            out[element] = {_MEMBER_WITH_CHILDREN: {}, **_map(item, schema.item)}
        else:
            out[element] = {}
    return {element: out[element] for element in sorted(out)}
