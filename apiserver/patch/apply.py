"""Server-side apply's engine: merge, prune and field ownership (structured-merge-diff's Updater).

- ``merge(live, config)``: the applied configuration wins. Objects merge field by field,
  associative lists merge item by item on their key and sets of primitives take the union
  (items only the live list has keep their place, see ``_merge_list``); atomic lists and
  scalars are replaced. A ``null`` in the configuration removes the field (upstream's typed
  objects end up without it too, then defaulting runs).
- ``apply_config``: merge, then *prune*: a field the applier applied last time, does not apply
  now and nobody else owns is removed. Then ``take_ownership``.
- ``take_ownership(live, new)``: every field that changed (added or given another value) is
  taken from its other owners; without ``force`` that is a conflict (``ApplyConflicts``) and
  nothing is written. Removed fields are taken from everyone. Two managers setting the same
  value never conflict: nothing changed.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from apiserver.patch.compare import Comparison, compare
from apiserver.patch.fieldpath import FieldSet, Path, named_prefixes, path_string
from apiserver.patch.fieldset import ABSENT, field_set, item_element, list_elements, remove_paths
from apiserver.patch.managedfields import Entry, Managed, Manager
from apiserver.patch.schema import Fields, List, Schema, fields_of
from minikube_py.api.unstructured import Object as JSONMap

_DUPLICATE: Any = object()


@dataclass(frozen=True)
class Scope:
    """What ownership is computed against: the kind's schema, the API version written
    through, and the paths the (sub)resource ignores (upstream's reset fields)."""

    schema: Fields
    api_version: str
    ignored: Callable[[Path], bool] = field(default=lambda path: False)


@dataclass(frozen=True)
class Conflict:
    manager: Manager
    path: Path


class ApplyConflicts(Exception):
    """Fields the applier would change that other managers own; ``str()`` is upstream's message."""

    def __init__(self, conflicts: list[Conflict]) -> None:
        self.conflicts = sorted(conflicts, key=lambda c: (c.manager.describe(), c.path))
        super().__init__(self._message())

    def _message(self) -> str:
        if len(self.conflicts) == 1:
            only = self.conflicts[0]
            return f"Apply failed with 1 conflict: conflict with {only.manager.describe()}: " + path_string(
                only.path
            )
        lines: list[str] = []
        for conflict in self.conflicts:
            heading = f"conflicts with {conflict.manager.describe()}:"
            if heading not in lines:
                lines.append(heading)
            lines.append(f"- {path_string(conflict.path)}")
        return f"Apply failed with {len(self.conflicts)} conflicts: " + "\n".join(lines)

    def causes(self) -> list[tuple[str, str]]:
        """``(message, field)`` of each ``FieldManagerConflict`` cause."""
        return [(f"conflict with {c.manager.describe()}", path_string(c.path)) for c in self.conflicts]


# merge


def merge(live: JSONMap, config: JSONMap, schema: Fields) -> JSONMap:
    """``live`` with ``config`` merged in (see the module docstring); neither is modified."""
    return _merge_map(live, config, schema)


def _merge_map(live: JSONMap, config: JSONMap, schema: Fields) -> JSONMap:
    out = {name: _fresh(value) for name, value in live.items()}
    for name, value in config.items():
        if value is None:
            out.pop(name, None)
        elif name in live:
            out[name] = _merge_value(live[name], value, schema.child(name))
        else:
            out[name] = _fresh(value)
    return out


def _merge_value(live: Any, config: Any, schema: Schema) -> Any:
    if isinstance(live, dict) and isinstance(config, dict):
        return _merge_map(live, config, fields_of(schema))
    if (
        isinstance(live, list)
        and isinstance(config, list)
        and isinstance(schema, List)
        and list_elements(config, schema) is not None
    ):
        return _merge_list(live, config, schema)
    return _fresh(config)


def _fresh(value: Any) -> Any:
    """A copy of ``value`` without ``null`` fields."""
    if isinstance(value, dict):
        return {k: _fresh(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [_fresh(v) for v in value]
    return value


def _merge_list(live: list[Any], config: list[Any], schema: List) -> list[Any]:
    """Merge item by item. Applied items keep the configuration's order; a live-only item
    stays after the applied item it followed in the live list (upstream's walk)."""
    right = list(zip(list_elements(config, schema) or [], config, strict=True))
    left = [(item_element(item, schema) or f"#{i}", item) for i, item in enumerate(live)]
    live_items: dict[str, Any] = {}
    for element, item in left:
        live_items[element] = _DUPLICATE if element in live_items else item
    applied = dict(right)
    shared = deque(element for element, _ in right if element in live_items)
    out: list[Any] = []
    merged: set[str] = set()

    def take(element: str) -> None:
        merged.add(element)
        out.append(_merge_item(live_items.get(element, ABSENT), applied[element], schema))

    def next_shared() -> str | None:
        return shared.popleft() if shared else None

    upcoming = next_shared()
    i = j = 0
    while i < len(left) or j < len(right):
        if i < len(left) and j < len(right):
            element = left[i][0]
            if element == right[j][0]:
                take(element)
                upcoming = next_shared()
                i, j = i + 1, j + 1
                continue
            if element in applied and upcoming is not None and upcoming != element:
                i += 1  # an applied item, but not the next one in the configuration's order
                continue
        if i < len(left):
            element = left[i][0]
            if element not in applied:
                out.append(_fresh(left[i][1]))
                i += 1
                continue
            if element in merged:
                i += 1
        if j < len(right):
            element = right[j][0]
            take(element)
            if upcoming == element:
                upcoming = next_shared()
            j += 1
    return out


def _merge_item(live: Any, config: Any, schema: List) -> Any:
    if live is ABSENT or live is _DUPLICATE:
        return _fresh(config)
    return _merge_value(live, config, schema.item)


# ownership


def take_ownership(
    live: JSONMap, new: JSONMap, managed: Managed, workflow: Manager | None, force: bool, scope: Scope
) -> tuple[Managed, Comparison]:
    """Upstream's ``update``: take changed fields from every manager but ``workflow`` (a
    conflict unless ``force``), drop removed fields from them, drop managers left with nothing."""
    comparison = compare(live, new, scope.schema).excluding(scope.ignored)
    changed = comparison.changed()
    conflicts = [
        Conflict(manager, path)
        for manager, entry in managed.items()
        if manager != workflow
        for path in entry.fields & changed
    ]
    if conflicts and not force:
        raise ApplyConflicts(conflicts)
    out: Managed = {}
    for manager, entry in managed.items():
        fields = entry.fields if manager == workflow else entry.fields - changed - comparison.removed
        if fields:
            out[manager] = Entry(fields, entry.api_version, entry.time)
    return out, comparison


def apply_config(
    live: JSONMap, config: JSONMap, managed: Managed, applier: Manager, force: bool, scope: Scope
) -> tuple[JSONMap, Managed]:
    """Upstream's ``Updater.Apply``: the merged and pruned object, and the new ownership, in
    which ``applier`` owns exactly the configuration's fields. Raises ``InvalidConfig`` and
    ``ApplyConflicts``."""
    applied = {path for path in field_set(config, scope.schema, strict=True) if not scope.ignored(path)}
    merged = merge(live, config, scope.schema)
    last = managed.get(applier)
    managed = {**managed, applier: Entry(applied, scope.api_version, last.time if last else None)}
    if last is not None and last.fields:
        merged = prune(merged, managed, last.fields, scope.schema)
    managed, _ = take_ownership(live, merged, managed, applier, force, scope)
    return merged, managed


def prune(merged: JSONMap, managed: Managed, last: FieldSet, schema: Fields) -> JSONMap:
    """Remove what the applier owned last time (``last``) and no manager owns now."""
    owned = named_prefixes(set().union(*(entry.fields for entry in managed.values())))
    present = named_prefixes(field_set(merged, schema))
    doomed = (present & named_prefixes(last)) - owned
    return remove_paths(merged, doomed, schema) if doomed else merged
