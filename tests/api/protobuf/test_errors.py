"""Bodies that cannot be decoded raise ``ProtobufError`` with one clear line (the apiserver's 400/415)."""

from __future__ import annotations

import pytest

from minikube_py.api.protobuf.decode import ProtobufError, decode_envelope, decode_message, decode_object
from tests.api.protobuf.proto_builder import build, envelope
from tests.api.protobuf.upstream import UPSTREAM as T


def fails(data: bytes, message: str) -> None:
    with pytest.raises(ProtobufError, match=message) as caught:
        decode_object(data)
    assert "\n" not in str(caught.value)


def test_unknown_kind() -> None:
    fails(envelope("v1", "Node", b""), "^no protobuf decoding for Node in v1$")
    fails(
        envelope("example.com/v1", "ConfigMap", b""), "^no protobuf decoding for ConfigMap in example.com/v1$"
    )


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"", "^empty data$"),
        (b'{"kind":"ConfigMap"}', "does not appear to be a protobuf message"),
        (b"k8s\x01\x0a\x00", "does not appear to be a protobuf message"),
        (b"k8s", "does not appear to be a protobuf message"),
        (b"k8s\x00", "^empty body$"),
    ],
)
def test_bad_prefix(data: bytes, message: str) -> None:
    fails(data, message)


def test_missing_kind_or_api_version() -> None:
    fails(envelope("v1", "", b""), "Object 'Kind' is missing")
    fails(envelope("", "ConfigMap", b""), "Object 'apiVersion' is missing")
    fails(b"k8s\x00\x12\x00", "Object 'Kind' is missing")  # no typeMeta at all


def test_malformed_envelope() -> None:
    fails(b"k8s\x00\x0a\x05\x0a\x02v1", "runs past the end")
    fails(b"k8s\x00\x08\x01", r"Unknown\.typeMeta: wrong wire type varint \(expected bytes\)")
    fails(b"k8s\x00\x0a\x02\x10\x01", r"TypeMeta\.kind: wrong wire type varint")
    fails(b"k8s\x00\x0a\x04\x0a\x02\xff\xfe", r"invalid UTF-8 in string field TypeMeta\.apiVersion")


def test_truncated_object() -> None:
    metadata_only = T["ConfigMap"](metadata=T["ObjectMeta"](name="cm")).SerializeToString()
    raw = T["ConfigMap"](metadata=T["ObjectMeta"](name="cm"), data={"k": "v"}).SerializeToString()
    for cut in range(1, len(raw)):
        if cut == len(metadata_only):  # a cut between two fields leaves a valid message
            continue
        with pytest.raises(ProtobufError):
            decode_object(envelope("v1", "ConfigMap", raw[:cut]))


def test_wrong_wire_types() -> None:
    wrong = build(
        {
            "ConfigMap": [(1, "metadata", "optional", "int64"), (4, "immutable", "optional", "string")],
            "Meta": [(11, "labels", "optional", "int64")],
            "ConfigMapWithMeta": [(1, "metadata", "optional", "Meta")],
        }
    )
    fails(
        envelope("v1", "ConfigMap", wrong["ConfigMap"](metadata=1).SerializeToString()),
        "ConfigMap.metadata: wrong wire type varint",
    )
    fails(
        envelope("v1", "ConfigMap", wrong["ConfigMap"](immutable="yes").SerializeToString()),
        r"^ConfigMap\.immutable: wrong wire type bytes \(expected varint\)$",
    )
    nested = wrong["ConfigMapWithMeta"](metadata=wrong["Meta"](labels=3)).SerializeToString()
    fails(envelope("v1", "ConfigMap", nested), "ObjectMeta.labels: wrong wire type varint")


def test_wrong_wire_type_inside_a_map_entry() -> None:
    entries = build(
        {
            "Entry": [(1, "key", "optional", "int64"), (2, "value", "optional", "int64")],
            "CM": [(2, "data", "repeated", "Entry")],
        }
    )
    message = entries["CM"](data=[entries["Entry"](key=1)]).SerializeToString()
    fails(envelope("v1", "ConfigMap", message), r"ConfigMap\.data \(map key\): wrong wire type varint")
    message = entries["CM"](data=[entries["Entry"](value=1)]).SerializeToString()
    fails(envelope("v1", "ConfigMap", message), r"ConfigMap\.data \(map value\): wrong wire type varint")


def test_invalid_utf8() -> None:
    raw = build(
        {
            "Meta": [(1, "name", "optional", "bytes")],
            "Entry": [(1, "key", "optional", "bytes")],
            "CM": [
                (1, "metadata", "optional", "Meta"),
                (2, "data", "repeated", "Entry"),
                (3, "binaryData", "repeated", "Entry"),
            ],
        }
    )
    bad_name = raw["CM"](metadata=raw["Meta"](name=b"ok\xc3")).SerializeToString()
    fails(
        envelope("v1", "ConfigMap", bad_name), r"^invalid UTF-8 in string field ObjectMeta\.name at byte 2$"
    )
    bad_key = raw["CM"](binaryData=[raw["Entry"](key=b"\xff")]).SerializeToString()
    fails(
        envelope("v1", "ConfigMap", bad_key),
        r"invalid UTF-8 in string field ConfigMap\.binaryData \(map key\)",
    )


def test_bytes_are_not_checked_for_utf8() -> None:
    raw = T["Secret"](data={"k": b"\xff\xfe"}).SerializeToString()
    assert decode_object(envelope("v1", "Secret", raw))["data"] == {"k": "//4="}


def test_bad_special_values() -> None:
    port = T["IntOrString"](type=2, intVal=1)
    pdb = T["PodDisruptionBudget"](spec=T["PodDisruptionBudgetSpec"](minAvailable=port)).SerializeToString()
    fails(envelope("policy/v1", "PodDisruptionBudget", pdb), "IntOrString has impossible type 2")
    entry = T["ManagedFieldsEntry"](fieldsV1=T["FieldsV1"](Raw=b"not json"))
    meta = T["ObjectMeta"](managedFields=[entry])
    fails(
        envelope("v1", "ConfigMap", T["ConfigMap"](metadata=meta).SerializeToString()),
        "does not hold a JSON document",
    )
    meta = T["ObjectMeta"](creationTimestamp=T["Time"](seconds=10**15))
    fails(
        envelope("v1", "ConfigMap", T["ConfigMap"](metadata=meta).SerializeToString()),
        "timestamp 1000000000000000s is out of range",
    )
    limits = T["ResourceRequirements"](limits={"cpu": T["Quantity"](string="")}).SerializeToString()
    with pytest.raises(ProtobufError, match="empty string"):
        decode_message("ResourceRequirements", limits)


def test_decode_envelope_errors_and_unknown_message() -> None:
    with pytest.raises(ProtobufError, match="empty body"):
        decode_envelope(b"k8s\x00")
    with pytest.raises(KeyError, match="no message 'Nope'"):
        decode_message("Nope", b"")
