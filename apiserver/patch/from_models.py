"""Strategic merge patch schemas derived from the models' field tags (``minikube_py/api/models/tags.py``).

A model's schema names the fields whose tag sets a patch strategy (``merge_key``, ``patch``) and the
struct fields that lead to such fields; every other field is plain. One model is one schema object
(cached), so PodSpec's schema is shared by every kind that embeds it, as upstream's Go type is.
A strategy the field's type cannot have (a merge key on a scalar list or naming a field the item
model lacks, ``retainKeys`` on a scalar) is refused with ``TagError`` when the schema is built.
"""

from __future__ import annotations

from functools import cache

from apiserver.patch.schema import PLAIN, Fields, List, Schema
from minikube_py.api.models.base import K8sModel
from minikube_py.api.models.shapes import ListOf, MapOf, Shape, fields_of, shape_of
from minikube_py.api.models.tags import Tag, TagError, tag_of


@cache
def schema_of(model: type[K8sModel]) -> Fields:
    """The patch schema of objects of ``model`` (the shared ``PLAIN`` when nothing is tagged)."""
    fields: dict[str, Schema] = {}
    for attr, info in model.model_fields.items():
        name = info.alias or attr
        tag = tag_of(info)
        if tag is not None:
            _check(f"{model.__name__}.{name}", tag, shape_of(info.annotation))
        node = _node(tag, shape_of(info.annotation))
        if node is not PLAIN:
            fields[name] = node
    return Fields(fields) if fields else PLAIN


def _check(where: str, tag: Tag, shape: Shape) -> None:
    """Refuse a patch strategy the field's type cannot have (a half-declared model)."""
    item = shape.item if isinstance(shape, ListOf) else None
    if tag.merge_key is not None:
        if not (_is_model(item) or isinstance(item, MapOf)):  # free-form objects: unchecked
            raise TagError(f"{where}: merge_key={tag.merge_key!r} needs a list of objects")
        if _is_model(item) and tag.merge_key not in fields_of(item):  # type: ignore[arg-type]
            raise TagError(
                f"{where}: merge key {tag.merge_key!r} is not a field of {item.__name__}"  # type: ignore[union-attr]
            )
    if tag.merges and not isinstance(shape, ListOf):
        raise TagError(f"{where}: patch strategy {tag.patch!r} needs a list")
    if tag.retain_keys and not (_is_model(shape) or _is_model(item)):
        raise TagError(f"{where}: retainKeys needs an object or a list of objects")


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


def _is_model(shape: Shape | None) -> bool:
    return isinstance(shape, type) and issubclass(shape, K8sModel)
