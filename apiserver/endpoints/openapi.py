"""OpenAPI as kubectl needs it (kubectl-wire.md §3 and §20).

``/openapi/v2`` answers 200 with an empty protobuf document (kubectl never parses JSON there;
zero bytes is a valid empty message, and kubectl 1.27 insists on fetching it). ``/openapi/v3`` is
an index of one document per group-version. Each document declares, on every kind's PATCH
operation, the ``fieldValidation`` parameter with the kind's ``x-kubernetes-group-version-kind``,
which is how kubectl learns that the server validates fields itself (so it skips client-side
validation). ``components.schemas`` holds the kinds' schemas, generated from the models, for
``kubectl explain``. No operation declares a ``requestBody``: with one, kubectl 1.33 client-side
apply would build strategic merge patches from these schemas instead of its compiled-in types.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from apiserver.endpoints.openapi_patch import extensions_from, patch_annotations
from minikube_py.api import errors
from minikube_py.api.models import model_for
from minikube_py.api.models.openapi import SchemaSet
from minikube_py.api.scheme import ResourceType, Scheme

INFO = {"title": "Kubernetes", "version": "v1.32.0"}
QUERY_PARAMETERS = ("fieldValidation", "fieldManager", "dryRun")


def openapi_v2(request: Request) -> Response:
    return Response(b"", media_type="application/octet-stream")


def _gv_path(group: str, version: str) -> str:
    return f"apis/{group}/{version}" if group else f"api/{version}"


def group_version_document(scheme: Scheme, group: str, version: str) -> dict[str, Any]:
    """The v3 document of one group-version: PATCH operations and the kinds' schemas."""
    types = scheme.in_group_version(group, version)
    schemas = SchemaSet(extensions_from(patch_annotations(scheme)))
    paths: dict[str, Any] = {}
    for rt in types:
        paths[_item_path(rt)] = {"patch": _patch_operation(rt)}
        _add_kind(schemas, rt.group, rt.version, rt.kind, with_list=True)
        for sub in rt.subresources:
            if sub.kind:
                sub_group = rt.group if sub.group is None else sub.group
                _add_kind(schemas, sub_group, sub.version or version, sub.kind, with_list=False)
    return {"openapi": "3.0.0", "info": INFO, "paths": paths, "components": {"schemas": schemas.schemas}}


def _add_kind(schemas: SchemaSet, group: str, version: str, kind: str, *, with_list: bool) -> None:
    """Add ``kind``'s schema (and its list's) when it has a model."""
    model = model_for(f"{group}/{version}" if group else version, kind)
    if model is None:
        return
    schemas.add(model, [(group, version, kind)])
    if with_list:
        schemas.add_list(model, group, version, kind)


def _item_path(rt: ResourceType) -> str:
    base = "/" + _gv_path(rt.group, rt.version)
    scope = "/namespaces/{namespace}" if rt.namespaced else ""
    return f"{base}{scope}/{rt.resource}/{{name}}"


def _patch_operation(rt: ResourceType) -> dict[str, Any]:
    return {
        "x-kubernetes-group-version-kind": {"group": rt.group, "version": rt.version, "kind": rt.kind},
        "parameters": [
            {"name": name, "in": "query", "schema": {"type": "string", "uniqueItems": True}}
            for name in QUERY_PARAMETERS
        ],
        "responses": {"200": {"description": "OK"}},
    }


class OpenAPIv3:
    """The v3 index and documents, computed once per scheme (hashes feed kubectl's cache)."""

    def __init__(self, scheme: Scheme) -> None:
        self._documents: dict[str, bytes] = {}
        for group, version in scheme.group_versions():
            doc = group_version_document(scheme, group, version)
            self._documents[_gv_path(group, version)] = json.dumps(doc).encode()

    def index(self, request: Request) -> Response:
        paths = {
            path: {
                "serverRelativeURL": f"/openapi/v3/{path}?hash={hashlib.sha512(doc).hexdigest()[:32].upper()}"
            }
            for path, doc in self._documents.items()
        }
        return JSONResponse({"paths": paths})

    def document(self, request: Request) -> Response:
        path = request.path_params["path"]
        doc = self._documents.get(path)
        if doc is None:
            err = errors.ApiError(404, "NotFound", "the server could not find the requested resource")
            return JSONResponse(err.status(), status_code=404)
        return Response(doc, media_type="application/json")
