"""How upstream's OpenAPI v3 operations look, for ``openapi_paths``: the media types and meta
schemas they name, each kind's operation names (``Names``: ``operationId`` and ``tags``), the
response and request-body shapes, and what every operation of one resource type shares
(``Kind``: its URL parts, schemas, ``x-kubernetes-group-version-kind``).

Response schemas name what the handlers send (JSON only: the server encodes no YAML or protobuf
responses); request bodies list the media types the handlers decode.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from apiserver.endpoints.openapi_parameters import path_parameter
from minikube_py.api.scheme import ResourceType

Operation = dict[str, Any]

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
        return f"{verb}{upper_first(self.group)}{upper_first(self.version)}{middle}{self.kind}{suffix}"


def group_identifier(group: str) -> str:
    """``rbac.authorization.k8s.io`` -> ``rbacAuthorization``, the core group ``core``."""
    if not group:
        return "core"
    parts = group.removesuffix(".k8s.io").split(".")
    return parts[0] + "".join(upper_first(p) for p in parts[1:])


def upper_first(text: str) -> str:
    """``apps`` -> ``Apps``, as operation ids join their parts."""
    return text[:1].upper() + text[1:]


def content(schema: dict[str, Any], media_types: Iterable[str] = (JSON,)) -> dict[str, Any]:
    """A ``content`` map: ``schema`` under each media type."""
    return {media: {"schema": schema} for media in media_types}


def responses(schema: dict[str, Any], *codes: str, media_types: Iterable[str] = (JSON,)) -> dict[str, Any]:
    """The successful ``codes`` answering ``schema``, and the 401 upstream documents."""
    described = {"200": "OK", "201": "Created", "202": "Accepted"}
    out: dict[str, Any] = {
        code: {"description": described[code], "content": content(schema, media_types)} for code in codes
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


def required_body(schema: dict[str, Any], media_types: Iterable[str] = BODY_TYPES) -> dict[str, Any]:
    """A request body the operation requires, in the media types the handlers decode."""
    return {"content": content(schema, media_types), "required": True}


@dataclass(frozen=True)
class Kind:
    """What every path of one resource type shares: names, URL parts and schemas."""

    rt: ResourceType
    names: Names
    base: str  # /api/v1, /apis/apps/v1
    scope: str  # /namespaces/{namespace} for namespaced kinds
    middle: str  # "Namespaced" in namespaced kinds' operationIds
    scope_parameters: tuple[dict[str, Any], ...]
    item_schema: dict[str, Any]
    list_schema: dict[str, Any]

    @property
    def gvk(self) -> tuple[str, str, str]:
        return (self.rt.group, self.rt.version, self.rt.kind)

    @property
    def collection_path(self) -> str:
        return f"{self.base}{self.scope}/{self.rt.resource}"

    @property
    def item_path(self) -> str:
        return f"{self.collection_path}/{{name}}"

    @property
    def name(self) -> dict[str, Any]:
        return path_parameter("name", f"name of the {self.rt.kind}")

    def operation(
        self,
        operation_id: str,
        action: str,
        description: str,
        responses: dict[str, Any],
        parameters: Iterable[dict[str, Any]] = (),
        body: dict[str, Any] | None = None,
        gvk: tuple[str, str, str] | None = None,
    ) -> Operation:
        return _operation(
            self.names, gvk or self.gvk, operation_id, action, description, responses, parameters, body
        )
