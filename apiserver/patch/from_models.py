"""Strategic merge patch schemas derived from the models' field tags (``minikube_py/api/models/tags.py``).

A model's schema names the fields whose tag sets a patch strategy (``merge_key``, ``patch``) and the
struct fields that lead to such fields; every other field is plain. One model is one schema object
(cached), so PodSpec's schema is shared by every kind that embeds it, as upstream's Go type is.
"""

from __future__ import annotations

from functools import cache

from apiserver.patch.schema import PLAIN, Fields, List, Schema
from minikube_py.api.models.base import K8sModel
from minikube_py.api.models.shapes import ListOf, Shape, shape_of
from minikube_py.api.models.tags import Tag, tag_of


@cache
def schema_of(model: type[K8sModel]) -> Fields:
    """The patch schema of objects of ``model`` (the shared ``PLAIN`` when nothing is tagged)."""
    fields: dict[str, Schema] = {}
    for attr, info in model.model_fields.items():
        node = _node(tag_of(info), shape_of(info.annotation))
        if node is not PLAIN:
            fields[info.alias or attr] = node
    return Fields(fields) if fields else PLAIN


def _node(tag: Tag | None, shape: Shape) -> Schema:
    if isinstance(shape, ListOf):
        if tag is None or not tag.merges:
            return PLAIN  # lists without a merge strategy are replaced whole
        item = schema_of(shape.item) if _is_model(shape.item) else PLAIN  # type: ignore[arg-type]
        return List(merge_key=tag.merge_key, item=item, retain_keys=tag.retain_keys)
    if not _is_model(shape):
        return PLAIN
    inner = schema_of(shape)  # type: ignore[arg-type]
    if tag is not None and tag.retain_keys:
        return Fields(inner.fields, retain_keys=True)
    return inner


def _is_model(shape: Shape) -> bool:
    return isinstance(shape, type) and issubclass(shape, K8sModel)
