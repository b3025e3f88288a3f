"""The ``paths`` of a group-version's OpenAPI v3 document, generated from the scheme.

One path item per URL the resource endpoints serve, in upstream's shape: collections (list,
create, deletecollection), items (read, replace, patch, delete), the cluster-wide list of
namespaced kinds, the legacy ``/watch/`` paths, and each subresource. Every operation carries
upstream's ``operationId`` (``readCoreV1NamespacedPod``), ``tags`` (``core_v1``),
``x-kubernetes-action`` and ``x-kubernetes-group-version-kind``; path parameters are declared
on the path item, query parameters and bodies on the operation. Response schemas name what the
handlers send (JSON only: the server encodes no YAML or protobuf responses).

``kubectl`` reads these documents: its field validation check looks for ``fieldValidation`` on
the kind's PATCH operation, and since 1.28 client-side ``apply`` builds strategic merge
patches from the schema of PATCH's ``application/strategic-merge-patch+json`` body, which is why
the component schemas carry the patch strategies (``openapi_patch``).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from minikube_py.api.models.openapi import ref
from minikube_py.api.scheme import ResourceType, Subresource

Operation = dict[str, Any]
PathItem = dict[str, Any]

META = "io.k8s.apimachinery.pkg.apis.meta.v1"
STATUS = f"{META}.Status"
DELETE_OPTIONS = f"{META}.DeleteOptions"
WATCH_EVENT = f"{META}.WatchEvent"
PATCH = f"{META}.Patch"

JSON = "application/json"
WATCH_STREAM = "application/json;stream=watch"
PATCH_TYPES = (
    "application/apply-patch+yaml",
    "application/json-patch+json",
    "application/merge-patch+json",
    "application/strategic-merge-patch+json",
)
# What the handlers decode (apiserver/endpoints/body.py); upstream declares "*/*".
BODY_TYPES = ("application/json", "application/yaml", "application/vnd.kubernetes.protobuf")

UNAUTHORIZED = {"401": {"description": "Unauthorized"}}


def _query(name: str, kind: str, description: str) -> dict[str, Any]:
    return {
        "name": name,
        "in": "query",
        "description": description,
        "schema": {"type": kind, "uniqueItems": True},
    }


PRETTY = _query("pretty", "string", "If 'true', the output is pretty printed.")
DRY_RUN = _query(
    "dryRun",
    "string",
    "When present, modifications are not persisted. 'All' is the only valid value: every stage "
    "of the dry run is processed.",
)
FIELD_MANAGER = _query(
    "fieldManager", "string", "The name of the actor or entity making these changes (at most 128 characters)."
)
FIELD_VALIDATION = _query(
    "fieldValidation",
    "string",
    "How the server treats unknown and duplicate fields in the body: Ignore, Warn (the default) or Strict.",
)
FORCE = _query("force", "boolean", "Force an apply request to take fields owned by other managers.")
LIST_PARAMETERS = (
    _query("allowWatchBookmarks", "boolean", "Ask for BOOKMARK events on a watch."),
    _query("continue", "string", "The continue token of the previous page of a paginated list."),
    _query("fieldSelector", "string", "Restrict the returned objects by their fields."),
    _query("labelSelector", "string", "Restrict the returned objects by their labels."),
    _query("limit", "integer", "The maximum number of objects to return in one page of a list."),
    _query("resourceVersion", "string", "Which version of the objects to serve (see resourceVersionMatch)."),
    _query("resourceVersionMatch", "string", "How resourceVersion applies: Exact or NotOlderThan."),
    _query("sendInitialEvents", "boolean", "Start a watch with the current objects as ADDED events."),
    _query("timeoutSeconds", "integer", "Timeout of the list or watch call, in seconds."),
    _query("watch", "boolean", "Watch for changes to the described objects and stream them."),
)
DELETE_PARAMETERS = (
    DRY_RUN,
    _query("gracePeriodSeconds", "integer", "Seconds before the object should be deleted; 0: immediately."),
    _query(
        "ignoreStoreReadErrorWithClusterBreakingPotential",
        "boolean",
        "Delete an object whose stored data cannot be read. Dangerous: it bypasses finalizers.",
    ),
    _query("orphanDependents", "boolean", "Deprecated: use propagationPolicy."),
    _query(
        "propagationPolicy",
        "string",
        "Whether and how garbage collection runs: Orphan, Background, Foreground.",
    ),
)
WRITE_PARAMETERS = (DRY_RUN, FIELD_MANAGER, FIELD_VALIDATION)
# The query parameters of the connecting and streaming subresources (upstream's PodLogOptions,
# PodExecOptions, PodAttachOptions and PodPortForwardOptions).
LOG_PARAMETERS = (
    _query("container", "string", "The container to stream the log of (may be omitted with one container)."),
    _query("follow", "boolean", "Follow the log stream."),
    _query(
        "insecureSkipTLSVerifyBackend", "boolean", "Skip verifying the serving certificate of the kubelet."
    ),
    _query("limitBytes", "integer", "The number of bytes to read from the server before ending the log."),
    _query("previous", "boolean", "The log of the container's previous instance."),
    _query("sinceSeconds", "integer", "Relative time in seconds before now from which to show the log."),
    _query("tailLines", "integer", "The number of lines from the end of the log to show."),
    _query("timestamps", "boolean", "Prefix every line with an RFC 3339 timestamp."),
)
_STREAMS = (
    _query("container", "string", "The container to run in (may be omitted with one container)."),
    _query("stderr", "boolean", "Redirect the standard error stream."),
    _query("stdin", "boolean", "Redirect the standard input stream."),
    _query("stdout", "boolean", "Redirect the standard output stream."),
    _query("tty", "boolean", "Allocate a terminal."),
)
CONNECT_PARAMETERS: dict[str, tuple[dict[str, Any], ...]] = {
    "exec": (_query("command", "string", "The command to run, one argument per value."), *_STREAMS),
    "attach": _STREAMS,
    "portforward": (_query("ports", "integer", "The ports to forward, one per value."),),
}


@dataclass(frozen=True)
class Names:
    """How upstream names one kind's operations: ``{verb}{Group}{Version}[Namespaced]{Kind}``."""

    group: str  # camel case without ".k8s.io": "core", "apps", "rbacAuthorization"
    version: str
    kind: str

    @classmethod
    def of(cls, rt: ResourceType) -> Names:
        return cls(group_identifier(rt.group), rt.version, rt.kind)

    @property
    def tag(self) -> str:
        return f"{self.group}_{self.version}"

    def operation_id(self, verb: str, middle: str = "", suffix: str = "") -> str:
        return f"{verb}{_upper_first(self.group)}{_upper_first(self.version)}{middle}{self.kind}{suffix}"


def group_identifier(group: str) -> str:
    """``rbac.authorization.k8s.io`` -> ``rbacAuthorization``, the core group ``core``."""
    if not group:
        return "core"
    parts = group.removesuffix(".k8s.io").split(".")
    return parts[0] + "".join(_upper_first(p) for p in parts[1:])


def _upper_first(text: str) -> str:
    return text[:1].upper() + text[1:]


def _path_parameter(name: str, description: str) -> dict[str, Any]:
    return {
        "name": name,
        "in": "path",
        "required": True,
        "description": description,
        "schema": {"type": "string", "uniqueItems": True},
    }


NAMESPACE = _path_parameter("namespace", "object name and auth scope, such as for teams and projects")


def _content(schema: dict[str, Any], media_types: Iterable[str] = (JSON,)) -> dict[str, Any]:
    return {media: {"schema": schema} for media in media_types}


def _responses(schema: dict[str, Any], *codes: str, media_types: Iterable[str] = (JSON,)) -> dict[str, Any]:
    described = {"200": "OK", "201": "Created", "202": "Accepted"}
    out: dict[str, Any] = {
        code: {"description": described[code], "content": _content(schema, media_types)} for code in codes
    }
    return out | UNAUTHORIZED


def _operation(
    names: Names,
    gvk: tuple[str, str, str],
    operation_id: str,
    action: str,
    description: str,
    responses: dict[str, Any],
    parameters: Iterable[dict[str, Any]] = (),
    body: dict[str, Any] | None = None,
) -> Operation:
    group, version, kind = gvk
    operation: Operation = {
        "description": description,
        "operationId": operation_id,
        "tags": [names.tag],
        "parameters": list(parameters),
    }
    if body is not None:
        operation["requestBody"] = body
    operation["responses"] = responses
    operation["x-kubernetes-action"] = action
    operation["x-kubernetes-group-version-kind"] = {"group": group, "version": version, "kind": kind}
    if not operation["parameters"]:
        del operation["parameters"]
    return operation


def _required_body(schema: dict[str, Any], media_types: Iterable[str] = BODY_TYPES) -> dict[str, Any]:
    return {"content": _content(schema, media_types), "required": True}


class PathBuilder:
    """The path items of the resource types of one group-version. ``schema_of(group, version,
    kind)`` names the component schema of a kind (None: no model, the operation is untyped)."""

    def __init__(self, schema_of: Any) -> None:
        self._schema_of = schema_of
        self.paths: dict[str, PathItem] = {}

    def add(self, rt: ResourceType, *, returns_deleted_object: bool = False) -> None:
        names = Names.of(rt)
        base = "/" + (f"apis/{rt.group}/{rt.version}" if rt.group else f"api/{rt.version}")
        scope = "/namespaces/{namespace}" if rt.namespaced else ""
        middle = "Namespaced" if rt.namespaced else ""
        scope_parameters = [NAMESPACE] if rt.namespaced else []
        gvk = (rt.group, rt.version, rt.kind)
        item_schema = self._typed(rt.group, rt.version, rt.kind)
        list_schema = self._typed(rt.group, rt.version, rt.kind + "List")
        name = _path_parameter("name", f"name of the {rt.kind}")
        verbs = set(rt.verbs)

        collection: PathItem = {}
        if "list" in verbs:
            collection["get"] = _operation(
                names,
                gvk,
                names.operation_id("list", middle),
                "list",
                f"list or watch objects of kind {rt.kind}",
                _responses(list_schema, "200", media_types=(JSON, WATCH_STREAM)),
                LIST_PARAMETERS,
            )
        if "create" in verbs:
            collection["post"] = _operation(
                names,
                gvk,
                names.operation_id("create", middle),
                "post",
                f"create a {rt.kind}",
                _responses(item_schema, "200", "201", "202"),
                WRITE_PARAMETERS,
                _required_body(item_schema),
            )
        if "deletecollection" in verbs:
            collection["delete"] = _operation(
                names,
                gvk,
                names.operation_id("delete", "Collection" + middle),
                "deletecollection",
                f"delete collection of {rt.kind}",
                _responses(list_schema, "200"),  # the deleted objects, as upstream answers
                (*LIST_PARAMETERS, *DELETE_PARAMETERS),
                {"content": _content(ref(DELETE_OPTIONS), (JSON,))},
            )
        self._put(f"{base}{scope}/{rt.resource}", collection, [*scope_parameters, PRETTY])

        item: PathItem = {}
        if "get" in verbs:
            item["get"] = _operation(
                names,
                gvk,
                names.operation_id("read", middle),
                "get",
                f"read the specified {rt.kind}",
                _responses(item_schema, "200"),
            )
        if "update" in verbs:
            item["put"] = _operation(
                names,
                gvk,
                names.operation_id("replace", middle),
                "put",
                f"replace the specified {rt.kind}",
                _responses(item_schema, "200", "201"),
                WRITE_PARAMETERS,
                _required_body(item_schema),
            )
        if "patch" in verbs:
            item["patch"] = self._patch(names, gvk, names.operation_id("patch", middle), rt.kind, item_schema)
        if "delete" in verbs:
            deleted = item_schema if returns_deleted_object else ref(STATUS)
            item["delete"] = _operation(
                names,
                gvk,
                names.operation_id("delete", middle),
                "delete",
                f"delete a {rt.kind}",
                _responses(deleted, "200", "202"),
                DELETE_PARAMETERS,
                {"content": _content(ref(DELETE_OPTIONS), (JSON,))},
            )
        self._put(f"{base}{scope}/{rt.resource}/{{name}}", item, [name, *scope_parameters, PRETTY])

        if "list" in verbs and rt.namespaced:
            everywhere = {
                "get": _operation(
                    names,
                    gvk,
                    names.operation_id("list", suffix="ForAllNamespaces"),
                    "list",
                    f"list or watch objects of kind {rt.kind}",
                    _responses(list_schema, "200", media_types=(JSON, WATCH_STREAM)),
                )
            }
            self._put(f"{base}/{rt.resource}", everywhere, [*LIST_PARAMETERS, PRETTY])
        if "watch" in verbs:
            self._watch_paths(rt, names, base, scope, middle, scope_parameters, name)
        for sub in rt.subresources:
            self._subresource(rt, sub, names, f"{base}{scope}/{rt.resource}/{{name}}", middle)
        # the subresources' path items take the parent's path parameters too
        for sub in rt.subresources:
            path = f"{base}{scope}/{rt.resource}/{{name}}/{sub.name}"
            if path in self.paths:
                self.paths[path]["parameters"] = [
                    _path_parameter("name", f"name of the {sub.kind or rt.kind}"),
                    *scope_parameters,
                    *([] if sub.name in CONNECT_PARAMETERS or sub.name == "log" else [PRETTY]),
                ]

    def _typed(self, group: str, version: str, kind: str) -> dict[str, Any]:
        name = self._schema_of(group, version, kind)
        return ref(name) if name else {"type": "object"}

    def _put(self, path: str, item: PathItem, parameters: list[dict[str, Any]]) -> None:
        if item:
            self.paths[path] = item | {"parameters": parameters}

    def _patch(
        self, names: Names, gvk: tuple[str, str, str], operation_id: str, kind: str, schema: dict[str, Any]
    ) -> Operation:
        return _operation(
            names,
            gvk,
            operation_id,
            "patch",
            f"partially update the specified {kind}",
            _responses(schema, "200", "201"),
            (*WRITE_PARAMETERS, FORCE),
            {"content": _content(ref(PATCH), PATCH_TYPES), "required": True},
        )

    def _watch_paths(
        self,
        rt: ResourceType,
        names: Names,
        base: str,
        scope: str,
        middle: str,
        scope_parameters: list[dict[str, Any]],
        name: dict[str, Any],
    ) -> None:
        """The legacy ``/watch/`` paths upstream still serves (and documents as deprecated)."""
        gvk = (rt.group, rt.version, rt.kind)
        events = _responses(ref(WATCH_EVENT), "200", media_types=(JSON, WATCH_STREAM))
        list_watch = _operation(
            names,
            gvk,
            names.operation_id("watch", middle, "List"),
            "watchlist",
            f"watch individual changes to a list of {rt.kind}. deprecated: use the 'watch' parameter "
            "with a list operation instead.",
            events,
        )
        self._put(
            f"{base}/watch{scope}/{rt.resource}", {"get": list_watch}, [*LIST_PARAMETERS, *scope_parameters]
        )
        one = _operation(
            names,
            gvk,
            names.operation_id("watch", middle),
            "watch",
            f"watch changes to an object of kind {rt.kind}. deprecated: use the 'watch' parameter with a "
            "list operation instead, filtered to a single item with the 'fieldSelector' parameter.",
            events,
        )
        self._put(
            f"{base}/watch{scope}/{rt.resource}/{{name}}",
            {"get": one},
            [*LIST_PARAMETERS, name, *scope_parameters],
        )
        if rt.namespaced:
            everywhere = _operation(
                names,
                gvk,
                names.operation_id("watch", suffix="ListForAllNamespaces"),
                "watchlist",
                f"watch individual changes to a list of {rt.kind}. deprecated: use the 'watch' parameter "
                "with a list operation instead.",
                events,
            )
            self._put(f"{base}/watch/{rt.resource}", {"get": everywhere}, list(LIST_PARAMETERS))

    def _subresource(
        self, rt: ResourceType, sub: Subresource, names: Names, item_path: str, middle: str
    ) -> None:
        """``status`` and ``scale`` read, replace and patch; ``binding``, ``eviction`` and
        ``token`` create; ``log`` reads text; ``exec``, ``attach`` and ``portforward``
        connect; ``finalize`` replaces."""
        suffix = _upper_first(sub.name)
        if sub.kind:
            group = rt.group if sub.group is None else sub.group
            gvk = (group, sub.version or rt.version, sub.kind)
        else:
            gvk = (rt.group, rt.version, rt.kind)
        schema = self._typed(*gvk)
        item: PathItem = {}
        if sub.name == "log":
            item["get"] = _operation(
                names,
                gvk,
                names.operation_id("read", middle, suffix),
                "get",
                f"read log of the specified {rt.kind}",
                _responses({"type": "string"}, "200", media_types=("text/plain",)),
                LOG_PARAMETERS,
            )
        elif sub.name in CONNECT_PARAMETERS:
            text = _responses({"type": "string"}, "200", media_types=("*/*",))
            for verb in sub.verbs:
                method = "get" if verb == "get" else "post"
                item[method] = _operation(
                    names,
                    gvk,
                    names.operation_id("connect", _upper_first(method) + middle, suffix),
                    "connect",
                    f"connect {method.upper()} requests to {sub.name} of {rt.kind}",
                    text,
                    CONNECT_PARAMETERS[sub.name],
                )
        else:
            what = f"{sub.name} of the specified {rt.kind}"
            if "get" in sub.verbs:
                item["get"] = _operation(
                    names,
                    gvk,
                    names.operation_id("read", middle, suffix),
                    "get",
                    f"read {what}",
                    _responses(schema, "200"),
                )
            if "update" in sub.verbs:
                item["put"] = _operation(
                    names,
                    gvk,
                    names.operation_id("replace", middle, suffix),
                    "put",
                    f"replace {what}",
                    _responses(schema, "200", "201"),
                    WRITE_PARAMETERS,
                    _required_body(schema),
                )
            if "patch" in sub.verbs:
                operation = self._patch(
                    names, gvk, names.operation_id("patch", middle, suffix), rt.kind, schema
                )
                operation["description"] = f"partially update {what}"
                item["patch"] = operation
            if "create" in sub.verbs:
                item["post"] = _operation(
                    names,
                    gvk,
                    names.operation_id("create", middle, suffix),
                    "post",
                    f"create {sub.name} of a {rt.kind}",
                    _responses(schema, "200", "201", "202"),
                    WRITE_PARAMETERS,
                    _required_body(schema),
                )
        if item:
            self.paths[f"{item_path}/{sub.name}"] = item
