"""The state behind ``FakeClient``: objects per resource type with the server's bookkeeping,
the recorded actions, injected faults and the watch fan-out (see ``fakeclient`` for the
contract), and the object helpers the per-resource handles share."""

from __future__ import annotations

import asyncio
import copy
import itertools
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from minikube_py.api.errors import ApiError
from minikube_py.api.labels import parse_label_selector
from minikube_py.api.scheme import ResourceType
from minikube_py.api.timestamps import now_rfc3339
from minikube_py.client.interfaces import (
    ADDED,
    Object,
    WatchEvent,
)
from minikube_py.uid import new_uuid

Key = tuple[str, str]  # (namespace, name)
GroupResource = tuple[str, str]


@dataclass(frozen=True, slots=True)
class Action:
    """One recorded call. ``body`` is a copy of what was sent (object, patch or options)."""

    verb: str
    resource: str
    namespace: str
    name: str = ""
    subresource: str = ""
    body: Any = None

    def matches(self, verb: str, resource: str) -> bool:
        return self.verb == verb and self.resource == resource


@dataclass
class Watcher:
    group_resource: GroupResource
    namespace: str | None
    label_selector: str
    field_selector: str
    queue: asyncio.Queue[WatchEvent | None] = field(default_factory=asyncio.Queue)


@dataclass
class Fault:
    verb: str
    resource: str
    error: ApiError
    times: int


class FakeState:
    """The fake cluster state: objects, one cluster-wide revision, history, watchers, actions
    and faults. Not thread-safe (one event loop)."""

    def __init__(self) -> None:
        self.objects: dict[GroupResource, dict[Key, Object]] = {}
        self.actions: list[Action] = []
        self.revision = 1
        self.compacted = 0
        self._history: list[tuple[int, GroupResource, WatchEvent]] = []
        self._watchers: list[Watcher] = []
        self._faults: list[Fault] = []
        self._drop = 0
        self._names = itertools.count(1)

    # -- seeding and inspection -------------------------------------------------------------

    def seed(self, resource_type: ResourceType, *objs: Mapping[str, Any]) -> list[Object]:
        """Store objects as if created earlier (no action recorded); returns the stored copies."""
        return [self._insert(resource_type, dict(copy.deepcopy(obj))) for obj in objs]

    def stored(self, resource_type: ResourceType, namespace: str, name: str) -> Object | None:
        obj = self._table(resource_type).get((namespace, name))
        return copy.deepcopy(obj) if obj is not None else None

    def all(self, resource_type: ResourceType) -> list[Object]:
        return [copy.deepcopy(o) for o in self._table(resource_type).values()]

    def filter_actions(self, verb: str | None = None, resource: str | None = None) -> list[Action]:
        return [
            a
            for a in self.actions
            if (verb is None or a.verb == verb) and (resource is None or a.resource == resource)
        ]

    def clear_actions(self) -> None:
        self.actions.clear()

    # -- faults -----------------------------------------------------------------------------

    def fail(self, verb: str, resource: str, error: ApiError, times: int = 1) -> None:
        """The next ``times`` calls of ``verb`` on ``resource`` raise ``error`` (recorded first)."""
        self._faults.append(Fault(verb, resource, error, times))

    def drop_watch_events(self, count: int = 1) -> None:
        """The next ``count`` changes happen but their watch events are never delivered."""
        self._drop += count

    def reset_watches(self) -> None:
        """End every open watch stream (as a server restart or timeout would)."""
        for watcher in self._watchers:
            watcher.queue.put_nowait(None)
        self._watchers.clear()

    def compact(self, revision: int | None = None) -> None:
        """Forget history up to ``revision`` (default: now); older watches get ``Gone``."""
        self.compacted = self.revision if revision is None else revision
        self._history = [h for h in self._history if h[0] > self.compacted]

    # -- internals used by the handles ------------------------------------------------------

    def _table(self, rt: ResourceType) -> dict[Key, Object]:
        return self.objects.setdefault((rt.group, rt.resource), {})

    def _record(self, action: Action) -> None:
        self.actions.append(action)
        for fault in self._faults:
            if fault.times > 0 and action.matches(fault.verb, fault.resource):
                fault.times -= 1
                raise fault.error

    def _next_revision(self) -> str:
        self.revision += 1
        return str(self.revision)

    def _insert(self, rt: ResourceType, obj: Object) -> Object:
        meta = obj.setdefault("metadata", {})
        if not meta.get("name") and meta.get("generateName"):
            meta["name"] = f"{meta['generateName']}{next(self._names):05x}"
        meta.setdefault("uid", new_uuid())
        meta.setdefault("creationTimestamp", now_rfc3339())
        if "spec" in obj:
            meta.setdefault("generation", 1)
        obj.setdefault("apiVersion", rt.api_version)
        obj.setdefault("kind", rt.kind)
        meta["resourceVersion"] = self._next_revision()
        self._table(rt)[(meta.get("namespace", ""), meta["name"])] = obj
        self._emit(rt, ADDED, obj)
        return copy.deepcopy(obj)

    def _emit(self, rt: ResourceType, event_type: str, obj: Object) -> None:
        event = WatchEvent(event_type, copy.deepcopy(obj))
        self._history.append((self.revision, (rt.group, rt.resource), event))
        if self._drop > 0:
            self._drop -= 1
            return
        for watcher in self._watchers:
            if watch_matches(watcher, (rt.group, rt.resource), event.object):
                watcher.queue.put_nowait(WatchEvent(event_type, copy.deepcopy(obj)))


def token_request(namespace: str, name: str, body: Mapping[str, Any]) -> Object:
    """A TokenRequest answered with token ``fake-token-<ns>-<name>-<n>`` expiring after the
    requested ``spec.expirationSeconds`` (default 3600) of wall time."""
    seconds = int((body.get("spec") or {}).get("expirationSeconds") or 3600)
    expires = datetime.fromtimestamp(time.time() + seconds, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    issued = copy.deepcopy(dict(body))
    issued["status"] = {
        "token": f"fake-token-{namespace}-{name}-{next(_TOKENS)}",
        "expirationTimestamp": expires,
    }
    return issued


_TOKENS = itertools.count(1)


def merge_patch(target: Any, patch: Any) -> Any:
    """RFC 7386 JSON merge patch."""
    if not isinstance(patch, dict):
        return copy.deepcopy(patch)
    result = target if isinstance(target, dict) else {}
    for key, value in patch.items():
        if value is None:
            result.pop(key, None)
        else:
            result[key] = merge_patch(result.get(key), value)
    return result


def delete_from_primitive_lists(obj: Any) -> None:
    """Apply (in place) the strategic-merge ``$deleteFromPrimitiveList/<field>`` directives a
    merge of such a patch left in ``obj`` (the Job controller removes its pod finalizer so)."""
    if not isinstance(obj, dict):
        return
    for key in [k for k in obj if isinstance(k, str) and k.startswith("$deleteFromPrimitiveList/")]:
        field, removed = key.partition("/")[2], obj.pop(key)
        if isinstance(obj.get(field), list):
            obj[field] = [v for v in obj[field] if v not in (removed or [])]
    for value in obj.values():
        delete_from_primitive_lists(value)


def kept_metadata(sent: Object, old: Object) -> Object:
    """``sent`` metadata with what a write may not change taken from ``old``."""
    meta = copy.deepcopy(sent)
    for key in ("uid", "creationTimestamp", "namespace", "deletionTimestamp", "generation"):
        if key in old:
            meta[key] = old[key]
    return meta


def sort_key(obj: Object) -> Key:
    meta = obj.get("metadata", {})
    return (meta.get("namespace", ""), meta.get("name", ""))


def field_value(obj: Object, path: str) -> str:
    value: Any = obj
    for part in path.split("."):
        value = value.get(part) if isinstance(value, dict) else None
    return "" if value is None else str(value)


def watch_matches(watcher: Watcher, group_resource: GroupResource, obj: Object) -> bool:
    if group_resource != watcher.group_resource:
        return False
    meta = obj.get("metadata", {})
    if watcher.namespace is not None and meta.get("namespace", "") != watcher.namespace:
        return False
    if watcher.label_selector and not parse_label_selector(watcher.label_selector).matches(
        meta.get("labels") or {}
    ):
        return False
    for term in filter(None, watcher.field_selector.split(",")):
        negate = "!=" in term
        path, _, want = term.partition("!=" if negate else "=")
        if (field_value(obj, path.strip()) == want.lstrip("=").strip()) == negate:
            return False
    return True
