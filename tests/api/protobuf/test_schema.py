"""The message notation (field tags on the models), and the registry built from it."""

from __future__ import annotations

from typing import Any

import pytest

from minikube_py.api.models.base import Bytes, FieldsV1, Int32, Int64, K8sModel, Quantity, RawObject, Time
from minikube_py.api.models.core_container import Container
from minikube_py.api.models.core_refs import LocalObjectReference
from minikube_py.api.models.tags import Tag, TagError, tag, tag_of
from minikube_py.api.protobuf.from_models import build_registry_from_models, field_shape
from minikube_py.api.protobuf.messages import MESSAGES, REGISTRY
from minikube_py.api.protobuf.schema import Field, SchemaError, Shape


@pytest.mark.parametrize(
    ("annotation", "pointer", "shape", "element"),
    [
        (str | None, False, Shape.SINGLE, "string"),
        (Int32 | None, True, Shape.POINTER, "int32"),
        (Int64 | None, False, Shape.SINGLE, "int64"),
        (Bytes | None, False, Shape.SINGLE, "bytes"),
        (Time | None, True, Shape.POINTER, "Time"),
        (FieldsV1 | None, True, Shape.POINTER, "RawJSON"),
        (RawObject | None, False, Shape.SINGLE, "RawJSON"),
        (list[Container] | None, False, Shape.LIST, Container),
        (dict[str, Quantity] | None, False, Shape.MAP, "Quantity"),
        (dict[str, list[str]] | None, False, Shape.MAP_OF_LISTS, "string"),
    ],
)
def test_shape_and_element_type_come_from_the_annotation(
    annotation: Any, pointer: bool, shape: Shape, element: Any
) -> None:
    assert field_shape(annotation, Tag(1, pointer=pointer)) == (shape, element)


def test_proto_overrides_what_the_annotation_cannot_tell() -> None:
    assert field_shape(str | None, Tag(1, pointer=True, proto="Duration")) == (Shape.POINTER, "Duration")
    assert field_shape(RawObject | None, Tag(1, proto=Container)) == (Shape.SINGLE, Container)


def test_a_pointer_flag_on_a_list_is_refused() -> None:
    with pytest.raises(SchemaError, match="a list field cannot be a pointer"):
        field_shape(list[str] | None, Tag(1, pointer=True))


@pytest.mark.parametrize("annotation", [int | None, list[int] | None, object])
def test_unsupported_types(annotation: Any) -> None:
    with pytest.raises(SchemaError, match="no protobuf type"):
        field_shape(annotation, Tag(1))


class A(K8sModel):
    name: str | None = tag(1)
    """A name."""
    created: Time | None = tag(8, "omitempty", "omitzero")
    """Go order, not number order: 8 before 2."""
    refs: list[LocalObjectReference] | None = tag(2, "omitempty")
    """References."""
    hidden: str | None = tag()
    """JSON only."""


class C(A):
    """A plain subclass: the same fields (upstream's ``EphemeralContainerCommon`` of Container)."""


class Embeds(A, inline=2, inline_name="base"):
    first: str | None = tag(1)
    """Numbered below the embedding, so before it."""
    last: str | None = tag(3, "*", "omitempty")
    """After it."""


def test_fields_come_in_model_order_with_their_flags() -> None:
    registry = build_registry_from_models([A, C])
    assert registry["A"].fields == (
        Field(1, "name", "string"),
        Field(8, "created", "Time", omitempty=True, omitzero=True),
        Field(2, "refs", "LocalObjectReference", Shape.LIST, omitempty=True),
    )
    assert registry["C"].fields == registry["A"].fields
    assert registry["A"].by_number[2].is_message and not registry["A"].by_number[1].is_message
    assert "LocalObjectReference" in registry


def test_an_inline_subclass_embeds_its_base() -> None:
    message = build_registry_from_models([Embeds])["Embeds"]
    assert [(f.number, f.name, f.inline) for f in message.fields] == [
        (1, "first", False),
        (2, "base", True),
        (3, "last", False),
    ]
    assert message.by_number[2].type == "A"


def test_tag_flags() -> None:
    assert tag_of(A.model_fields["created"]) == Tag(8, omitempty=True, omitzero=True)
    assert tag_of(A.model_fields["hidden"]) == Tag(None)
    with pytest.raises(TagError, match="unknown tag flags"):
        tag(1, "omitEmpty")
    with pytest.raises(TagError, match="unknown patch strategy"):
        tag(1, patch="merge,retain")


class Empty(K8sModel):
    only: str | None = tag()
    """Nothing on the wire."""


class NotInline(K8sModel, inline=1):
    x: str | None = tag(2)
    """X."""


class Twin(K8sModel):
    name: str | None = tag(1)
    """Another model named like a message already met."""


@pytest.mark.parametrize(
    ("models", "error"),
    [
        ([Empty], "message Empty has no fields"),
        ([NotInline], "NotInline is declared inline but does not subclass a model"),
    ],
)
def test_schema_mistakes(models: list[type[K8sModel]], error: str) -> None:
    with pytest.raises(SchemaError, match=error):
        build_registry_from_models(models)


def test_two_models_for_one_message_are_refused() -> None:
    twin = type("A", (Twin,), {"__module__": __name__})
    with pytest.raises(SchemaError, match="two models describe message A"):
        build_registry_from_models([A, twin])


def test_every_kind_points_at_a_described_message() -> None:
    assert set(MESSAGES.values()) <= set(REGISTRY)
    for name in MESSAGES.values():
        assert REGISTRY[name].by_number[1].name == "metadata"


def test_kubectl_generator_kinds_are_covered() -> None:
    expected = {
        ("v1", kind)
        for kind in ("Namespace", "ConfigMap", "Secret", "ServiceAccount", "Service", "ResourceQuota")
    } | {
        ("apps/v1", "Deployment"),
        ("batch/v1", "Job"),
        ("batch/v1", "CronJob"),
        ("authorization.k8s.io/v1", "SelfSubjectAccessReview"),
        ("authorization.k8s.io/v1", "SelfSubjectRulesReview"),
        ("authentication.k8s.io/v1", "SelfSubjectReview"),
        ("authentication.k8s.io/v1beta1", "SelfSubjectReview"),
        ("authentication.k8s.io/v1", "TokenRequest"),
        ("rbac.authorization.k8s.io/v1", "Role"),
        ("rbac.authorization.k8s.io/v1", "ClusterRole"),
        ("rbac.authorization.k8s.io/v1", "RoleBinding"),
        ("rbac.authorization.k8s.io/v1", "ClusterRoleBinding"),
        ("policy/v1", "PodDisruptionBudget"),
        ("scheduling.k8s.io/v1", "PriorityClass"),
        ("networking.k8s.io/v1", "Ingress"),
    }
    assert expected <= set(MESSAGES)
