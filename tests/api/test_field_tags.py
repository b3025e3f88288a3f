"""Guard: the field tags of every served kind are complete and consistent, and half-declared
models are refused with a clear message when the protobuf registry or a patch schema is built."""

from __future__ import annotations

import typing
from collections.abc import Iterator

import pytest

from apiserver.patch.from_models import schema_of
from minikube_py.api.builtin import builtin_scheme
from minikube_py.api.models import K8sModel, model_for
from minikube_py.api.models.meta import ObjectMeta, TypeMeta
from minikube_py.api.models.shapes import strip
from minikube_py.api.models.tags import TagError, tag, tag_of
from minikube_py.api.protobuf.from_models import build_registry_from_models, message_name
from minikube_py.api.protobuf.messages import DECODABLE, MESSAGES, REGISTRY, decodable_kinds, on_the_wire
from minikube_py.api.protobuf.schema import SchemaError


def _models_in(annotation: object) -> Iterator[type[K8sModel]]:
    base, _ = strip(annotation)
    if isinstance(base, type) and issubclass(base, K8sModel):
        yield base
    for arg in typing.get_args(base):
        yield from _models_in(arg)


def reachable(root: type[K8sModel]) -> set[type[K8sModel]]:
    """``root`` and every model its fields lead to (annotations and ``proto=`` models)."""
    seen: set[type[K8sModel]] = set()
    pending = [root]
    while pending:
        model = pending.pop()
        if model in seen:
            continue
        seen.add(model)
        for info in model.model_fields.values():
            pending.extend(_models_in(info.annotation))
            found = tag_of(info)
            if found is not None and isinstance(found.proto, type):
                pending.append(found.proto)
        if model.embedded_at is not None:
            pending.append(model.__bases__[0])
    return seen


SERVED = sorted(
    {
        (rt.api_version, rt.kind): m for rt in builtin_scheme() if (m := model_for(rt.api_version, rt.kind))
    }.items()
)
ALL_MODELS = sorted(
    {m for _, root in SERVED for m in reachable(root)}
    | {m for root in DECODABLE.values() for m in reachable(root)},
    key=lambda m: (m.__module__, m.__name__),
)


@pytest.mark.parametrize("model", ALL_MODELS, ids=lambda m: m.__name__)
def test_every_reachable_model_has_consistent_tags(model: type[K8sModel]) -> None:
    schema_of(model)  # merge keys name item fields, retainKeys only on objects: else TagError
    for attr, info in model.model_fields.items():
        assert info.alias, (model, attr)  # upstream's JSON name: json_name(attr) or an explicit alias
    # a model without numbers is JSON only, even when a tagged model of another version has its
    # message name (autoscaling/v2's HorizontalPodAutoscaler beside v1's)
    if message_name(model) in REGISTRY and on_the_wire(model):
        message = REGISTRY[message_name(model)]
        numbers = [f.number for f in message.fields]
        assert len(set(numbers)) == len(numbers)
        names = {info.alias or attr for attr, info in model.model_fields.items()}
        assert {f.name for f in message.fields if not f.inline} <= names  # JSON name = alias
        for attr, info in model.model_fields.items():
            assert tag_of(info) is not None, f"{model.__name__}.{attr} of a protobuf message has no tag"


def test_decodable_kinds_decode_with_their_models_message() -> None:
    for key, model in DECODABLE.items():
        assert MESSAGES[key] == model.__name__
        assert REGISTRY[model.__name__].by_number[1].name == "metadata"


class Item(K8sModel):
    name: str | None = tag(1)
    """A name."""


class HalfDeclared(TypeMeta):
    metadata: ObjectMeta | None = tag(1, "omitempty")
    """Metadata."""
    items: list[Item] | None = None
    """A list of structs without its tag (so without a protobuf number)."""


def test_a_field_without_a_tag_is_refused_at_registry_build() -> None:
    with pytest.raises(SchemaError, match=r"HalfDeclared\.items has no tag"):
        build_registry_from_models([HalfDeclared])


class JsonOnly(TypeMeta):
    metadata: ObjectMeta | None = None
    """Metadata, with no tag: the kind is JSON only."""


class Tagged(TypeMeta):
    metadata: ObjectMeta | None = tag(1, "omitempty")
    """Metadata."""


def test_a_kind_is_decodable_when_its_model_carries_numbers() -> None:
    kinds = {("v1", "JsonOnly"): JsonOnly, ("v1", "Tagged"): Tagged, ("v1", "HalfDeclared"): HalfDeclared}
    decodable = decodable_kinds(kinds)
    assert decodable == {("v1", "Tagged"): Tagged, ("v1", "HalfDeclared"): HalfDeclared}
    with pytest.raises(SchemaError, match=r"HalfDeclared\.items has no tag"):  # what import would say
        build_registry_from_models(decodable.values())
    assert ("v1", "Node") not in MESSAGES and ("v1", "Pod") in MESSAGES  # JSON only / tagged


class RepeatedNumber(K8sModel):
    a: str | None = tag(1)
    """A."""
    b: str | None = tag(1)
    """B."""


def test_a_repeated_number_is_refused() -> None:
    with pytest.raises(SchemaError, match="RepeatedNumber repeats a field number"):
        build_registry_from_models([RepeatedNumber])


class BadMergeKey(K8sModel):
    items: list[Item] | None = tag(1, merge_key="key")
    """Merged on a key the items do not have."""


class MergeKeyOnStrings(K8sModel):
    items: list[str] | None = tag(1, merge_key="name")
    """A merge key on a list of strings."""


class RetainKeysOnScalar(K8sModel):
    value: str | None = tag(1, patch="retainKeys")
    """retainKeys on a string."""


@pytest.mark.parametrize(
    ("model", "message"),
    [
        (BadMergeKey, r"BadMergeKey\.items: merge key 'key' is not a field of Item"),
        (MergeKeyOnStrings, r"MergeKeyOnStrings\.items: merge_key='name' needs a list of objects"),
        (RetainKeysOnScalar, r"RetainKeysOnScalar\.value: retainKeys needs an object"),
    ],
)
def test_a_bad_patch_strategy_is_refused_at_schema_build(model: type[K8sModel], message: str) -> None:
    with pytest.raises(TagError, match=message):
        schema_of(model)


def test_malformed_tags_are_refused_where_the_model_is_defined() -> None:
    with pytest.raises(TagError, match="unknown tag flags"):
        tag(1, "omitEmpty")
    with pytest.raises(TagError, match="unknown patch strategy"):
        tag(1, patch="merge,retain")
    with pytest.raises(TagError, match="positive"):
        tag(0)
