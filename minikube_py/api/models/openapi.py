"""OpenAPI v3 schemas (``components.schemas``) generated from the models, in upstream's shape.

Schema names are upstream's (``io.k8s.api.apps.v1.Deployment``): the module's
``OPENAPI_PACKAGE`` plus the class name. A field holding another model is
``{"allOf": [{"$ref": ...}], "description": ...}``, lists are ``array`` with ``items``, maps are
``object`` with ``additionalProperties``, and the special scalars (Quantity, IntOrString, Time,
MicroTime, FieldsV1) are named schemas of their own, as kubectl explain expects. Top-level kinds
carry ``x-kubernetes-group-version-kind``.
"""

from __future__ import annotations

import sys
import typing
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from pydantic.fields import FieldInfo

from minikube_py.api.models.base import META, Format, K8sModel, OneOf, SchemaRef
from minikube_py.api.models.fielddocs import field_docstrings
from minikube_py.api.models.meta import ListMeta
from minikube_py.api.models.shapes import strip

Schema = dict[str, Any]
GVK = tuple[str, str, str]
Extensions = Callable[[type[K8sModel], str], Mapping[str, Any]]
"""Extra keys for the property ``json_name`` of ``model`` (patch strategies, list types)."""

REF_PREFIX = "#/components/schemas/"

NAMED_SCALARS: Mapping[str, Schema] = {
    "io.k8s.apimachinery.pkg.api.resource.Quantity": {
        "description": "A fixed-point number with an optional suffix: a binary SI one (Ki, Mi, Gi, Ti, "
        "Pi, Ei), a decimal SI one (m, k, M, G, T, P, E) or a decimal exponent (e3). Written as a "
        'string ("500m", "1Gi") or a number.',
        "oneOf": [{"type": "string"}, {"type": "number"}],
    },
    "io.k8s.apimachinery.pkg.util.intstr.IntOrString": {
        "description": "A value that is either an integer or a string, such as a port number or a "
        'port name, or a count or a percentage ("25%").',
        "format": "int-or-string",
        "oneOf": [{"type": "integer"}, {"type": "string"}],
    },
    f"{META}.Time": {
        "description": "A timestamp in RFC 3339 form with second precision, in UTC.",
        "format": "date-time",
        "type": "string",
    },
    f"{META}.MicroTime": {
        "description": "A timestamp in RFC 3339 form with microsecond precision.",
        "format": "date-time",
        "type": "string",
    },
    f"{META}.FieldsV1": {
        "description": "A set of fields as a trie in JSON: each key is a field (f:<name>), a list item "
        "by value (v:<value>), index (i:<index>) or keys (k:<keys>), or '.' for the field itself.",
        "type": "object",
    },
}


def schema_name(model: type[K8sModel]) -> str:
    """Upstream's OpenAPI name of ``model`` (``io.k8s.api.core.v1.PodSpec``)."""
    package: str = vars(sys.modules[model.__module__])["OPENAPI_PACKAGE"]
    return f"{package}.{model.__name__}"


def ref(name: str) -> Schema:
    return {"$ref": REF_PREFIX + name}


class SchemaSet:
    """The component schemas of some root models and of everything they reference."""

    def __init__(self, extensions: Extensions | None = None) -> None:
        self.schemas: dict[str, Schema] = {}
        self._extensions = extensions

    def add(self, model: type[K8sModel], gvks: Iterable[GVK] = ()) -> str:
        """Add ``model`` (and what it references); ``gvks`` mark it as a top-level kind."""
        name = schema_name(model)
        if name not in self.schemas:
            self.schemas[name] = {}  # placeholder: breaks reference cycles
            self.schemas[name] = self._object(model)
        marks = [{"group": g, "kind": k, "version": v} for g, v, k in gvks]
        if marks:
            self.schemas[name]["x-kubernetes-group-version-kind"] = marks
        return name

    def add_list(self, model: type[K8sModel], group: str, version: str, kind: str) -> str:
        """Add the ``<Kind>List`` schema of a top-level kind."""
        item = self.add(model)
        list_meta = self.add(ListMeta)
        name = f"{item}List"
        self.schemas[name] = {
            "description": f"A list of {kind} objects.",
            "type": "object",
            "properties": {
                "apiVersion": {"type": "string", "description": "The versioned schema of this list."},
                "items": {"type": "array", "items": ref(item), "description": f"The {kind} objects."},
                "kind": {"type": "string", "description": "The kind of this list."},
                "metadata": {"allOf": [ref(list_meta)], "description": "Standard list metadata."},
            },
            "required": ["items"],
            "x-kubernetes-group-version-kind": [{"group": group, "kind": f"{kind}List", "version": version}],
        }
        return name

    def _named(self, name: str) -> str:
        self.schemas.setdefault(name, dict(NAMED_SCALARS[name]))
        return name

    def _object(self, model: type[K8sModel]) -> Schema:
        docs = field_docstrings(model)
        properties = {
            info.alias or field: self._property(model, info, docs.get(field))
            for field, info in model.model_fields.items()
        }
        schema: Schema = {"description": _text(model.__doc__), "type": "object", "properties": properties}
        if model.required_fields:
            schema["required"] = list(model.required_fields)
        return schema

    def _property(self, model: type[K8sModel], info: FieldInfo, docstring: str | None) -> Schema:
        schema = self._value(info.annotation, list(info.metadata))
        if "$ref" in schema:
            schema = {"allOf": [schema]}
        description = info.description or docstring  # Field(description=...), else its docstring
        if description:
            schema["description"] = _text(description)
        if self._extensions is not None:
            schema.update(self._extensions(model, info.alias or ""))
        return schema

    def _value(self, annotation: Any, metadata: list[Any]) -> Schema:
        inner, more = strip(annotation)
        metadata = metadata + more
        named = next((m.name for m in metadata if isinstance(m, SchemaRef)), None)
        if named is not None:
            return ref(self._named(named))
        if isinstance(inner, type) and issubclass(inner, K8sModel):
            return ref(self.add(inner))
        origin = typing.get_origin(inner)
        if origin is list:
            return {"type": "array", "items": self._value(typing.get_args(inner)[0], [])}
        if origin is dict:
            value = typing.get_args(inner)[1]
            if value is Any:
                return {"type": "object"}
            return {"type": "object", "additionalProperties": self._value(value, [])}
        return _scalar(inner, metadata)


_SCALAR_TYPES: Mapping[Any, str] = {str: "string", bool: "boolean", int: "integer", float: "number"}


def _scalar(annotation: Any, metadata: list[Any]) -> Schema:
    schema: Schema = {"type": _SCALAR_TYPES.get(annotation, "string")}
    for marker in metadata:
        if isinstance(marker, Format):
            schema["format"] = marker.name
        elif isinstance(marker, OneOf):
            schema["enum"] = list(marker.values)
    return schema


def _text(docstring: str | None) -> str:
    """A docstring as description text: paragraphs joined into lines, no reST literals."""
    paragraphs = [" ".join(block.split()) for block in (docstring or "").strip().split("\n\n")]
    return "\n\n".join(p for p in paragraphs if p).replace("``", "")
