"""The ``paths`` of a group-version's OpenAPI v3 document, generated from the scheme.

One path item per URL the resource endpoints serve, in upstream's shape: collections (list,
create, deletecollection), items (read, replace, patch, delete), the cluster-wide list of
namespaced kinds, the legacy ``/watch/`` paths, and each subresource. Every operation carries
upstream's ``operationId`` (``readCoreV1NamespacedPod``), ``tags`` (``core_v1``),
``x-kubernetes-action`` and ``x-kubernetes-group-version-kind``; path parameters are declared
on the path item, query parameters and bodies on the operation (their shapes and names:
``openapi_operations``).

``kubectl`` reads these documents: its field validation check looks for ``fieldValidation`` on
the kind's PATCH operation, and since 1.28 client-side ``apply`` builds strategic merge
patches from the schema of PATCH's ``application/strategic-merge-patch+json`` body, which is why
the component schemas carry the patch strategies (``openapi_patch``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from apiserver.endpoints.openapi_operations import (
    DELETE_OPTIONS,
    JSON,
    PATCH,
    PATCH_TYPES,
    STATUS,
    WATCH_EVENT,
    WATCH_STREAM,
    Kind,
    Names,
    Operation,
    content,
    required_body,
    responses,
    upper_first,
)
from apiserver.endpoints.openapi_parameters import (
    CONNECT_PARAMETERS,
    DELETE_PARAMETERS,
    FORCE,
    LIST_PARAMETERS,
    LOG_PARAMETERS,
    NAMESPACE,
    PRETTY,
    WRITE_PARAMETERS,
    path_parameter,
    query,
)
from minikube_py.api.models.openapi import ref
from minikube_py.api.scheme import ResourceType, Subresource

# the methods the proxy subresources connect, in upstream's order
PROXY_METHODS = ("get", "put", "post", "delete", "options", "head", "patch")

PathItem = dict[str, Any]


class PathBuilder:
    """The path items of the resource types of one group-version. ``schema_of(group, version,
    kind)`` names the component schema of a kind (None: no model, the operation is untyped)."""

    def __init__(self, schema_of: Callable[[str, str, str], str | None]) -> None:
        self._schema_of = schema_of
        self.paths: dict[str, PathItem] = {}

    def add(self, rt: ResourceType, *, returns_deleted_object: bool = False) -> None:
        kind = Kind(
            rt,
            Names.of(rt),
            "/" + (f"apis/{rt.group}/{rt.version}" if rt.group else f"api/{rt.version}"),
            "/namespaces/{namespace}" if rt.namespaced else "",
            "Namespaced" if rt.namespaced else "",
            (NAMESPACE,) if rt.namespaced else (),
            self._typed(rt.group, rt.version, rt.kind),
            self._typed(rt.group, rt.version, rt.kind + "List"),
        )
        self._collection(kind)
        self._item(kind, returns_deleted_object)
        if "list" in rt.verbs and rt.namespaced:
            self._all_namespaces(kind)
        if "watch" in rt.verbs:
            self._watch_paths(kind)
        for sub in rt.subresources:
            self._subresource(kind, sub)

    def _typed(self, group: str, version: str, kind: str) -> dict[str, Any]:
        name = self._schema_of(group, version, kind)
        return ref(name) if name else {"type": "object"}

    def _put(self, path: str, item: PathItem, parameters: Iterable[dict[str, Any]]) -> None:
        if item:
            self.paths[path] = item | {"parameters": list(parameters)}

    def _collection(self, kind: Kind) -> None:
        """List (and watch with ``watch``), create, deletecollection."""
        rt, ids, item = kind.rt, kind.names, PathItem()
        if "list" in rt.verbs:
            item["get"] = kind.operation(
                ids.operation_id("list", kind.middle),
                "list",
                f"list or watch objects of kind {rt.kind}",
                responses(kind.list_schema, "200", media_types=(JSON, WATCH_STREAM)),
                LIST_PARAMETERS,
            )
        if "create" in rt.verbs:
            item["post"] = kind.operation(
                ids.operation_id("create", kind.middle),
                "post",
                f"create a {rt.kind}",
                responses(kind.item_schema, "200", "201", "202"),
                WRITE_PARAMETERS,
                required_body(kind.item_schema),
            )
        if "deletecollection" in rt.verbs:
            item["delete"] = kind.operation(
                ids.operation_id("delete", "Collection" + kind.middle),
                "deletecollection",
                f"delete collection of {rt.kind}",
                responses(kind.list_schema, "200"),  # the deleted objects, as upstream answers
                (*LIST_PARAMETERS, *DELETE_PARAMETERS),
                {"content": content(ref(DELETE_OPTIONS), (JSON,))},
            )
        self._put(kind.collection_path, item, [*kind.scope_parameters, PRETTY])

    def _item(self, kind: Kind, returns_deleted_object: bool) -> None:
        """Read, replace, patch, delete."""
        rt, ids, item = kind.rt, kind.names, PathItem()
        if "get" in rt.verbs:
            item["get"] = kind.operation(
                ids.operation_id("read", kind.middle),
                "get",
                f"read the specified {rt.kind}",
                responses(kind.item_schema, "200"),
            )
        if "update" in rt.verbs:
            item["put"] = kind.operation(
                ids.operation_id("replace", kind.middle),
                "put",
                f"replace the specified {rt.kind}",
                responses(kind.item_schema, "200", "201"),
                WRITE_PARAMETERS,
                required_body(kind.item_schema),
            )
        if "patch" in rt.verbs:
            item["patch"] = self._patch(
                kind, ids.operation_id("patch", kind.middle), f"the specified {rt.kind}", kind.item_schema
            )
        if "delete" in rt.verbs:
            deleted = kind.item_schema if returns_deleted_object else ref(STATUS)
            item["delete"] = kind.operation(
                ids.operation_id("delete", kind.middle),
                "delete",
                f"delete a {rt.kind}",
                responses(deleted, "200", "202"),
                DELETE_PARAMETERS,
                {"content": content(ref(DELETE_OPTIONS), (JSON,))},
            )
        self._put(kind.item_path, item, [kind.name, *kind.scope_parameters, PRETTY])

    def _all_namespaces(self, kind: Kind) -> None:
        """``/api/v1/pods``: a namespaced kind listed across namespaces."""
        listing = kind.operation(
            kind.names.operation_id("list", suffix="ForAllNamespaces"),
            "list",
            f"list or watch objects of kind {kind.rt.kind}",
            responses(kind.list_schema, "200", media_types=(JSON, WATCH_STREAM)),
        )
        self._put(f"{kind.base}/{kind.rt.resource}", {"get": listing}, [*LIST_PARAMETERS, PRETTY])

    def _patch(
        self,
        kind: Kind,
        operation_id: str,
        what: str,
        schema: dict[str, Any],
        gvk: tuple[str, str, str] | None = None,
    ) -> Operation:
        return kind.operation(
            operation_id,
            "patch",
            f"partially update {what}",
            responses(schema, "200", "201"),
            (*WRITE_PARAMETERS, FORCE),
            {"content": content(ref(PATCH), PATCH_TYPES), "required": True},
            gvk=gvk,
        )

    def _watch_paths(self, kind: Kind) -> None:
        """The legacy ``/watch/`` paths upstream still serves (and documents as deprecated)."""
        rt, ids = kind.rt, kind.names
        events = responses(ref(WATCH_EVENT), "200", media_types=(JSON, WATCH_STREAM))
        deprecated = "deprecated: use the 'watch' parameter with a list operation instead"
        watch_list = f"watch individual changes to a list of {rt.kind}. {deprecated}."
        list_watch = kind.operation(
            ids.operation_id("watch", kind.middle, "List"), "watchlist", watch_list, events
        )
        watch_base = f"{kind.base}/watch{kind.scope}/{rt.resource}"
        self._put(watch_base, {"get": list_watch}, [*LIST_PARAMETERS, *kind.scope_parameters])
        one = kind.operation(
            ids.operation_id("watch", kind.middle),
            "watch",
            f"watch changes to an object of kind {rt.kind}. {deprecated}, filtered to a single item "
            "with the 'fieldSelector' parameter.",
            events,
        )
        self._put(
            f"{watch_base}/{{name}}", {"get": one}, [*LIST_PARAMETERS, kind.name, *kind.scope_parameters]
        )
        if rt.namespaced:
            everywhere = kind.operation(
                ids.operation_id("watch", suffix="ListForAllNamespaces"), "watchlist", watch_list, events
            )
            self._put(f"{kind.base}/watch/{rt.resource}", {"get": everywhere}, LIST_PARAMETERS)

    def _subresource(self, kind: Kind, sub: Subresource) -> None:
        """``status`` and ``scale`` read, replace and patch; ``binding``, ``eviction`` and
        ``token`` create; ``log`` reads text; ``exec``, ``attach`` and ``portforward``
        connect; ``finalize`` replaces. The operations name the subresource's kind (Scale,
        Eviction, TokenRequest), the parent's when it has none (status, finalize)."""
        rt, ids, middle, suffix = kind.rt, kind.names, kind.middle, upper_first(sub.name)
        if sub.kind:
            gvk = (rt.group if sub.group is None else sub.group, sub.version or rt.version, sub.kind)
        else:
            gvk = kind.gvk
        if sub.name == "proxy":
            self._proxy(kind, gvk)
            return
        schema = self._typed(*gvk)
        item = PathItem()
        streaming = sub.name == "log" or sub.name in CONNECT_PARAMETERS
        if sub.name == "log":
            item["get"] = kind.operation(
                ids.operation_id("read", middle, suffix),
                "get",
                f"read log of the specified {rt.kind}",
                responses({"type": "string"}, "200", media_types=("text/plain",)),
                LOG_PARAMETERS,
                gvk=gvk,
            )
        elif sub.name in CONNECT_PARAMETERS:
            text = responses({"type": "string"}, "200", media_types=("*/*",))
            for method in dict.fromkeys("get" if verb == "get" else "post" for verb in sub.verbs):
                item[method] = kind.operation(
                    ids.operation_id("connect", upper_first(method) + middle, suffix),
                    "connect",
                    f"connect {method.upper()} requests to {sub.name} of {rt.kind}",
                    text,
                    CONNECT_PARAMETERS[sub.name],
                    gvk=gvk,
                )
        else:
            what = f"{sub.name} of the specified {rt.kind}"
            if "get" in sub.verbs:
                item["get"] = kind.operation(
                    ids.operation_id("read", middle, suffix),
                    "get",
                    f"read {what}",
                    responses(schema, "200"),
                    gvk=gvk,
                )
            if "update" in sub.verbs:
                item["put"] = kind.operation(
                    ids.operation_id("replace", middle, suffix),
                    "put",
                    f"replace {what}",
                    responses(schema, "200", "201"),
                    WRITE_PARAMETERS,
                    required_body(schema),
                    gvk=gvk,
                )
            if "patch" in sub.verbs:
                item["patch"] = self._patch(
                    kind, ids.operation_id("patch", middle, suffix), what, schema, gvk
                )
            if "create" in sub.verbs:
                item["post"] = kind.operation(
                    ids.operation_id("create", middle, suffix),
                    "post",
                    f"create {sub.name} of a {rt.kind}",
                    responses(schema, "200", "201", "202"),
                    WRITE_PARAMETERS,
                    required_body(schema),
                    gvk=gvk,
                )
        name = path_parameter("name", f"name of the {sub.kind or rt.kind}")
        self._put(
            f"{kind.item_path}/{sub.name}",
            item,
            [name, *kind.scope_parameters, *([] if streaming else [PRETTY])],
        )

    def _proxy(self, kind: Kind, gvk: tuple[str, str, str]) -> None:
        """``proxy``: every proxied method connects, at ``.../proxy`` and ``.../proxy/{path}``."""
        rt, ids, middle = kind.rt, kind.names, kind.middle
        text = responses({"type": "string"}, "200", media_types=("*/*",))
        described = rt.kind.lower()
        option = query(
            "path", "string", f"Path is the URL path to use for the current proxy request to {described}."
        )
        name = path_parameter("name", f"name of the {gvk[2]}")
        for suffix, path, extra in (
            ("Proxy", f"{kind.item_path}/proxy", []),
            (
                "ProxyWithPath",
                f"{kind.item_path}/proxy/{{path}}",
                [path_parameter("path", "path to the resource")],
            ),
        ):
            item = PathItem()
            for method in PROXY_METHODS:
                item[method] = kind.operation(
                    ids.operation_id("connect", upper_first(method) + middle, suffix),
                    "connect",
                    f"connect {method.upper()} requests to proxy of {rt.kind}",
                    text,
                    gvk=gvk,
                )
            self._put(path, item, [name, *kind.scope_parameters, *extra, option])
