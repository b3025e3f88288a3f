"""The OpenAPI documents, generated from the scheme and the models, as upstream serves them.

``/openapi/v3`` is an index of one document per group-version (``api/v1``, ``apis/apps/v1``),
each linked with a content hash; ``/openapi/v3/<group-version>`` is that document: every path
the resource endpoints serve with its operations (``openapi_paths``, ``openapi_operations``) and
the component schemas of the kinds (``minikube_py.api.models.openapi``, with the strategic merge
patch metadata of ``openapi_patch``). ``/openapi/v2`` is one Swagger 2.0 document of every group-version
(``openapi_v2``), as JSON or as the gnostic protobuf message kubectl asks for
(``openapi_proto``).

What kubectl reads: ``fieldValidation`` on each kind's PATCH operation tells it the server
validates fields (so it skips client-side validation); ``explain`` renders the v3 schemas;
``apply`` computes strategic merge patches from the schemas' patch strategies (v3 since 1.28,
v2 on 1.27). Every document is built once, on first request, and served with upstream's ETag
(the SHA-512 of the body) so clients' caches revalidate with ``If-None-Match``.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
from collections.abc import Callable
from functools import cached_property
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from apiserver.endpoints import openapi_proto, openapi_v2
from apiserver.endpoints.openapi_operations import PATCH, WATCH_EVENT
from apiserver.endpoints.openapi_patch import Annotations, extensions_from, patch_annotations
from apiserver.endpoints.openapi_paths import PathBuilder
from minikube_py.api import errors
from minikube_py.api.models import model_for
from minikube_py.api.models.meta import DeleteOptions, Status
from minikube_py.api.models.openapi import SchemaSet, ref
from minikube_py.api.scheme import ResourceType, Scheme

INFO = {"title": "Kubernetes", "version": "v1.32.0"}
RAW_EXTENSION = "io.k8s.apimachinery.pkg.runtime.RawExtension"

V2_PROTOBUF = "application/com.github.proto-openapi.spec.v2.v1.0+protobuf"
V2_PROTOBUF_ACCEPTED = (V2_PROTOBUF, "application/com.github.proto-openapi.spec.v2@v1.0+protobuf")

ReturnsDeleted = Callable[[ResourceType], bool]


def _gv_path(group: str, version: str) -> str:
    return f"apis/{group}/{version}" if group else f"api/{version}"


def _never(rt: ResourceType) -> bool:
    return False


def group_version_document(
    scheme: Scheme,
    group: str,
    version: str,
    returns_deleted_object: ReturnsDeleted = _never,
    annotations: Annotations | None = None,
) -> dict[str, Any]:
    """The v3 document of one group-version: its paths and the schemas they name.

    ``returns_deleted_object(rt)``: whether DELETE answers with the object rather than a
    ``Status`` (the strategy's choice, as upstream documents it). ``annotations``: the patch
    metadata of every kind of ``scheme`` (models are shared between groups), computed when
    not given."""
    types = scheme.in_group_version(group, version)
    schemas = SchemaSet(extensions_from(patch_annotations(scheme) if annotations is None else annotations))

    def schema_of(g: str, v: str, kind: str) -> str | None:
        if kind.endswith("List") and scheme.by_kind(f"{g}/{v}" if g else v, kind[:-4]) is not None:
            model = model_for(f"{g}/{v}" if g else v, kind[:-4])
            return None if model is None else schemas.add_list(model, g, v, kind[:-4])
        model = model_for(f"{g}/{v}" if g else v, kind)
        return None if model is None else schemas.add(model, [(g, v, kind)])

    builder = PathBuilder(schema_of)
    for rt in types:
        builder.add(rt, returns_deleted_object=returns_deleted_object(rt))
    _add_meta_schemas(schemas, group, version)
    return {
        "openapi": "3.0.0",
        "info": INFO,
        "paths": builder.paths,
        "components": {"schemas": dict(sorted(schemas.schemas.items()))},
    }


def _add_meta_schemas(schemas: SchemaSet, group: str, version: str) -> None:
    """The meta types the operations name: Status, DeleteOptions, WatchEvent and Patch."""
    schemas.add(Status, [("", "v1", "Status")])
    schemas.add(DeleteOptions, [(group, version, "DeleteOptions")])
    schemas.schemas[WATCH_EVENT] = {
        "description": "An event on a watch stream: the type of the change and the object changed.",
        "type": "object",
        "properties": {
            "object": {
                "allOf": [ref(RAW_EXTENSION)],
                "description": "The object: for ADDED and MODIFIED its new state, for DELETED its state "
                "before deletion, for BOOKMARK only its resourceVersion, for ERROR a Status.",
            },
            "type": {"type": "string", "description": "ADDED, MODIFIED, DELETED, BOOKMARK or ERROR."},
        },
        "required": ["type", "object"],
        "x-kubernetes-group-version-kind": [{"group": group, "kind": "WatchEvent", "version": version}],
    }
    schemas.schemas[RAW_EXTENSION] = {"description": "An object of any kind, as JSON.", "type": "object"}
    schemas.schemas[PATCH] = {
        "description": "The body of a PATCH request: a JSON patch, a merge patch, a strategic merge patch "
        "or an apply configuration, as its Content-Type says.",
        "type": "object",
    }


def _etag(body: bytes) -> str:
    return '"' + hashlib.sha512(body).hexdigest().upper() + '"'


def _cached(request: Request, body: bytes, media_type: str, etag: str, immutable: bool = False) -> Response:
    """``body`` with its ETag; 304 when the client holds it already."""
    headers = {"ETag": etag, "Vary": "Accept"}
    headers["Cache-Control"] = "public, immutable" if immutable else "no-cache, private"
    if etag in {t.strip() for t in request.headers.get("if-none-match", "").split(",")}:
        return Response(status_code=304, headers=headers)
    return Response(body, media_type=media_type, headers=headers)


def _accepts(request: Request, media_types: tuple[str, ...]) -> bool:
    accept = request.headers.get("accept", "")
    offered = {part.split(";")[0].strip().lower() for part in accept.split(",")}
    return bool(offered & set(media_types))


class OpenAPI:
    """The v3 index and documents and the v2 document of one scheme, each built on first use."""

    def __init__(self, scheme: Scheme, returns_deleted_object: ReturnsDeleted = _never) -> None:
        self._scheme = scheme
        self._returns_deleted_object = returns_deleted_object
        self._gv_paths = {_gv_path(g, v): (g, v) for g, v in scheme.group_versions()}
        self._v3: dict[str, tuple[bytes, str]] = {}
        self._v2_building = asyncio.Lock()
        self._annotations: Annotations | None = None

    def v3_document(self, path: str) -> dict[str, Any]:
        group, version = self._gv_paths[path]
        if self._annotations is None:
            self._annotations = patch_annotations(self._scheme)
        return group_version_document(
            self._scheme, group, version, self._returns_deleted_object, self._annotations
        )

    def _v3_bytes(self, path: str) -> tuple[bytes, str]:
        if path not in self._v3:
            body = json.dumps(self.v3_document(path)).encode()
            self._v3[path] = (body, hashlib.sha512(body).hexdigest()[:32].upper())
        return self._v3[path]

    def index(self, request: Request) -> Response:
        paths = {
            path: {"serverRelativeURL": f"/openapi/v3/{path}?hash={self._v3_bytes(path)[1]}"}
            for path in self._gv_paths
        }
        return JSONResponse({"paths": paths})

    def document(self, request: Request) -> Response:
        path = request.path_params["path"]
        if path not in self._gv_paths:
            err = errors.ApiError(404, "NotFound", "the server could not find the requested resource")
            return JSONResponse(err.status(), status_code=404)
        body, short_hash = self._v3_bytes(path)
        asked = request.query_params.get("hash")
        if asked is not None and asked != short_hash:  # a stale link: upstream redirects to the current one
            return Response(status_code=301, headers={"Location": f"/openapi/v3/{path}?hash={short_hash}"})
        return _cached(request, body, "application/json", _etag(body), immutable=asked is not None)

    @cached_property
    def v2_document(self) -> dict[str, Any]:
        documents = [self.v3_document(path) for path in self._gv_paths]
        return openapi_v2.swagger_document(documents, INFO)

    @cached_property
    def _v2_json(self) -> tuple[bytes, str]:
        body = json.dumps(self.v2_document).encode()
        return body, _etag(body)

    @cached_property
    def _v2_protobuf(self) -> tuple[bytes, str]:
        body = openapi_proto.encode_document(self.v2_document)
        return body, _etag(body)

    async def v2(self, request: Request) -> Response:
        """Protobuf when asked for it (kubectl), JSON otherwise (upstream's negotiation). The
        first request builds both encodings in a thread (about a second of CPU), so the event
        loop keeps serving meanwhile."""
        async with self._v2_building:
            if "_v2_protobuf" not in vars(self):
                await asyncio.to_thread(lambda: (self._v2_json, self._v2_protobuf))
        if _accepts(request, V2_PROTOBUF_ACCEPTED):
            body, etag = self._v2_protobuf
            return _cached(request, body, V2_PROTOBUF, etag)
        body, etag = self._v2_json
        return _cached(request, body, "application/json", etag)
