"""Strategic merge patch metadata of the OpenAPI schemas, read off ``apiserver.patch.schemas``.

Upstream publishes each merging list's ``x-kubernetes-patch-strategy`` (``merge``, with
``retainKeys`` for volumes) and ``x-kubernetes-patch-merge-key`` on the property, and
``retainKeys`` on objects such as a Deployment's ``strategy``. The patch schemas are trees per
kind; walking them beside the models turns them into annotations per (model, field).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from apiserver.patch.schema import Fields, List, PatchSchema
from apiserver.patch.schemas import schema_for
from minikube_py.api.models import K8sModel, model_for
from minikube_py.api.models.shapes import ListOf, Shape, fields_of
from minikube_py.api.scheme import ResourceType

Annotations = dict[tuple[type[K8sModel], str], dict[str, Any]]


def patch_annotations(types: Iterable[ResourceType]) -> Annotations:
    """Patch extensions by (model, JSON field name) for the kinds of ``types``."""
    found: Annotations = {}
    for rt in types:
        model = model_for(rt.api_version, rt.kind)
        if model is not None:
            _walk(model, schema_for(rt.group, rt.kind), found)
    return found


def _walk(model: type[K8sModel], schema: PatchSchema, found: Annotations) -> None:
    shapes = fields_of(model)
    for name, node in schema.fields.items():
        shape = shapes.get(name)
        if isinstance(node, List):
            found[(model, name)] = _list_extensions(node)
            item = shape.item if isinstance(shape, ListOf) else None
            if _is_model(item) and node.item.fields:
                _walk(item, node.item, found)  # type: ignore[arg-type]
        elif isinstance(node, Fields):
            if node.retain_keys:
                found[(model, name)] = {"x-kubernetes-patch-strategy": "retainKeys"}
            if _is_model(shape):
                _walk(shape, node, found)  # type: ignore[arg-type]


def _list_extensions(node: List) -> dict[str, Any]:
    strategy = "merge,retainKeys" if node.retain_keys else "merge"
    out: dict[str, Any] = {"x-kubernetes-patch-strategy": strategy}
    if node.merge_key:
        out["x-kubernetes-patch-merge-key"] = node.merge_key
    return out


def _is_model(shape: Shape | None) -> bool:
    return isinstance(shape, type) and issubclass(shape, K8sModel)


def extensions_from(annotations: Annotations) -> Any:
    """``SchemaSet`` extensions callback over ``annotations``."""

    def extensions(model: type[K8sModel], name: str) -> Mapping[str, Any]:
        return annotations.get((model, name), {})

    return extensions
