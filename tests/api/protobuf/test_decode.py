"""Objects encoded by Google's ``protobuf`` package (upstream's generated.proto) decode to upstream's JSON."""

from __future__ import annotations

import base64
from typing import Any

import pytest

from minikube_py.api.protobuf.decode import decode_envelope, decode_message, decode_object
from minikube_py.api.protobuf.messages import MESSAGES, REGISTRY
from tests.api.protobuf.proto_builder import build, envelope
from tests.api.protobuf.upstream import TABLE, UPSTREAM

T = UPSTREAM


def obj(api_version: str, kind: str, message: Any) -> dict[str, Any]:
    return decode_object(envelope(api_version, kind, message.SerializeToString()))


def test_configmap_with_full_metadata() -> None:
    meta = T["ObjectMeta"](
        name="cm",
        namespace="ns",
        uid="u-1",
        resourceVersion="7",
        generation=3,
        labels={"b": "2", "a": "1"},
        annotations={"note": ""},
        finalizers=["x/y"],
        creationTimestamp=T["Time"](seconds=1704067200, nanos=999),
        deletionGracePeriodSeconds=0,
        ownerReferences=[
            T["OwnerReference"](
                apiVersion="apps/v1", kind="ReplicaSet", name="rs", uid="u-0", controller=True
            )
        ],
        managedFields=[
            T["ManagedFieldsEntry"](
                manager="kubectl",
                operation="Update",
                apiVersion="v1",
                time=T["Time"](seconds=0),
                fieldsType="FieldsV1",
                fieldsV1=T["FieldsV1"](Raw=b'{"f:data":{".":{}}}'),
            )
        ],
    )
    message = T["ConfigMap"](metadata=meta, data={"k": "v"}, binaryData={"bin": b"\x00\xff"}, immutable=False)
    assert obj("v1", "ConfigMap", message) == {
        "kind": "ConfigMap",
        "apiVersion": "v1",
        "metadata": {
            "name": "cm",
            "namespace": "ns",
            "uid": "u-1",
            "resourceVersion": "7",
            "generation": 3,
            "creationTimestamp": "2024-01-01T00:00:00Z",
            "deletionGracePeriodSeconds": 0,
            "labels": {"a": "1", "b": "2"},
            "annotations": {"note": ""},
            "ownerReferences": [
                {
                    "apiVersion": "apps/v1",
                    "kind": "ReplicaSet",
                    "name": "rs",
                    "uid": "u-0",
                    "controller": True,
                }
            ],
            "finalizers": ["x/y"],
            "managedFields": [
                {
                    "manager": "kubectl",
                    "operation": "Update",
                    "apiVersion": "v1",
                    "time": "1970-01-01T00:00:00Z",
                    "fieldsType": "FieldsV1",
                    "fieldsV1": {"f:data": {".": {}}},
                }
            ],
        },
        "immutable": False,  # a *bool that is present is rendered even when false
        "data": {"k": "v"},
        "binaryData": {"bin": "AP8="},
    }


def test_secret_bytes_are_base64() -> None:
    message = T["Secret"](data={"p": b"q", "empty": b""}, stringData={"s": "t"}, type="Opaque")
    assert obj("v1", "Secret", message) == {
        "kind": "Secret",
        "apiVersion": "v1",
        "metadata": {},
        "data": {"empty": "", "p": base64.b64encode(b"q").decode()},
        "stringData": {"s": "t"},
        "type": "Opaque",
    }


def test_subject_access_review_extra_values_and_defaults() -> None:
    spec = T["SubjectAccessReviewSpec"](
        resourceAttributes=T["ResourceAttributes"](verb="get", resource="pods", subresource="log"),
        user="alice",
        groups=["devs"],
        uid="u",
    )
    spec.extra["scopes"].items.extend(["a", "b"])
    spec.extra["none"].SetInParent()
    assert obj("authorization.k8s.io/v1", "SubjectAccessReview", T["SubjectAccessReview"](spec=spec)) == {
        "kind": "SubjectAccessReview",
        "apiVersion": "authorization.k8s.io/v1",
        "metadata": {},
        "spec": {
            "resourceAttributes": {"verb": "get", "resource": "pods", "subresource": "log"},
            "user": "alice",
            "groups": ["devs"],
            "extra": {"none": None, "scopes": ["a", "b"]},
            "uid": "u",
        },
        "status": {"allowed": False},  # `json:"allowed"` has no omitempty
    }


def test_token_request_nil_pointer_and_slice_render_null() -> None:
    assert obj("authentication.k8s.io/v1", "TokenRequest", T["TokenRequest"]())["spec"] == {
        "audiences": None,
        "expirationSeconds": None,
        "boundObjectRef": None,
    }
    bound = T["BoundObjectReference"](kind="Pod", apiVersion="v1", name="p", uID="u-1")
    spec = T["TokenRequestSpec"](audiences=["api"], expirationSeconds=600, boundObjectRef=bound)
    decoded = obj("authentication.k8s.io/v1", "TokenRequest", T["TokenRequest"](spec=spec))
    assert decoded["spec"] == {
        "audiences": ["api"],
        "expirationSeconds": 600,
        "boundObjectRef": {"kind": "Pod", "apiVersion": "v1", "name": "p", "uid": "u-1"},
    }
    assert decoded["status"] == {"token": "", "expirationTimestamp": None}  # a zero Time is null


def test_pod_disruption_budget_status_map_of_times() -> None:
    status = T["PodDisruptionBudgetStatus"](observedGeneration=2, disruptionsAllowed=0)
    status.disruptedPods["p1"].seconds = 86400
    status.disruptedPods["p0"].SetInParent()
    status.conditions.add(type="DisruptionAllowed", status="False", lastTransitionTime=T["Time"](seconds=60))
    spec = T["PodDisruptionBudgetSpec"](maxUnavailable=T["IntOrString"](type=0, intVal=-3))
    message = T["PodDisruptionBudget"](spec=spec, status=status)
    decoded = obj("policy/v1", "PodDisruptionBudget", message)
    assert decoded["spec"] == {"maxUnavailable": -3}
    assert decoded["status"] == {
        "observedGeneration": 2,
        "disruptedPods": {"p0": None, "p1": "1970-01-02T00:00:00Z"},
        "disruptionsAllowed": 0,
        "currentHealthy": 0,
        "desiredHealthy": 0,
        "expectedPods": 0,
        "conditions": [
            {
                "type": "DisruptionAllowed",
                "status": "False",
                "lastTransitionTime": "1970-01-01T00:01:00Z",
                "reason": "",
                "message": "",
            }
        ],
    }


def test_eviction_delete_options() -> None:
    options = T["DeleteOptions"](
        gracePeriodSeconds=0,
        propagationPolicy="Foreground",
        dryRun=["All"],
        preconditions=T["Preconditions"](uid="u-1"),
    )
    message = T["Eviction"](metadata=T["ObjectMeta"](name="p", namespace="ns"), deleteOptions=options)
    assert obj("policy/v1", "Eviction", message)["deleteOptions"] == {
        "gracePeriodSeconds": 0,
        "preconditions": {"uid": "u-1"},
        "propagationPolicy": "Foreground",
        "dryRun": ["All"],
    }


def test_unknown_fields_of_every_wire_type_are_skipped() -> None:
    future = build(
        {
            "Stamp": [(1, "seconds", "optional", "int64")],
            "ConfigMap": [
                *TABLE["ConfigMap"][1:3],
                (99, "newString", "optional", "string"),
                (100, "newNumber", "optional", "int64"),
                (101, "newDouble", "optional", "double"),
                (102, "newMessage", "optional", "Stamp"),
                (103, "newList", "packed", "int32"),
            ],
        }
    )
    message = future["ConfigMap"](data={"k": "v"}, newString="x", newNumber=-1, newDouble=1.5, newList=[1, 2])
    message.newMessage.seconds = 5
    assert obj("v1", "ConfigMap", message) == {
        "kind": "ConfigMap",
        "apiVersion": "v1",
        "metadata": {},
        "data": {"k": "v"},
    }


@pytest.mark.parametrize(("api_version", "kind"), sorted(MESSAGES))
def test_every_registered_kind_decodes_an_empty_object(api_version: str, kind: str) -> None:
    decoded = decode_object(envelope(api_version, kind, b""))
    assert decoded["kind"] == kind and decoded["apiVersion"] == api_version
    assert "metadata" in decoded


@pytest.mark.parametrize("name", sorted(REGISTRY))
def test_every_described_message_renders_its_zero_value(name: str) -> None:
    assert isinstance(decode_message(name, b""), dict)


def test_decode_envelope() -> None:
    assert decode_envelope(envelope("apps/v1", "Deployment", b"\x0a\x00")) == (
        "apps/v1",
        "Deployment",
        b"\x0a\x00",
    )
