"""Comparing two objects member by member (structured-merge-diff's ``Compare``).

Members are those of ``fieldset.field_set``: leaves, associative-list items and set items.
Objects themselves are not members, so an object that appears or disappears is reported
through its leaves only (upstream also reports the object itself, e.g. ``f:labels: {".": {}}``
in an Update entry; ownership is the same either way). Duplicated list items compare as one
atomic value, as upstream.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from apiserver.patch import fieldpath as fp
from apiserver.patch.fieldpath import FieldSet, Path
from apiserver.patch.fieldset import ABSENT, is_empty, item_element, list_elements
from apiserver.patch.schema import Fields, List, Schema, fields_of
from minikube_py.api.unstructured import Object as JSONMap


@dataclass
class Comparison:
    """Members of the new object that are not in the old (added), are in both with different
    leaf values (modified), or are only in the old (removed)."""

    added: FieldSet = field(default_factory=set)
    modified: FieldSet = field(default_factory=set)
    removed: FieldSet = field(default_factory=set)

    def changed(self) -> FieldSet:
        return self.added | self.modified

    def excluding(self, ignored: Callable[[Path], bool]) -> Comparison:
        def keep(paths: FieldSet) -> FieldSet:
            return {path for path in paths if not ignored(path)}

        return Comparison(keep(self.added), keep(self.modified), keep(self.removed))


def compare(old: JSONMap, new: JSONMap, schema: Fields) -> Comparison:
    """What changed from ``old`` to ``new``, member by member (see ``Comparison``): list
    items that appear or disappear are members themselves, objects are not (module notes)."""
    out = Comparison()
    if not old:  # a create: every member of ``new`` is added (the walk below, specialised)
        _added_map(new, schema, (), out.added)
        return out
    _compare_maps(old, new, schema, (), out)
    return out


def _added_map(new: JSONMap, schema: Fields, path: Path, added: FieldSet) -> None:
    """``compare({}, new)`` members below ``path``: what ``_compare_maps`` reports against an
    absent old object, without the per-member shape and equality checks."""
    for name, value in new.items():
        here = (*path, fp.field(name))
        if isinstance(value, dict):
            if value:
                _added_map(value, fields_of(schema.child(name)), here, added)
            else:
                added.add(here)
        elif isinstance(value, list) and value:
            child = schema.child(name)
            if isinstance(child, List) and (elements := list_elements(value, child)) is not None:
                _added_list(value, elements, child, here, added)
            else:
                added.add(here)
        else:
            added.add(here)


def _added_list(items: list[Any], elements: list[str], schema: List, path: Path, added: FieldSet) -> None:
    counts: dict[str, int] = {}
    for element in elements:
        counts[element] = counts.get(element, 0) + 1
    for item, element in zip(items, elements, strict=True):
        here = (*path, element)
        added.add(here)
        if counts[element] == 1 and isinstance(item, dict) and item:
            _added_map(item, schema.item, here, added)


def _shape(value: Any, schema: Schema) -> str | None:
    if value is ABSENT:
        return None
    if isinstance(value, dict):
        return "map"
    if isinstance(value, list) and isinstance(schema, List) and list_elements(value, schema) is not None:
        return "list"
    return "leaf"


def _compare(old: Any, new: Any, schema: Schema, path: Path, out: Comparison) -> None:
    old_shape, new_shape = _shape(old, schema), _shape(new, schema)
    if old_shape and new_shape and old_shape != new_shape:
        _compare(old, ABSENT, schema, path, out)
        _compare(ABSENT, new, schema, path, out)
        return
    shape = old_shape or new_shape
    if (is_empty(old) and is_empty(new)) or shape == "leaf":
        _compare_leaf(old, new, path, out)
    elif shape == "map":
        _compare_maps(_oris_empty(old, {}), _oris_empty(new, {}), fields_of(schema), path, out)
    elif isinstance(schema, List):
        _compare_lists(_oris_empty(old, []), _oris_empty(new, []), schema, path, out)


def _oris_empty(value: Any, empty: Any) -> Any:
    return empty if value is ABSENT else value


def _compare_maps(old: JSONMap, new: JSONMap, schema: Fields, path: Path, out: Comparison) -> None:
    for name in [*old, *(k for k in new if k not in old)]:
        here = (*path, fp.field(name))
        _compare(old.get(name, ABSENT), new.get(name, ABSENT), schema.child(name), here, out)


def _compare_lists(old: list[Any], new: list[Any], schema: List, path: Path, out: Comparison) -> None:
    before, after = _group(old, schema), _group(new, schema)
    for element in [*before, *(e for e in after if e not in before)]:
        here = (*path, element)
        was, now = before.get(element, []), after.get(element, [])
        if len(was) > 1 or len(now) > 1:  # duplicates compare as one atomic value
            _compare_leaf(was or ABSENT, now or ABSENT, here, out)
            continue
        if not was:
            out.added.add(here)
        elif not now:
            out.removed.add(here)
        item_old, item_new = (was or [ABSENT])[0], (now or [ABSENT])[0]
        if isinstance(item_old, dict) or isinstance(item_new, dict):
            _compare_maps(_oris_empty(item_old, {}), _oris_empty(item_new, {}), schema.item, here, out)


def _group(items: list[Any], schema: List) -> dict[str, list[Any]]:
    groups: dict[str, list[Any]] = {}
    for item in items:
        element = item_element(item, schema)
        assert element is not None  # callers check list_elements first
        groups.setdefault(element, []).append(item)
    return groups


def _compare_leaf(old: Any, new: Any, path: Path, out: Comparison) -> None:
    if old is ABSENT and new is ABSENT:
        return
    if old is ABSENT:
        out.added.add(path)
    elif new is ABSENT:
        out.removed.add(path)
    elif not same(old, new):
        out.modified.add(path)


def same(a: Any, b: Any) -> bool:
    """JSON equality as Go sees it: ``1 == 1.0`` but ``true != 1``."""
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, int | float) and isinstance(b, int | float):
        return a == b
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    return type(a) is type(b) and a == b
