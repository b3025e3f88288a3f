"""The strategic merge patch directive vocabulary, its upstream error messages, and identity.

Directives are keys a patch carries next to real fields:

- ``$patch``: ``replace`` or ``delete``, on an object or on an item of a merging list. (Upstream
  reserves ``merge`` for struct tags; in a patch it is an error, as is any other value.)
- ``$retainKeys: [names]``: clear every field of the live object not named.
- ``$setElementOrder/<field>: [items]``: the final relative order of a merging list.
- ``$deleteFromPrimitiveList/<field>: [values]``: remove values from a primitive list.
"""

from __future__ import annotations

import json
from collections.abc import Hashable
from typing import Any

from apiserver.patch.errors import PatchError, go_format, json_kind

PATCH = "$patch"
REPLACE = "replace"
DELETE = "delete"
MERGE = "merge"
RETAIN_KEYS = "$retainKeys"
SET_ELEMENT_ORDER = "$setElementOrder"
DELETE_FROM_PRIMITIVE_LIST = "$deleteFromPrimitiveList"

# Upstream's sentinel messages (k8s.io/apimachinery/pkg/util/mergepatch/errors.go).
BAD_JSON_DOC = "invalid JSON document"
NO_LIST_OF_LISTS = "lists of lists are not supported"
BAD_PRIMITIVE_LIST = "invalid patch format of primitive list"
BAD_RETAIN_KEYS = "invalid patch format of retainKeys"
BAD_SET_ELEMENT_ORDER = "invalid patch format of setElementOrder list"
NO_MERGE_DIRECTIVE_IN_LIST = "merging lists cannot yet be specified in the patch"

_BAD_FORMAT = {SET_ELEMENT_ORDER: BAD_SET_ELEMENT_ORDER, DELETE_FROM_PRIMITIVE_LIST: BAD_PRIMITIVE_LIST}


def directive_field(key: str, prefix: str) -> str:
    """The field a ``<prefix>/<field>`` key refers to; a malformed key is a 400."""
    head, slash, name = key.partition("/")
    if head != prefix or not slash or not name:
        raise PatchError(_BAD_FORMAT[prefix])
    return name


def is_parallel_list_key(key: str) -> bool:
    """Whether ``key`` is a ``$setElementOrder/…`` or ``$deleteFromPrimitiveList/…`` key."""
    return key.startswith((SET_ELEMENT_ORDER, DELETE_FROM_PRIMITIVE_LIST))


def unknown_patch_type(value: Any, owner: dict[str, Any]) -> PatchError:
    return PatchError(f"unknown patch type: {go_format(value)} in map: {go_format(owner)}")


def no_merge_key(item: Any, merge_key: str) -> PatchError:
    if not isinstance(item, dict):
        return PatchError(f"expected a map[string]interface {{}}, but received a {json_kind(item)}")
    return PatchError(f"map: {go_format(item)} does not contain declared merge key: {merge_key}")


def identity(value: Any) -> Hashable:
    """A hashable stand-in with Go's equality for JSON values: ``1 == 1.0`` but ``true != 1``."""
    if isinstance(value, bool):
        return ("bool", value)
    if isinstance(value, int | float):
        return ("number", value)
    if isinstance(value, str) or value is None:
        return (json_kind(value), value)
    return ("json", json.dumps(value, sort_keys=True))


def key_identity(item: Any, merge_key: str) -> Hashable:
    """The identity of a merging-list item: that of its merge key's value."""
    if not isinstance(item, dict) or merge_key not in item:
        raise no_merge_key(item, merge_key)
    return identity(item[merge_key])
