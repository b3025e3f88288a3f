"""``json_patch(old, new)``: an RFC 6902 patch turning ``old`` into ``new``; admission records
each mutating plugin's change with it (applying the patch to ``old`` gives ``new``)."""

from __future__ import annotations

from typing import Any

from minikube_py import jsonutil

Operation = dict[str, Any]


def pointer_token(key: str) -> str:
    return key.replace("~", "~0").replace("/", "~1")


def json_patch(old: Any, new: Any, path: str = "") -> list[Operation]:
    """Operations (``add``, ``remove``, ``replace``) from ``old`` to ``new``: objects member by
    member, lists element by element when only their tail grew or shrank, else replaced."""
    if type(old) is type(new) and old == new and _same_json(old, new):
        return []  # an unchanged subtree, compared in C rather than walked
    if isinstance(old, dict) and isinstance(new, dict):
        return _object_patch(old, new, path)
    if isinstance(old, list) and isinstance(new, list):
        return _list_patch(old, new, path)
    return [{"op": "replace", "path": path, "value": new}]


def _object_patch(old: dict[str, Any], new: dict[str, Any], path: str) -> list[Operation]:
    ops: list[Operation] = []
    for key in old:
        if key not in new:
            ops.append({"op": "remove", "path": f"{path}/{pointer_token(key)}"})
    for key, value in new.items():
        where = f"{path}/{pointer_token(key)}"
        if key not in old:
            ops.append({"op": "add", "path": where, "value": value})
        else:
            ops += json_patch(old[key], value, where)
    return ops


def _list_patch(old: list[Any], new: list[Any], path: str) -> list[Operation]:
    common = min(len(old), len(new))
    ops: list[Operation] = []
    for index in range(common):
        ops += json_patch(old[index], new[index], f"{path}/{index}")
    for index in range(len(old) - 1, common - 1, -1):
        ops.append({"op": "remove", "path": f"{path}/{index}"})
    for index in range(common, len(new)):
        ops.append({"op": "add", "path": f"{path}/{index}", "value": new[index]})
    return ops


def _same_json(old: Any, new: Any) -> bool:
    """Equal as JSON (``==`` alone takes ``1`` for ``1.0`` and ``True`` for ``1``)."""
    if isinstance(old, dict | list):
        return jsonutil.dumps(old) == jsonutil.dumps(new)
    return True
