"""Typed decoding (``decoding.check``): which values decode into upstream's Go types, and each
upstream decoder's message for those that do not."""

from __future__ import annotations

from typing import Any

import pytest

from apiserver.endpoints.typecheck import go_sprint
from minikube_py.api.models import decoding
from minikube_py.api.models.gotime import RFC3339, RFC3339_MICRO, parse_error
from minikube_py.api.models.registry import MODELS
from tests.api.models.objects import DEPLOYMENT, NODE, POD_STATUS, SERVICE


@pytest.mark.parametrize(("api_version", "kind"), sorted(MODELS))
def test_every_model_compiles_and_accepts_an_empty_object(api_version: str, kind: str) -> None:
    assert decoding.check(api_version, kind, {}) is None


@pytest.mark.parametrize(
    ("api_version", "kind", "obj"),
    [("apps/v1", "Deployment", DEPLOYMENT), ("v1", "Node", NODE), ("v1", "Service", SERVICE)],
)
def test_real_objects_decode(api_version: str, kind: str, obj: dict[str, Any]) -> None:
    assert decoding.check(api_version, kind, obj) is None


def test_pod_status_decodes() -> None:
    assert decoding.check("v1", "Pod", {"status": POD_STATUS}) is None


def test_kinds_without_a_model_are_not_checked() -> None:
    assert decoding.check("example.com/v1", "Widget", {"spec": {"replicas": "x"}}) is None


def test_the_first_mismatch_in_document_order_is_reported() -> None:
    obj = {"metadata": {"labels": {"a": "b", "c": 2}}, "spec": {"replicas": "x"}}
    found = decoding.check("apps/v1", "Deployment", obj)
    assert found is not None and found.steps == ("metadata", "labels", "c")


def test_null_decodes_everywhere() -> None:
    obj = {
        "metadata": {"labels": {"a": None}, "generation": None},
        "spec": {"replicas": None, "template": None},
    }
    assert decoding.check("apps/v1", "Deployment", obj) is None


def test_int_ranges() -> None:
    assert decoding.check("apps/v1", "Deployment", {"spec": {"replicas": -(2**31)}}) is None
    assert decoding.check("apps/v1", "Deployment", {"spec": {"replicas": -(2**31) - 1}}) is not None
    assert decoding.check("v1", "Pod", {"metadata": {"generation": 2**63 - 1}}) is None
    found = decoding.check("v1", "Pod", {"metadata": {"generation": 2**63}})
    assert found is not None
    assert found.json_message() == (
        "json: cannot unmarshal number 9223372036854775808 into Go struct field "
        "ObjectMeta.metadata.generation of type int64"
    )


def test_numbers_are_quoted_as_written_when_the_body_is_given() -> None:
    found = decoding.check("apps/v1", "Deployment", {"spec": {"replicas": 1e308}})
    assert found is not None
    assert "number 1e+308 " in found.json_message()  # Go's shortest form without the text
    assert "number 1E308 " in found.json_message(b'{"spec": {"replicas": 1E308}}')


def test_unstructured_decoding_makes_integers_of_integral_floats() -> None:
    obj: dict[str, Any] = {
        "spec": {
            "replicas": 3.0,
            "template": {"spec": {"containers": [{"ports": [{"containerPort": 80.0}]}]}},
        }
    }
    assert decoding.check("apps/v1", "Deployment", obj, decoding.UNSTRUCTURED) is None
    assert type(obj["spec"]["replicas"]) is int
    assert type(obj["spec"]["template"]["spec"]["containers"][0]["ports"][0]["containerPort"]) is int
    json_found = decoding.check("apps/v1", "Deployment", {"spec": {"replicas": 3.0}})
    assert json_found is not None and "number 3.0" in json_found.json_message(b'{"spec":{"replicas":3.0}}')


@pytest.mark.parametrize(
    ("obj", "message"),
    [
        ({"spec": {"replicas": 2.5}}, "cannot convert float64 to int32"),
        ({"spec": {"replicas": "3"}}, "unrecognized type: int32"),
        ({"metadata": {"labels": {"a": 1}}}, "cannot convert int64 to string"),
        ({"metadata": {"labels": {"a": True}}}, "unrecognized type: string"),
        ({"metadata": "x"}, "cannot restore struct from: string"),
        ({"metadata": {"finalizers": "x"}}, "cannot restore slice from string"),
        ({"metadata": {"labels": []}}, "cannot restore map from slice"),
    ],
)
def test_unstructured_messages(obj: dict[str, Any], message: str) -> None:
    found = decoding.check("apps/v1", "Deployment", obj, decoding.UNSTRUCTURED)
    assert found is not None and found.unstructured_message() == message


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("3", "expected numeric (int or float), got string"),
        (True, "expected numeric (int or float), got bool"),
        (2.5, None),  # structured-merge-diff checks kinds only
    ],
)
def test_schema_messages(value: Any, message: str | None) -> None:
    found = decoding.check("apps/v1", "Deployment", {"spec": {"replicas": value}})
    assert found is not None and found.schema_message() == message


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("50%", None),
        (3, None),
        (2.5, "json: cannot unmarshal number 2.5 into Go value of type int32"),
        (True, "json: cannot unmarshal bool into Go value of type int32"),
        ({}, "json: cannot unmarshal object into Go value of type int32"),
    ],
)
def test_int_or_string(value: Any, message: str | None) -> None:
    found = decoding.check(
        "apps/v1", "Deployment", {"spec": {"strategy": {"rollingUpdate": {"maxSurge": value}}}}
    )
    assert (found.json_message() if found else None) == message


@pytest.mark.parametrize(
    ("layout", "text", "message"),
    [
        (RFC3339, "2024-01-02T03:04:05Z", None),
        (RFC3339, "2024-01-02T03:04:05.123456789+01:00", None),
        (RFC3339, "x", 'parsing time "x" as "2006-01-02T15:04:05Z07:00": cannot parse "x" as "2006"'),
        (RFC3339, "2024-13-01T00:00:00Z", 'parsing time "2024-13-01T00:00:00Z": month out of range'),
        (RFC3339, "2023-02-29T00:00:00Z", 'parsing time "2023-02-29T00:00:00Z": day out of range'),
        (
            RFC3339,
            "2024-01-02",
            'parsing time "2024-01-02" as "2006-01-02T15:04:05Z07:00": cannot parse "" as "T"',
        ),
        (RFC3339, "2024-01-02T03:04:05Zjunk", 'parsing time "2024-01-02T03:04:05Zjunk": extra text: "junk"'),
        (RFC3339_MICRO, "2024-01-02T03:04:05.123456Z", None),
        (
            RFC3339_MICRO,
            "2024-01-02T03:04:05+00:00",
            'parsing time "2024-01-02T03:04:05+00:00" as "2006-01-02T15:04:05.000000Z07:00": cannot parse '
            '"+00:00" as ".000000"',
        ),
    ],
)
def test_go_time_parse(layout: str, text: str, message: str | None) -> None:
    assert parse_error(layout, text) == message


def test_timestamps_that_are_not_strings() -> None:
    found = decoding.check("v1", "Pod", {"metadata": {"creationTimestamp": 5}})
    assert found is not None
    assert found.json_message() == "json: cannot unmarshal number into Go value of type string"


def test_go_sprint_prints_maps_as_go() -> None:
    value = {"spec": {"replicas": 2.5, "b": [1e308, 1e8, 123456.0, 1e-05, -3.0, True, None, "x"]}}
    assert go_sprint(value) == "map[spec:map[b:[1e+308 1e+08 123456 1e-05 -3 true <nil> x] replicas:2.5]]"
