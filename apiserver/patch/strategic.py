"""Strategic merge patch (``application/strategic-merge-patch+json``), applied server side.

Semantics are upstream's ``StrategicMergeMapPatch`` (k8s.io/apimachinery strategicpatch),
driven by a ``PatchSchema`` in place of Go struct tags:

- Objects merge key by key. ``null`` deletes a key; a value of a different type replaces.
- A list the schema declares merging (``List``) merges item by item on its merge key, or as a
  set of primitives; every other list is replaced whole. See ``listmerge`` for the order.
- Directives (``directives``): ``$patch: replace|delete`` on objects and merging-list items,
  ``$retainKeys``, ``$setElementOrder/<field>`` and ``$deleteFromPrimitiveList/<field>``.
  ``$patch: delete`` on a live object leaves ``{}``, as upstream does.

Every error is ``PatchError`` 400, except a list of lists (422), following upstream's
``interpretStrategicMergePatchError``. Upstream lets some of these (a missing merge key, an
unknown ``$patch`` value, a ``$setElementOrder`` that contradicts the patch) escape as
unclassified errors, which it serves as 500; we answer 400 because the patch is at fault.

Deliberate differences, all on input kubectl never sends: a value added where the live
object has none is cleaned of directives recursively (upstream stores nested
``$setElementOrder`` keys verbatim and drops a new ``{"$patch": "replace", ...}`` object
entirely; we keep its content), and a new merging list is merged into ``[]``, so its items
need their merge key and a new primitive set loses duplicates.
"""

from __future__ import annotations

from typing import Any

from apiserver.patch import directives as d
from apiserver.patch.errors import PatchError
from apiserver.patch.listmerge import (
    by_key,
    delete_from_set,
    element_kind,
    merge_keyed,
    merge_set,
    order_items,
    validate_element_order,
)
from apiserver.patch.schema import PLAIN, Fields, List, PatchSchema, Schema, fields_of
from minikube_py import jsonutil
from minikube_py.api.unstructured import Object as JSONMap

_ABSENT = object()


def apply_strategic_merge_patch(doc: JSONMap, patch: JSONMap, schema: PatchSchema) -> JSONMap:
    """Return ``doc`` with the strategic merge ``patch`` applied, per ``schema``.

    ``doc`` is the live object and ``patch`` the decoded request body; neither is mutated and
    the result shares no structure with them. Raises ``PatchError``.
    """
    if not isinstance(doc, dict) or not isinstance(patch, dict):
        raise PatchError(d.BAD_JSON_DOC)
    return merge_map(jsonutil.clone(doc), jsonutil.clone(patch), schema)


def merge_map(original: JSONMap, patch: JSONMap, schema: Fields) -> JSONMap:
    """Merge object ``patch`` into ``original``; both belong to the caller and are consumed."""
    if d.PATCH in patch:
        return _apply_map_directive(patch, schema)
    _retain_keys(original, patch)
    for key in [k for k in patch if k.startswith(d.SET_ELEMENT_ORDER)]:
        _set_element_order(original, patch, key, schema)
    deletions = {k: patch.pop(k) for k in [k for k in patch if k.startswith(d.DELETE_FROM_PRIMITIVE_LIST)]}
    for key, value in patch.items():
        _merge_field(original, key, value, schema.child(key))
    for key, values in deletions.items():
        _delete_from_primitive_list(original, d.directive_field(key, d.DELETE_FROM_PRIMITIVE_LIST), values)
    return original


def merge_list(original: list[Any], patch: list[Any], schema: Schema) -> list[Any]:
    """Merge list ``patch`` into ``original`` if ``schema`` says it merges, else replace it."""
    if not isinstance(schema, List):
        return _materialize_list(patch)
    if not original and not patch:
        return original
    if element_kind(original + patch) == "object":
        return merge_keyed(original, patch, schema, merge_map)
    if schema.merge_key is not None:
        raise d.no_merge_key((original + patch)[0], schema.merge_key)
    return merge_set(original, patch)


def _apply_map_directive(patch: JSONMap, schema: Fields) -> JSONMap:
    directive = patch[d.PATCH]
    if directive == d.DELETE:
        return {}
    if directive != d.REPLACE:
        raise d.unknown_patch_type(directive, patch)
    return merge_map({}, {k: v for k, v in patch.items() if k != d.PATCH}, schema)


def _merge_field(original: JSONMap, key: str, value: Any, schema: Schema) -> None:
    current = original.get(key)
    if value is None:
        original.pop(key, None)
    elif isinstance(current, dict) and isinstance(value, dict):
        original[key] = merge_map(current, value, fields_of(schema))
    elif isinstance(current, list) and isinstance(value, list):
        original[key] = merge_list(current, value, schema)
    else:
        fresh = _materialize(value, schema)
        if fresh is _ABSENT:
            original.pop(key, None)
        else:
            original[key] = fresh


def _materialize(value: Any, schema: Schema) -> Any:
    """``value`` as it should be stored where nothing was: directives applied, nulls dropped.

    An object that is only ``{"$patch": "delete"}`` yields ``_ABSENT``.
    """
    if isinstance(value, dict):
        if value.get(d.PATCH) == d.DELETE:
            return _ABSENT
        return merge_map({}, value, fields_of(schema))
    if isinstance(value, list):
        return merge_list([], value, schema)
    return value


def _materialize_list(items: list[Any]) -> list[Any]:
    """A replaced (non-merging) list, minus ``$patch`` items (as upstream drops them)."""
    kept = []
    for item in items:
        if isinstance(item, dict) and d.PATCH in item:
            if item[d.PATCH] not in (d.DELETE, d.REPLACE):
                raise d.unknown_patch_type(item[d.PATCH], item)
            continue
        kept.append(_materialize(item, PLAIN))
    return kept


def _retain_keys(original: JSONMap, patch: JSONMap) -> None:
    """``$retainKeys``: drop live fields not listed; the patch may only set listed fields."""
    if d.RETAIN_KEYS not in patch:
        return
    keep = patch.pop(d.RETAIN_KEYS)
    if not isinstance(keep, list):
        raise PatchError(d.BAD_RETAIN_KEYS)
    for key, value in patch.items():
        if value is not None and not d.is_parallel_list_key(key) and key not in keep:
            raise PatchError(d.BAD_RETAIN_KEYS)
    for key in [k for k in original if k not in keep]:
        del original[key]


def _set_element_order(original: JSONMap, patch: JSONMap, key: str, schema: Fields) -> None:
    """``$setElementOrder/<field>``: merge the field's list now and impose the given order.

    Ignored for a field the schema does not declare merging: such lists are replaced whole,
    so the patch's own list already carries its order.
    """
    order, name = patch.pop(key), d.directive_field(key, d.SET_ELEMENT_ORDER)
    field = schema.child(name)
    if not isinstance(order, list):
        raise PatchError(d.BAD_SET_ELEMENT_ORDER)
    if not isinstance(field, List):
        return
    live = _ordered_list(original.get(name, _ABSENT), null_ok=True)
    changes = _ordered_list(patch.pop(name, _ABSENT), null_ok=False)
    validate_element_order(changes or [], order, field.merge_key)
    if live is None and changes is None:
        return
    merged = merge_list(live or [], changes or [], field)
    ident = by_key(field.merge_key) if field.merge_key else d.identity
    original[name] = order_items(merged, order, live or [], ident)


def _ordered_list(value: Any, *, null_ok: bool) -> list[Any] | None:
    """The list a ``$setElementOrder`` applies to, or None if there is none."""
    if value is _ABSENT or (value is None and null_ok):
        return None
    if not isinstance(value, list):
        raise PatchError(d.BAD_SET_ELEMENT_ORDER)
    return value


def _delete_from_primitive_list(original: JSONMap, name: str, values: Any) -> None:
    """``$deleteFromPrimitiveList/<field>``: remove values, whatever the field's strategy."""
    current = original.get(name)
    remaining = delete_from_set(current if isinstance(current, list) else [], values)
    if isinstance(current, list):
        original[name] = remaining
