"""OpenAPI as kubectl needs it (kubectl-wire.md §3).

``/openapi/v2`` answers 200 with an empty protobuf document (kubectl never parses JSON there;
zero bytes is a valid empty message). ``/openapi/v3`` is an index of one document per
group-version; each declares, on every kind's PATCH operation, the ``fieldValidation``
parameter with the kind's ``x-kubernetes-group-version-kind``, which is how kubectl learns that
the server validates fields itself. Full schemas (for ``kubectl explain``) come from the models
in a later step.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from minikube_py.api import errors
from minikube_py.api.scheme import ResourceType, Scheme


def openapi_v2(request: Request) -> Response:
    return Response(b"", media_type="application/octet-stream")


def _gv_path(group: str, version: str) -> str:
    return f"apis/{group}/{version}" if group else f"api/{version}"


def group_version_document(scheme: Scheme, group: str, version: str) -> dict[str, Any]:
    paths: dict[str, Any] = {}
    for rt in scheme.in_group_version(group, version):
        paths[_item_path(rt)] = {"patch": _patch_operation(rt)}
    return {
        "openapi": "3.0.0",
        "info": {"title": "Kubernetes", "version": "v1.32.0"},
        "paths": paths,
        "components": {"schemas": {}},
    }


def _item_path(rt: ResourceType) -> str:
    base = "/" + _gv_path(rt.group, rt.version)
    scope = "/namespaces/{namespace}" if rt.namespaced else ""
    return f"{base}{scope}/{rt.resource}/{{name}}"


def _patch_operation(rt: ResourceType) -> dict[str, Any]:
    return {
        "x-kubernetes-group-version-kind": {"group": rt.group, "version": rt.version, "kind": rt.kind},
        "parameters": [
            {"name": "fieldValidation", "in": "query", "schema": {"type": "string", "uniqueItems": True}},
            {"name": "fieldManager", "in": "query", "schema": {"type": "string", "uniqueItems": True}},
            {"name": "dryRun", "in": "query", "schema": {"type": "string", "uniqueItems": True}},
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
