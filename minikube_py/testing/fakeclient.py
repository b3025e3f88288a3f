"""``FakeClient``: an in-memory ``Client`` for unit tests of controllers, informers and agents.

A first-class fake (ARCHITECTURE §3 ``testing/``), like client-go's fake clientset plus
``FakeControllerSource``:

- **State**: objects per resource type with the server's bookkeeping a controller relies on
  (uid, creationTimestamp, resourceVersion from one cluster-wide revision, generation bumped on
  spec changes, generateName, optimistic concurrency, finalizers and deletionTimestamp,
  ``propagationPolicy`` recorded as the ``orphan``/``foregroundDeletion`` finalizer).
  It does not default, validate or admit: tests seed exactly what they mean.
- **Actions**: every call is appended to ``actions`` (verb, resource, namespace, name,
  subresource, body), so a test asserts what a ``sync(key)`` did.
- **Faults**: ``fail(verb, resource, error, times)`` makes the next calls raise; watches can
  lose events (``drop_watch_events``: the state changes, the event is never sent), be closed
  (``reset_watches``), or refuse an old revision after ``compact`` (``Gone``).

Patches: JSON merge patch; a strategic merge patch is applied as a merge patch (lists are
replaced), which is enough for the metadata and status patches controllers send.
"""

from __future__ import annotations

import asyncio
import copy
import itertools
import time
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from minikube_py.api import errors
from minikube_py.api.errors import ApiError
from minikube_py.api.labels import parse_label_selector
from minikube_py.api.scheme import ResourceType
from minikube_py.api.timestamps import now_rfc3339
from minikube_py.client.interfaces import (
    ADDED,
    BOOKMARK,
    DELETED,
    JSON_PATCH,
    MODIFIED,
    Gone,
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
class _Watcher:
    group_resource: GroupResource
    namespace: str | None
    label_selector: str
    field_selector: str
    queue: asyncio.Queue[WatchEvent | None] = field(default_factory=asyncio.Queue)


@dataclass
class _Fault:
    verb: str
    resource: str
    error: ApiError
    times: int


class FakeClient:
    """The fake cluster state plus the handles onto it. Not thread-safe (one event loop)."""

    def __init__(self) -> None:
        self.objects: dict[GroupResource, dict[Key, Object]] = {}
        self.actions: list[Action] = []
        self.revision = 1
        self.compacted = 0
        self._history: list[tuple[int, GroupResource, WatchEvent]] = []
        self._watchers: list[_Watcher] = []
        self._faults: list[_Fault] = []
        self._drop = 0
        self._names = itertools.count(1)

    # -- Client -----------------------------------------------------------------------------

    def resource(self, resource_type: ResourceType, namespace: str | None = None) -> FakeResourceClient:
        return FakeResourceClient(self, resource_type, namespace)

    async def close(self) -> None:
        self.reset_watches()

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
        self._faults.append(_Fault(verb, resource, error, times))

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
            if _watch_matches(watcher, (rt.group, rt.resource), event.object):
                watcher.queue.put_nowait(WatchEvent(event_type, copy.deepcopy(obj)))


class FakeResourceClient:
    """A ``ResourceClient`` over a ``FakeClient``'s state."""

    def __init__(self, fake: FakeClient, rt: ResourceType, namespace: str | None) -> None:
        self._fake = fake
        self._rt = rt
        self._namespace = namespace

    @property
    def resource_type(self) -> ResourceType:
        return self._rt

    @property
    def namespace(self) -> str | None:
        return self._namespace

    def _ns(self, obj: Mapping[str, Any] | None = None) -> str:
        if not self._rt.namespaced:
            return ""
        if self._namespace is not None:
            return self._namespace
        return str(((obj or {}).get("metadata") or {}).get("namespace") or "")

    def _existing(self, namespace: str, name: str) -> Object:
        obj = self._fake._table(self._rt).get((namespace, name))
        if obj is None:
            raise errors.not_found(self._rt.resource, name, self._rt.group)
        return obj

    async def get(self, name: str) -> Object:
        ns = self._ns()
        self._fake._record(Action("get", self._rt.resource, ns, name))
        return copy.deepcopy(self._existing(ns, name))

    async def list(
        self,
        *,
        label_selector: str = "",
        field_selector: str = "",
        resource_version: str | None = None,
        limit: int = 0,
        continue_: str = "",
    ) -> Object:
        ns = self._namespace if self._rt.namespaced else None
        self._fake._record(Action("list", self._rt.resource, ns or ""))
        watcher = _Watcher((self._rt.group, self._rt.resource), ns, label_selector, field_selector)
        items = [
            copy.deepcopy(o)
            for o in sorted(self._fake._table(self._rt).values(), key=_sort_key)
            if _watch_matches(watcher, watcher.group_resource, o)
        ]
        start = int(continue_ or 0)
        end = start + limit if limit else len(items)
        meta: dict[str, Any] = {"resourceVersion": str(self._fake.revision)}
        if end < len(items):
            meta["continue"] = str(end)
        return {
            "kind": self._rt.list_kind,
            "apiVersion": self._rt.api_version,
            "metadata": meta,
            "items": items[start:end],
        }

    async def watch(
        self,
        *,
        resource_version: str = "",
        label_selector: str = "",
        field_selector: str = "",
        allow_bookmarks: bool = True,
        timeout_seconds: int | None = None,
    ) -> AsyncIterator[WatchEvent]:
        ns = self._namespace if self._rt.namespaced else None
        self._fake._record(Action("watch", self._rt.resource, ns or "", body=resource_version))
        since = int(resource_version or self._fake.revision)
        if since < self._fake.compacted:
            raise Gone(f"too old resource version: {since} ({self._fake.compacted})")
        watcher = _Watcher((self._rt.group, self._rt.resource), ns, label_selector, field_selector)
        for revision, group_resource, event in self._fake._history:
            if revision > since and _watch_matches(watcher, group_resource, event.object):
                watcher.queue.put_nowait(WatchEvent(event.type, copy.deepcopy(event.object)))
        self._fake._watchers.append(watcher)
        try:
            while (delivered := await watcher.queue.get()) is not None:
                yield delivered
        finally:
            if watcher in self._fake._watchers:
                self._fake._watchers.remove(watcher)

    def send_bookmark(self) -> None:
        """Deliver a BOOKMARK at the current revision to this resource's open watches."""
        bookmark = WatchEvent(
            BOOKMARK,
            {
                "kind": self._rt.kind,
                "apiVersion": self._rt.api_version,
                "metadata": {"resourceVersion": str(self._fake.revision)},
            },
        )
        for watcher in self._fake._watchers:
            if watcher.group_resource == (self._rt.group, self._rt.resource):
                watcher.queue.put_nowait(bookmark)

    async def create(self, obj: Mapping[str, Any], *, field_manager: str | None = None) -> Object:
        body = copy.deepcopy(dict(obj))
        ns = self._ns(obj)
        meta = body.setdefault("metadata", {})
        self._fake._record(
            Action("create", self._rt.resource, ns, meta.get("name", ""), body=copy.deepcopy(body))
        )
        if ns:
            meta["namespace"] = ns
        for key in ("resourceVersion", "uid", "deletionTimestamp"):
            meta.pop(key, None)
        name = meta.get("name", "")
        if name and (ns, name) in self._fake._table(self._rt):
            raise errors.already_exists(self._rt.resource, name, self._rt.group)
        if not name and not meta.get("generateName"):
            raise errors.invalid(
                self._rt.kind,
                "",
                self._rt.group,
                [errors.Cause("FieldValueRequired", "name or generateName is required", "metadata.name")],
            )
        return self._fake._insert(self._rt, body)

    async def update(
        self, obj: Mapping[str, Any], *, field_manager: str | None = None, subresource: str = ""
    ) -> Object:
        """``finalize`` on namespaces writes ``spec.finalizers`` only; other subresources like status."""
        if subresource == "finalize":
            return self._update(obj, "finalize")
        return self._update(obj, subresource)

    async def update_status(self, obj: Mapping[str, Any]) -> Object:
        return self._update(obj, "status")

    def _update(self, obj: Mapping[str, Any], subresource: str) -> Object:
        body = copy.deepcopy(dict(obj))
        ns, name = self._ns(obj), body.get("metadata", {}).get("name", "")
        self._fake._record(Action("update", self._rt.resource, ns, name, subresource, copy.deepcopy(body)))
        current = self._existing(ns, name)
        sent_rv = body.get("metadata", {}).get("resourceVersion")
        if sent_rv and sent_rv != current["metadata"]["resourceVersion"]:
            raise errors.conflict(self._rt.resource, name, self._rt.group, errors.MODIFIED)
        return self._store_update(current, body, subresource)

    def _store_update(self, current: Object, body: Object, subresource: str) -> Object:
        if subresource == "finalize":
            updated = copy.deepcopy(current)
            updated.setdefault("spec", {})["finalizers"] = list(
                (body.get("spec") or {}).get("finalizers") or []
            )
        elif subresource:  # status: the new status and metadata, the old spec (as the apiserver)
            updated = copy.deepcopy(current)
            updated["status"] = body.get("status", {})
            updated["metadata"] = _kept_metadata(body.get("metadata") or {}, current["metadata"])
        else:
            updated = body
            updated["status"] = copy.deepcopy(current.get("status", body.get("status")))
            if updated["status"] is None:
                updated.pop("status")
            updated["metadata"] = _kept_metadata(updated.get("metadata") or {}, current["metadata"])
            meta, old = updated["metadata"], current["metadata"]
            if "spec" in updated and updated.get("spec") != current.get("spec"):
                meta["generation"] = int(old.get("generation", 0)) + 1
        meta = updated["metadata"]
        if (
            meta.get("deletionTimestamp")
            and not meta.get("finalizers")
            and not self._spec_finalizers(updated)
        ):
            return self._remove(current)
        meta["resourceVersion"] = self._fake._next_revision()
        self._fake._table(self._rt)[(meta.get("namespace", ""), meta["name"])] = updated
        self._fake._emit(self._rt, MODIFIED, updated)
        return copy.deepcopy(updated)

    async def patch(
        self,
        name: str,
        body: Any,
        *,
        patch_type: str = "application/merge-patch+json",
        subresource: str = "",
        field_manager: str | None = None,
        force: bool | None = None,
    ) -> Object:
        ns = self._ns()
        self._fake._record(Action("patch", self._rt.resource, ns, name, subresource, copy.deepcopy(body)))
        current = self._existing(ns, name)
        if patch_type == JSON_PATCH:
            raise errors.ApiError(415, "UnsupportedMediaType", "the fake client applies merge patches only")
        patched = merge_patch(copy.deepcopy(current), body)
        sent_rv = (body.get("metadata") or {}).get("resourceVersion") if isinstance(body, dict) else None
        if sent_rv and sent_rv != current["metadata"]["resourceVersion"]:
            raise errors.conflict(self._rt.resource, name, self._rt.group, errors.MODIFIED)
        return self._store_update(current, patched, subresource)

    async def delete(
        self,
        name: str,
        *,
        propagation_policy: str | None = None,
        grace_period_seconds: int | None = None,
        preconditions: Mapping[str, str] | None = None,
    ) -> Object:
        ns = self._ns()
        options = {
            "propagationPolicy": propagation_policy,
            "gracePeriodSeconds": grace_period_seconds,
            "preconditions": dict(preconditions or {}),
        }
        self._fake._record(Action("delete", self._rt.resource, ns, name, body=options))
        current = self._existing(ns, name)
        for key, value in (preconditions or {}).items():
            if current["metadata"].get(key) != value:
                raise errors.conflict(
                    self._rt.resource,
                    name,
                    self._rt.group,
                    f"Precondition failed: {key}: {value}, {key} in object meta: "
                    f"{current['metadata'].get(key)}",
                )
        finalizers = list(current["metadata"].get("finalizers") or [])
        extra = {"Orphan": "orphan", "Foreground": "foregroundDeletion"}.get(propagation_policy or "")
        if extra and extra not in finalizers:
            finalizers.append(extra)
        spec_finalizers = self._spec_finalizers(current)
        if not finalizers and not spec_finalizers:
            return self._remove(current)
        updated = copy.deepcopy(current)
        if spec_finalizers:
            updated.setdefault("status", {})["phase"] = "Terminating"
        updated["metadata"]["finalizers"] = finalizers
        updated["metadata"].setdefault("deletionTimestamp", now_rfc3339())
        updated["metadata"]["resourceVersion"] = self._fake._next_revision()
        self._fake._table(self._rt)[(ns, name)] = updated
        self._fake._emit(self._rt, MODIFIED, updated)
        return copy.deepcopy(updated)

    def _spec_finalizers(self, obj: Object) -> bool:
        """A namespace stays while ``spec.finalizers`` (``kubernetes``) is not empty."""
        return self._rt.resource == "namespaces" and bool((obj.get("spec") or {}).get("finalizers"))

    def _remove(self, current: Object) -> Object:
        meta = current["metadata"]
        self._fake._table(self._rt).pop((meta.get("namespace", ""), meta["name"]), None)
        gone = copy.deepcopy(current)
        gone["metadata"]["resourceVersion"] = self._fake._next_revision()
        self._fake._emit(self._rt, DELETED, gone)
        return copy.deepcopy(gone)

    async def create_subresource(self, name: str, subresource: str, body: Mapping[str, Any]) -> Object:
        ns = self._ns()
        self._fake._record(
            Action("create", self._rt.resource, ns, name, subresource, copy.deepcopy(dict(body)))
        )
        current = self._existing(ns, name)
        if (self._rt.resource, subresource) == ("pods", "binding"):
            bound = copy.deepcopy(current)
            bound.setdefault("spec", {})["nodeName"] = body.get("target", {}).get("name", "")
            self._store_update(current, bound, "")
            return {"kind": "Status", "apiVersion": "v1", "status": "Success", "code": 201}
        if (self._rt.resource, subresource) == ("pods", "eviction"):
            await self.delete(name)
            return {"kind": "Status", "apiVersion": "v1", "status": "Success", "code": 201}
        if (self._rt.resource, subresource) == ("serviceaccounts", "token"):
            return _token_request(ns, name, body)
        return copy.deepcopy(dict(body))


def _token_request(namespace: str, name: str, body: Mapping[str, Any]) -> Object:
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


def _kept_metadata(sent: Object, old: Object) -> Object:
    """``sent`` metadata with what a write may not change taken from ``old``."""
    meta = copy.deepcopy(sent)
    for key in ("uid", "creationTimestamp", "namespace", "deletionTimestamp", "generation"):
        if key in old:
            meta[key] = old[key]
    return meta


def _sort_key(obj: Object) -> Key:
    meta = obj.get("metadata", {})
    return (meta.get("namespace", ""), meta.get("name", ""))


def _field_value(obj: Object, path: str) -> str:
    value: Any = obj
    for part in path.split("."):
        value = value.get(part) if isinstance(value, dict) else None
    return "" if value is None else str(value)


def _watch_matches(watcher: _Watcher, group_resource: GroupResource, obj: Object) -> bool:
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
        if (_field_value(obj, path.strip()) == want.lstrip("=").strip()) == negate:
            return False
    return True
