"""The message notation, and the registry built from it."""

from __future__ import annotations

import pytest

from minikube_py.api.protobuf.messages import MESSAGES, REGISTRY
from minikube_py.api.protobuf.schema import (
    Field,
    SchemaError,
    Shape,
    build_registry,
    parse_field,
    parse_schema,
    parse_type,
)


@pytest.mark.parametrize(
    ("spec", "shape", "element"),
    [
        ("string", Shape.SINGLE, "string"),
        ("*int32", Shape.POINTER, "int32"),
        ("[]Container", Shape.LIST, "Container"),
        ("map[string]Quantity", Shape.MAP, "Quantity"),
        ("map[string][]string", Shape.MAP_OF_LISTS, "string"),
    ],
)
def test_parse_type(spec: str, shape: Shape, element: str) -> None:
    assert parse_type(spec) == (shape, element)


@pytest.mark.parametrize("spec", ["[]*int32", "**x", "map[int]string", "[][]string", ""])
def test_unsupported_types(spec: str) -> None:
    with pytest.raises(SchemaError):
        parse_type(spec)


def test_parse_field() -> None:
    assert parse_field("  8 creationTimestamp Time omitempty omitzero") == Field(
        8, "creationTimestamp", "Time", Shape.SINGLE, omitempty=True, omitzero=True
    )
    assert parse_field(" 2 volumeSource VolumeSource inline").inline
    with pytest.raises(SchemaError, match="unknown flags"):
        parse_field(" 1 name string omitEmpty")
    with pytest.raises(SchemaError, match="bad field line"):
        parse_field(" name string")


def test_parse_schema_with_comments_and_alias() -> None:
    messages = parse_schema(
        """
        # a comment
message A
   1 name string       # trailing comment
   2 refs []B omitempty
message C = A
"""
    )
    assert list(messages) == ["A", "C"]
    assert messages["C"].fields == messages["A"].fields
    assert messages["A"].by_number[2].is_message and not messages["A"].by_number[1].is_message


@pytest.mark.parametrize(
    ("text", "error"),
    [
        ("   1 a string", "field outside a message"),
        ("message A\n 1 a string\n 1 b string", "repeats a field number"),
        ("message A\n 1 a string\n 2 a string", "repeats a field number or name"),
        ("message A", "has no fields"),
        ("message A\n 1 a string\nmessage A\n 1 a string", "defined twice"),
        ("message B = A", "alias B of unknown message A"),
        ("mesage A\n 1 a string", "bad message line"),
    ],
)
def test_schema_mistakes(text: str, error: str) -> None:
    with pytest.raises(SchemaError, match=error):
        parse_schema(text)


def test_registry_checks_references() -> None:
    with pytest.raises(SchemaError, match=r"A\.b refers to unknown message B"):
        build_registry(["message A\n 1 b *B omitempty"])
    with pytest.raises(SchemaError, match="only a plain message field can be inline"):
        build_registry(["message A\n 1 b []B inline\nmessage B\n 1 x string"])
    with pytest.raises(SchemaError, match="defined twice"):
        build_registry(["message A\n 1 x string", "message A\n 1 x string"])


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
