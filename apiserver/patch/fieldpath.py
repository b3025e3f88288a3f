"""Field paths and field sets in upstream's ``FieldsV1`` vocabulary (structured-merge-diff).

A path is a tuple of path elements, each spelled as a ``FieldsV1`` key:

- ``f:<name>``: a field of an object (``f:spec``);
- ``k:<json>``: an item of a list merged by key, named by its key fields (``k:{"name":"web"}``);
- ``v:<json>``: an item of a set of primitives, named by its value (``v:"finalizer.io/x"``);
- ``i:<n>``: a list item by position (read from ``FieldsV1`` only; we never produce it).

A field set is a Python ``set`` of such paths. Every path in a set is a *member*: a leaf the
owner manages, or a list item it manages as a whole. ``FieldsV1`` writes the set as a tree:
``{}`` is a member without children, and ``"."`` marks a member that also has children.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Iterable
from typing import Any

Path = tuple[str, ...]
FieldSet = set[Path]

FIELD, KEY, VALUE, INDEX = "f:", "k:", "v:", "i:"
SELF = "."


def compact_json(value: Any) -> str:
    """JSON without spaces and with sorted keys; integral floats are written as integers."""
    return json.dumps(_normal(value), separators=(",", ":"), sort_keys=True, ensure_ascii=False)


def _normal(value: Any) -> Any:
    if isinstance(value, float) and value.is_integer() and abs(value) < 2**63:
        return int(value)
    if isinstance(value, dict):
        return {k: _normal(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_normal(v) for v in value]
    return value


def field(name: str) -> str:
    return FIELD + name


def key(fields: dict[str, Any]) -> str:
    if len(fields) == 1:
        ((name, item),) = fields.items()
        if not isinstance(item, dict | list):
            return _scalar_key(name, item)
    return KEY + compact_json(fields)


def value(item: Any) -> str:
    return VALUE + compact_json(item) if isinstance(item, dict | list) else _scalar_value(item)


# Elements of merge-keyed and set items are computed on every write for each item; most repeat
# (container names, finalizers). ``typed`` keeps True, 1 and 1.0 apart.
@functools.lru_cache(maxsize=4096, typed=True)
def _scalar_key(name: str, item: Any) -> str:
    return KEY + compact_json({name: item})


@functools.lru_cache(maxsize=4096, typed=True)
def _scalar_value(item: Any) -> str:
    return VALUE + compact_json(item)


def named_prefixes(paths: Iterable[Path]) -> FieldSet:
    """``paths`` plus every prefix of them that ends in a field (upstream's
    ``EnsureNamedFieldsAreMembers``): owning ``spec.replicas`` also protects ``spec``."""
    out = set(paths)
    for path in list(out):
        for end in range(1, len(path)):
            if path[end - 1].startswith(FIELD):
                out.add(path[:end])
    return out


# FieldsV1


def to_fields_v1(paths: Iterable[Path]) -> dict[str, Any]:
    """The ``FieldsV1`` tree of a field set."""
    members = set(paths)
    root: dict[str, Any] = {}
    for path in members:
        node = root
        for element in path:
            node = node.setdefault(element, {})
    for path in members:
        node = root
        for element in path:
            node = node[element]
        if node and SELF not in node:
            node[SELF] = {}
    return _sorted(root)


def _sorted(node: dict[str, Any]) -> dict[str, Any]:
    """``"."`` first, then the children in key order (a stable rendering). Plain ``sorted``
    puts ``"."`` first: every other element starts with a letter (``f:``, ``k:``, ...)."""
    return {k: _sorted(child) if (child := node[k]) else {} for k in sorted(node)}


def from_fields_v1(tree: Any) -> FieldSet:
    """The field set a ``FieldsV1`` tree describes; ``ValueError`` if it is malformed."""
    if not isinstance(tree, dict):
        raise ValueError("FieldsV1 must be a JSON object")
    out: FieldSet = set()
    _read(tree, (), out)
    return out


def _read(node: dict[str, Any], prefix: Path, out: FieldSet) -> None:
    for name, child in node.items():
        if name == SELF:
            if prefix:
                out.add(prefix)
            continue
        if not isinstance(child, dict):
            raise ValueError(f"FieldsV1 entry {name!r} must be a JSON object")
        path = (*prefix, _canonical(name))
        if child:
            _read(child, path, out)
        else:
            out.add(path)


def _canonical(element: str) -> str:
    """``element`` re-spelled the way we write it, so equal elements compare equal."""
    head, body = element[:2], element[2:]
    if head == FIELD:
        return element
    try:
        if head == INDEX and body.isdigit():
            return INDEX + str(int(body))
        if head == KEY and isinstance(parsed := json.loads(body), dict):
            return key(parsed)
        if head == VALUE:
            return value(json.loads(body))
    except ValueError:
        pass
    raise ValueError(f"unknown FieldsV1 path element {element!r}")


# Rendering (conflict messages)


def path_string(path: Path) -> str:
    """A path as upstream prints it: ``.spec.containers[name="web"].image``."""
    return "".join(_element_string(element) for element in path)


def _element_string(element: str) -> str:
    head, body = element[:2], element[2:]
    if head == FIELD:
        return "." + body
    if head == INDEX:
        return f"[{body}]"
    parsed = json.loads(body)
    if head == KEY:
        return "[" + ",".join(f"{k}={go_string(v)}" for k, v in sorted(parsed.items())) + "]"
    return f"[={go_string(parsed)}]"


def go_string(item: Any) -> str:
    """A JSON value as structured-merge-diff's ``value.ToString`` renders it."""
    if item is None:
        return "null"
    if isinstance(item, bool):
        return "true" if item else "false"
    if isinstance(item, str):
        return json.dumps(item, ensure_ascii=False)
    if isinstance(item, list):
        return "[" + ",".join(go_string(v) for v in item) + "]"
    if isinstance(item, dict):
        return "".join(f"{k}={go_string(v)}" for k, v in item.items())
    return str(_normal(item))
