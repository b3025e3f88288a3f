"""The Swagger 2.0 document ``/openapi/v2`` serves, converted from the v3 group-version documents.

Upstream's v2 document is one for the whole server: every path of every group-version and
every definition. The conversion is mechanical: a request body becomes the ``body`` parameter
and its media types ``consumes``, response media types become ``produces``, parameter schemas
flatten into the parameter (``type``), references point into ``#/definitions/``, a property's
``allOf: [{$ref}]`` becomes a plain ``$ref`` beside its description (as upstream writes v2),
and the ``oneOf`` scalars (Quantity, IntOrString) become the ``string`` with a ``format`` that
Swagger 2.0 can say (it has no ``oneOf``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

V3_REFS = "#/components/schemas/"
V2_REFS = "#/definitions/"
METHODS = ("get", "put", "post", "delete", "options", "head", "patch")


def swagger_document(documents: Iterable[Mapping[str, Any]], info: Mapping[str, Any]) -> dict[str, Any]:
    paths: dict[str, Any] = {}
    definitions: dict[str, Any] = {}
    for doc in documents:
        for path, item in doc["paths"].items():
            paths[path] = _path_item(item)
        for name, schema in doc["components"]["schemas"].items():
            converted = schema_v2(schema)
            if name in definitions:  # kinds shared between group-versions: merge their GVK marks
                marks = definitions[name].get("x-kubernetes-group-version-kind", [])
                more = [m for m in converted.get("x-kubernetes-group-version-kind", []) if m not in marks]
                if marks or more:
                    definitions[name]["x-kubernetes-group-version-kind"] = marks + more
                continue
            definitions[name] = converted
    return {
        "swagger": "2.0",
        "info": dict(info),
        "paths": dict(sorted(paths.items())),
        "definitions": dict(sorted(definitions.items())),
        "securityDefinitions": {
            "BearerToken": {
                "description": "Bearer Token authentication",
                "in": "header",
                "name": "authorization",
                "type": "apiKey",
            }
        },
        "security": [{"BearerToken": []}],
    }


def _path_item(item: Mapping[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for method in METHODS:
        if method in item:
            out[method] = _operation(item[method])
    if item.get("parameters"):
        out["parameters"] = [_parameter(p) for p in item["parameters"]]
    return out


def _operation(operation: Mapping[str, Any]) -> dict[str, Any]:
    parameters = [_parameter(p) for p in operation.get("parameters", [])]
    consumes = ["*/*"]
    body = operation.get("requestBody")
    if body is not None:
        content = body["content"]
        consumes = list(content)
        schema = next(iter(content.values()))["schema"]
        parameters.insert(
            0,
            {
                "in": "body",
                "name": "body",
                "required": bool(body.get("required")),
                "schema": schema_v2(schema),
            },
        )
    produces: list[str] = []
    responses: dict[str, Any] = {}
    for code, response in operation["responses"].items():
        converted: dict[str, Any] = {"description": response["description"]}
        for media, described in response.get("content", {}).items():
            if media not in produces:
                produces.append(media)
            converted.setdefault("schema", schema_v2(described["schema"]))
        responses[code] = converted
    out: dict[str, Any] = {
        "consumes": consumes,
        "description": operation["description"],
        "operationId": operation["operationId"],
        "produces": produces,
        "responses": responses,
        "schemes": ["https"],
        "tags": operation["tags"],
    }
    if parameters:
        out["parameters"] = parameters
    out.update({key: value for key, value in operation.items() if key.startswith("x-")})
    return out


def _parameter(parameter: Mapping[str, Any]) -> dict[str, Any]:
    out = {key: value for key, value in parameter.items() if key != "schema"}
    out.update(parameter.get("schema", {}))
    return out


def schema_v2(schema: Mapping[str, Any]) -> dict[str, Any]:
    """One v3 schema as Swagger 2.0 says it."""
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if key == "$ref":
            out[key] = V2_REFS + str(value).removeprefix(V3_REFS)
        elif key == "allOf" and len(value) == 1:
            out.update(schema_v2(value[0]))
        elif key == "oneOf":
            out.setdefault("type", "string")
        elif key == "properties":
            out[key] = {name: schema_v2(prop) for name, prop in value.items()}
        elif key in ("items", "additionalProperties") and isinstance(value, Mapping):
            out[key] = schema_v2(value)
        else:
            out[key] = value
    return out
