"""``FakeResourceClient``: the ``ResourceClient`` verbs over a ``FakeState`` (get, list,
watch, create, update, patch, delete, subresources), recording each call as an ``Action``."""

from __future__ import annotations

import copy
from collections.abc import AsyncIterator, Mapping
from typing import Any

from minikube_py.api import errors
from minikube_py.api.labels import label_selector_as_selector
from minikube_py.api.scheme import ResourceType
from minikube_py.api.timestamps import now_rfc3339
from minikube_py.client.interfaces import (
    BOOKMARK,
    DELETED,
    JSON_PATCH,
    MODIFIED,
    STRATEGIC_MERGE_PATCH,
    Gone,
    Object,
    WatchEvent,
)
from minikube_py.testing.fakestate import (
    Action,
    FakeState,
    Watcher,
    delete_from_primitive_lists,
    kept_metadata,
    merge_patch,
    sort_key,
    token_request,
    watch_matches,
)


class FakeResourceClient:
    """A ``ResourceClient`` over a ``FakeClient``'s state (a ``FakeState``)."""

    def __init__(self, fake: FakeState, rt: ResourceType, namespace: str | None) -> None:
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

    async def get(self, name: str, *, subresource: str = "") -> Object:
        """The object, or its ``scale`` subresource (a Scale view, as the apiserver's)."""
        ns = self._ns()
        self._fake._record(Action("get", self._rt.resource, ns, name, subresource))
        found = self._existing(ns, name)
        return scale_of(found) if subresource == "scale" else copy.deepcopy(found)

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
        watcher = Watcher((self._rt.group, self._rt.resource), ns, label_selector, field_selector)
        items = [
            copy.deepcopy(o)
            for o in sorted(self._fake._table(self._rt).values(), key=sort_key)
            if watch_matches(watcher, watcher.group_resource, o)
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
        watcher = Watcher((self._rt.group, self._rt.resource), ns, label_selector, field_selector)
        for revision, group_resource, event in self._fake._history:
            if revision > since and watch_matches(watcher, group_resource, event.object):
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
        if subresource == "scale":  # the Scale's spec.replicas becomes the object's
            updated = copy.deepcopy(current)
            updated.setdefault("spec", {})["replicas"] = (body.get("spec") or {}).get("replicas", 0)
            meta = updated["metadata"]
            meta["generation"] = int(meta.get("generation", 0)) + 1
        elif subresource == "finalize":
            updated = copy.deepcopy(current)
            updated.setdefault("spec", {})["finalizers"] = list(
                (body.get("spec") or {}).get("finalizers") or []
            )
        elif subresource:  # status: the new status and metadata, the old spec (as the apiserver)
            updated = copy.deepcopy(current)
            updated["status"] = body.get("status", {})
            updated["metadata"] = kept_metadata(body.get("metadata") or {}, current["metadata"])
        else:
            updated = body
            updated["status"] = copy.deepcopy(current.get("status", body.get("status")))
            if updated["status"] is None:
                updated.pop("status")
            updated["metadata"] = kept_metadata(updated.get("metadata") or {}, current["metadata"])
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
        if patch_type == STRATEGIC_MERGE_PATCH:
            delete_from_primitive_lists(patched)
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
            return token_request(ns, name, body)
        return copy.deepcopy(dict(body))


def scale_of(obj: Object) -> Object:
    """The autoscaling/v1 Scale the apiserver serves for ``obj`` (spec and status replicas, the
    selector in its string form)."""
    meta, spec, status = obj["metadata"], obj.get("spec") or {}, obj.get("status") or {}
    selector = spec.get("selector")
    return {
        "kind": "Scale",
        "apiVersion": "autoscaling/v1",
        "metadata": {k: meta[k] for k in ("name", "namespace", "uid", "resourceVersion") if k in meta},
        "spec": {"replicas": spec.get("replicas", 0)},
        "status": {
            "replicas": status.get("replicas", 0),
            "selector": str(label_selector_as_selector(selector)) if selector else "",
        },
    }
