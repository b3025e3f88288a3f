"""JSON Patch (RFC 6902, ``application/json-patch+json``), applied to a copy of a document.

Operations run in order; the first failure aborts the whole patch and nothing is returned.
Errors, as the apiserver classifies them:

- 400 ``BadRequest``: the body is not a JSON array of objects. Upstream cannot even decode it
  and says ``json: cannot unmarshal object into Go value of type jsonpatch.Patch``.
- 422 ``Invalid``: everything found while applying: an unknown ``op`` (``Unexpected kind:
  foo``), a missing or ill-typed member (``operation missing path field: missing value``), a
  path that does not resolve (``add operation does not apply: doc is missing path: "/a/b":
  missing value``), a bad array index (``Unable to access invalid index: 7: invalid index
  referenced``) and a failed ``test`` (``testing value /spec/replicas failed: test failed``).

Messages are those of the library upstream uses (evanphx/json-patch v4). Where that library
is laxer than the RFC we follow the RFC: no negative or zero-padded array indices, ``value``
is required, a pointer must be empty or start with ``/`` and ``~`` must be ``~0`` or ``~1``,
and ``move`` into its own child fails. One upstream leniency is kept, so that patches that
work against a real apiserver work here: ``test`` of an absent object member against
``null`` succeeds.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

from apiserver.patch import jsonpointer as jp
from apiserver.patch.errors import PatchError, json_kind

Operation = dict[str, Any]


def apply_json_patch(doc: Any, ops: Any) -> Any:
    """Apply the RFC 6902 operations ``ops`` to ``doc`` and return the patched copy.

    ``doc`` and ``ops`` are decoded JSON and are never mutated; the result shares no
    structure with either. Raises ``PatchError`` (see the module docstring for codes).
    """
    result = copy.deepcopy(doc)
    for op in _decode(ops):
        result = _apply_operation(result, op)
    return result


def _decode(ops: Any) -> list[Operation]:
    if not isinstance(ops, list):
        raise PatchError(f"json: cannot unmarshal {json_kind(ops)} into Go value of type jsonpatch.Patch")
    for op in ops:
        if not isinstance(op, dict):
            raise PatchError(
                f"json: cannot unmarshal {json_kind(op)} into Go value of type jsonpatch.Operation"
            )
    return ops


def _invalid(message: str) -> PatchError:
    return PatchError(message, code=422)


def _apply_operation(root: Any, op: Operation) -> Any:
    kind = op.get("op")
    handler = _HANDLERS.get(kind) if isinstance(kind, str) else None
    if handler is None:
        raise _invalid(f"Unexpected kind: {kind if isinstance(kind, str) else 'unknown'}")
    return handler(root, op)


# --- operation members ---------------------------------------------------------------------


def _pointer_member(op: Operation, name: str) -> str:
    value = op.get(name)
    if value is None:
        lead = "operation missing path field" if name == "path" else "operation, missing from field"
        raise _invalid(f"{lead}: missing value")
    if not isinstance(value, str):
        raise _invalid(f"json: cannot unmarshal {json_kind(value)} into Go value of type string")
    return value


def _value_member(op: Operation) -> Any:
    if "value" not in op:
        raise _invalid("operation, missing value field: missing value")
    return copy.deepcopy(op["value"])


# --- navigation ----------------------------------------------------------------------------


def _parent(root: Any, tokens: list[str], op: str, path: str) -> Any:
    missing = f'{op} operation does not apply: doc is missing path: "{path}": missing value'
    parent = jp.resolve(root, tokens[:-1], missing)
    if not isinstance(parent, dict | list):
        raise _invalid(missing)
    return parent


# --- primitive edits (all in place on the working copy) ------------------------------------


def _insert(root: Any, path: str, value: Any, op: str) -> Any:
    tokens = jp.tokens(path)
    if not tokens:
        return value
    parent, key = _parent(root, tokens, op, path), tokens[-1]
    if isinstance(parent, dict):
        parent[key] = value
    else:
        parent.insert(jp.array_index(key, len(parent), append=True), value)
    return root


def _detach(root: Any, path: str, op: str) -> Any:
    tokens = jp.tokens(path)
    if not tokens:
        raise _invalid(f'{op} operation does not apply: doc is missing path: "{path}": missing value')
    parent, key = _parent(root, tokens, op, path), tokens[-1]
    if isinstance(parent, list):
        return parent.pop(jp.array_index(key, len(parent), append=False))
    if key not in parent:
        raise _invalid(
            f"error in {op} for path: '{path}': Unable to remove nonexistent key: {key}: missing value"
        )
    return parent.pop(key)


def _lookup(root: Any, path: str, op: str, role: str = "path") -> Any:
    missing = f"{op} operation does not apply: doc is missing {role}: {path}: missing value"
    return jp.resolve(root, jp.tokens(path), missing)


# --- the six operations --------------------------------------------------------------------


def _add(root: Any, op: Operation) -> Any:
    return _insert(root, _pointer_member(op, "path"), _value_member(op), "add")


def _remove(root: Any, op: Operation) -> Any:
    _detach(root, _pointer_member(op, "path"), "remove")
    return root


def _replace(root: Any, op: Operation) -> Any:
    path, value = _pointer_member(op, "path"), _value_member(op)
    tokens = jp.tokens(path)
    if not tokens:
        return value
    parent, key = _parent(root, tokens, "replace", path), tokens[-1]
    if jp.child(parent, key) is jp.ABSENT:
        raise _invalid(f"replace operation does not apply: doc is missing key: {path}: missing value")
    parent[int(key) if isinstance(parent, list) else key] = value
    return root


def _move(root: Any, op: Operation) -> Any:
    source, path = _pointer_member(op, "from"), _pointer_member(op, "path")
    _lookup(root, source, "move", "from path")
    if source == path:
        return root
    if path.startswith(source + "/"):
        raise _invalid(f"move operation does not apply: cannot move {source} into its own child {path}")
    value = _detach(root, source, "move")
    return _insert(root, path, value, "move")


def _copy(root: Any, op: Operation) -> Any:
    source, path = _pointer_member(op, "from"), _pointer_member(op, "path")
    value = copy.deepcopy(_lookup(root, source, "copy", "from path"))
    return _insert(root, path, value, "copy")


def _test(root: Any, op: Operation) -> Any:
    path, expected = _pointer_member(op, "path"), _value_member(op)
    if expected is None and _member_absent(root, jp.tokens(path)):
        return root
    if not json_equal(_lookup(root, path, "test"), expected):
        raise _invalid(f"testing value {path} failed: test failed")
    return root


def _member_absent(root: Any, tokens: list[str]) -> bool:
    """True if ``tokens`` names a member its (existing) parent object does not have."""
    if not tokens:
        return False
    try:
        parent = jp.resolve(root, tokens[:-1], "")
    except PatchError:
        return False
    return isinstance(parent, dict) and tokens[-1] not in parent


def json_equal(left: Any, right: Any) -> bool:
    """Structural JSON equality: numbers compare by value, but ``true`` is never ``1``."""
    if isinstance(left, bool) or isinstance(right, bool):
        return isinstance(left, bool) and isinstance(right, bool) and left == right
    if isinstance(left, int | float) and isinstance(right, int | float):
        return left == right
    if isinstance(left, dict) and isinstance(right, dict):
        return left.keys() == right.keys() and all(json_equal(left[k], right[k]) for k in left)
    if isinstance(left, list) and isinstance(right, list):
        return len(left) == len(right) and all(json_equal(a, b) for a, b in zip(left, right, strict=True))
    return type(left) is type(right) and left == right


_HANDLERS: dict[str, Callable[[Any, Operation], Any]] = {
    "add": _add,
    "remove": _remove,
    "replace": _replace,
    "move": _move,
    "copy": _copy,
    "test": _test,
}
