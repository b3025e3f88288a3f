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
from apiserver.patch.schema import PLAIN, Fields, List

Tree = dict[str, Any]

_MEMBER_WITH_CHILDREN = fp.SELF
_FIELD = fp.FIELD


def created_fields_v1(
    obj: dict[str, Any], schema: Fields, ignored_top: Collection[str], unowned_meta: Collection[str]
) -> Tree:
    """The ``FieldsV1`` tree owned by the creator of ``obj``.

    ``ignored_top`` names top-level fields nobody owns through this write (``apiVersion``,
    ``kind``, the status); ``unowned_meta`` names the metadata fields nobody owns (``name``,
    ``uid``, ...). An empty tree means the creator owns nothing."""
    top = {name: value for name, value in obj.items() if name not in ignored_top}
    meta = top.get("metadata")
    if isinstance(meta, dict):
        kept = {k: v for k, v in meta.items() if k not in unowned_meta}
        if kept:
            top["metadata"] = kept
        else:
            del top["metadata"]
    return _map(top, schema)


# One function per node kind, types checked with ``type(...) is`` (decoded JSON has no
# subclasses): this walk runs on every create, so it avoids calls per leaf.
def _map(obj: dict[str, Any], schema: Fields) -> Tree:
    out: Tree = {}
    declared = schema.fields
    for name in sorted(obj):
        value = obj[name]
        kind = type(value)
        if kind is dict and value:
            child = declared.get(name, PLAIN) if declared else PLAIN
            out[_FIELD + name] = _map(value, child if type(child) is Fields else PLAIN)
        elif kind is list and value and declared:
            listed = declared.get(name)
            if type(listed) is List and (elements := list_elements(value, listed)) is not None:
                out[_FIELD + name] = _list(value, elements, listed)
            else:
                out[_FIELD + name] = {}
        else:
            out[_FIELD + name] = {}
    return out


def _list(items: list[Any], elements: list[str], schema: List) -> Tree:
    unique = len(set(elements)) == len(elements)
    counts = {} if unique else {e: elements.count(e) for e in elements}
    out: Tree = {}
    for item, element in zip(items, elements, strict=True):
        if (unique or counts[element] == 1) and type(item) is dict and item:
            out[element] = {_MEMBER_WITH_CHILDREN: {}, **_map(item, schema.item)}
        else:
            out[element] = {}
    return out if len(out) < 2 else {element: out[element] for element in sorted(out)}
