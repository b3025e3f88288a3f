"""Merging lists with ``patchStrategy: merge``, and the order of the merged result.

Order follows upstream: items named by the patch (or by ``$setElementOrder``) take the
patch's relative order; items only the server has keep their live relative order and are
interleaved so each stays ahead of the first patch item that followed it in the live list.
A patch item the live list lacks has no live position, so it goes before the server-only
items still waiting: an item added without ``$setElementOrder`` lands first. (kubectl apply
always sends ``$setElementOrder``, which pins the order.)
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Any

from apiserver.patch import directives as d
from apiserver.patch.errors import PatchError, go_format, json_kind
from apiserver.patch.schema import Fields, List
from minikube_py.api.unstructured import Object as JSONMap

MapMerge = Callable[[JSONMap, JSONMap, Fields], JSONMap]
"""``merge(original, patch, schema)``: merge an object patch into an object the callee may modify."""
Identify = Callable[[Any], Hashable]

_PLAIN = object()


def merge_set(original: list[Any], patch: list[Any]) -> list[Any]:
    """Union of two primitive lists without duplicates, ordered as the module docstring says."""
    seen: set[Hashable] = set()
    merged = []
    for value in original + patch:
        if d.identity(value) not in seen:
            seen.add(d.identity(value))
            merged.append(value)
    return order_items(merged, patch, original, d.identity)


def delete_from_set(original: list[Any], values: Any) -> list[Any]:
    """``original`` without any of ``values`` (every duplicate goes)."""
    if not isinstance(values, list) or any(isinstance(v, dict | list) for v in values):
        raise PatchError(d.BAD_PRIMITIVE_LIST)
    doomed = {d.identity(value) for value in values}
    return [value for value in original if d.identity(value) not in doomed]


def merge_keyed(original: list[Any], patch: list[Any], schema: List, merge: MapMerge) -> list[Any]:
    """Merge a list of objects by ``schema.merge_key``, honouring ``$patch`` items.

    ``{"$patch": "delete", <key>: v}`` removes every live item with that key value;
    ``{"$patch": "replace"}`` makes the patch's other items the whole list. Other items merge
    into the first live item with the same key, or are added; then the list is ordered.
    """
    key = _merge_key(schema)
    survivors, items, replace = _apply_item_directives(original, patch, key)
    if replace:
        return [merge({}, item, schema.item) for item in items]
    merged = list(survivors)
    for item in items:
        _merge_item(merged, item, key, schema.item, merge)
    return order_items(merged, items, survivors, by_key(key))


def _merge_key(schema: List) -> str:
    if schema.merge_key is None:
        raise PatchError("cannot merge lists without merge key")
    return schema.merge_key


def _apply_item_directives(
    original: list[Any], patch: list[Any], key: str
) -> tuple[list[Any], list[JSONMap], bool]:
    """Apply ``$patch`` items; return (live items left, plain patch items, replace?)."""
    survivors, items, replace = original, [], False
    for item in patch:
        directive = item.get(d.PATCH, _PLAIN) if isinstance(item, dict) else _PLAIN
        if directive is _PLAIN:
            items.append(item)
        elif directive == d.DELETE:
            doomed = d.key_identity(item, key)
            survivors = [x for x in survivors if not _has_identity(x, key, doomed)]
        elif directive == d.REPLACE:
            replace = True
        elif directive == d.MERGE:
            raise PatchError(d.NO_MERGE_DIRECTIVE_IN_LIST)
        else:
            raise d.unknown_patch_type(directive, item)
    return survivors, items, replace


def _has_identity(item: Any, key: str, wanted: Hashable) -> bool:
    return isinstance(item, dict) and key in item and d.identity(item[key]) == wanted


def _merge_item(merged: list[Any], item: JSONMap, key: str, schema: Fields, merge: MapMerge) -> None:
    wanted = d.key_identity(item, key)
    for index, live in enumerate(merged):
        if _has_identity(live, key, wanted):
            merged[index] = merge(live, item, schema)
            return
    merged.append(merge({}, item, schema))


def element_kind(items: list[Any]) -> str:
    """The one JSON kind shared by all ``items``; mixed kinds and nested lists are errors."""
    kinds = {json_kind(item) for item in items}
    if "array" in kinds:
        raise PatchError(d.NO_LIST_OF_LISTS, code=422)
    if len(kinds) > 1:
        raise PatchError(f"list element types are not identical: {go_format(items)}")
    return kinds.pop() if kinds else "null"


def by_key(key: str) -> Identify:
    return lambda item: d.key_identity(item, key)


def order_items(merged: list[Any], order: list[Any], server_order: list[Any], ident: Identify) -> list[Any]:
    """Order ``merged``: items named in ``order`` first by that order, interleaved with the rest.

    The rest (server-only items) keep their relative order in ``server_order`` and each goes
    before the first ordered item that came after it in ``server_order``.
    """
    named = {ident(item) for item in order}
    ordered = _sort_by(order, [x for x in merged if ident(x) in named], ident)
    server_only = _sort_by(server_order, [x for x in merged if ident(x) not in named], ident)
    return _interleave(server_only, ordered, _positions(server_order, ident), ident)


def _positions(order: list[Any], ident: Identify) -> dict[Hashable, int]:
    positions: dict[Hashable, int] = {}
    for index, item in enumerate(order):
        positions.setdefault(ident(item), index)
    return positions


def _sort_by(order: list[Any], items: list[Any], ident: Identify) -> list[Any]:
    positions = _positions(order, ident)
    return sorted(items, key=lambda item: positions.get(ident(item), len(order)))


def _interleave(
    server_only: list[Any], ordered: list[Any], live: dict[Hashable, int], ident: Identify
) -> list[Any]:
    result: list[Any] = []
    i = j = 0
    while i < len(server_only) and j < len(ordered):
        left, right = live.get(ident(server_only[i])), live.get(ident(ordered[j]))
        if left is not None and right is not None and left < right:
            result.append(server_only[i])
            i += 1
        else:
            result.append(ordered[j])
            j += 1
    return result + server_only[i:] + ordered[j:]


def validate_element_order(changes: list[Any], order: list[Any], merge_key: str | None) -> None:
    """The patch's own items must appear in ``$setElementOrder`` and in the same relative order."""
    if not changes or not order:
        return
    ident = by_key(merge_key) if merge_key else d.identity
    items = [x for x in changes if not (isinstance(x, dict) and d.PATCH in x)]
    wanted = [ident(x) for x in order]
    position = 0
    for item in items:
        found = ident(item)
        while position < len(wanted) and wanted[position] != found:
            position += 1
        if position == len(wanted):
            raise PatchError(
                f"The order in patch list:\n{go_format(changes)}\n doesn't match "
                f"{d.SET_ELEMENT_ORDER} list:\n{go_format(order)}\n"
            )
        position += 1
