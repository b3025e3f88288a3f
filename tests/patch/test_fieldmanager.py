"""``FieldManager``: Update tracking, client-sent managedFields, subresources, client-side apply
interplay, and the wire format of managedFields entries."""

from __future__ import annotations

import copy
import json
import re
from typing import Any

import pytest

from apiserver.patch.apply import ApplyConflicts
from apiserver.patch.errors import PatchError
from apiserver.patch.fieldmanager import FieldManager
from apiserver.patch.lastapplied import LAST_APPLIED, last_applied
from apiserver.patch.managedfields import decode, encode
from minikube_py.api.unstructured import Object as Obj
from tests.patch.named_schemas import CONFIG_MAP, DEPLOYMENT

CONFIG_MAPS = FieldManager(CONFIG_MAP, "v1", "ConfigMap")
DEPLOYMENTS = FieldManager(DEPLOYMENT, "apps/v1", "Deployment", status_field="status")


def cm(data: Obj | None = None, **meta: Any) -> Obj:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c", **meta}, "data": data or {}}


def stored(obj: Obj) -> Obj:
    """``obj`` as the store keeps it: with system metadata."""
    obj = copy.deepcopy(obj)
    obj["metadata"].update(uid="u-1", resourceVersion="5", creationTimestamp="2024-05-01T12:00:00Z")
    return obj


def entries(obj: Obj) -> list[tuple[str, str, Obj]]:
    return [(e.get("manager", ""), e["operation"], e["fieldsV1"]) for e in obj["metadata"]["managedFields"]]


def test_create_records_an_update_without_identity_or_system_fields() -> None:
    created = CONFIG_MAPS.update(None, stored(cm({"a": "1"}, labels={"x": "y"})), "kubectl-create")
    assert entries(created) == [
        ("kubectl-create", "Update", {"f:data": {"f:a": {}}, "f:metadata": {"f:labels": {"f:x": {}}}})
    ]
    (entry,) = created["metadata"]["managedFields"]
    assert entry["apiVersion"] == "v1" and entry["fieldsType"] == "FieldsV1" and entry["time"].endswith("Z")


def test_updates_take_changed_fields_and_keep_the_rest() -> None:
    live = CONFIG_MAPS.update(None, stored(cm({"a": "1", "b": "2"})), "creator")
    edited = CONFIG_MAPS.update(live, {**live, "data": {"a": "10", "b": "2", "c": "3"}}, "editor")
    assert entries(edited) == [
        ("creator", "Update", {"f:data": {"f:b": {}}}),
        ("editor", "Update", {"f:data": {"f:a": {}, "f:c": {}}}),
    ]
    again = CONFIG_MAPS.update(edited, {**edited, "data": {"b": "2", "c": "3"}}, "editor")
    assert dict((m, f) for m, _, f in entries(again)) == {
        "creator": {"f:data": {"f:b": {}}},
        "editor": {"f:data": {"f:c": {}}},  # removing a is not owning it
    }


def test_an_unchanged_write_leaves_entries_alone() -> None:
    live = CONFIG_MAPS.update(None, stored(cm({"a": "1"})), "creator")
    assert (
        CONFIG_MAPS.update(live, copy.deepcopy(live), "someone")["metadata"]["managedFields"]
        == (live["metadata"]["managedFields"])
    )


def test_an_untracked_object_stays_untracked_by_updates() -> None:
    live = stored(cm({"a": "1"}))
    assert "managedFields" not in CONFIG_MAPS.update(live, stored(cm({"a": "2"})), "editor")["metadata"]


@pytest.mark.parametrize("sent", [[], [{}]])
def test_empty_managed_fields_from_a_client_reset_them(sent: list[Obj]) -> None:
    live = CONFIG_MAPS.update(None, stored(cm({"a": "1"})), "creator")
    reset = CONFIG_MAPS.update(live, {**live, "metadata": {**live["metadata"], "managedFields": sent}}, "x")
    assert "managedFields" not in reset["metadata"]


def test_managed_fields_from_a_client_are_used_when_they_decode() -> None:
    live = CONFIG_MAPS.update(None, stored(cm({"a": "1"})), "creator")
    mine = [
        {"manager": "me", "operation": "Apply", "apiVersion": "v1", "fieldsType": "FieldsV1", "fieldsV1": {}}
    ]
    mine[0]["fieldsV1"] = {"f:data": {"f:a": {}}}
    written = CONFIG_MAPS.update(live, {**live, "metadata": {**live["metadata"], "managedFields": mine}}, "x")
    assert entries(written) == [("me", "Apply", {"f:data": {"f:a": {}}})]
    garbage = {**live, "metadata": {**live["metadata"], "managedFields": [{"operation": "Bogus"}]}}
    assert entries(CONFIG_MAPS.update(live, garbage, "x")) == entries(live)


def test_status_writes_own_only_the_status_and_ignore_sent_managed_fields() -> None:
    statuses = FieldManager(DEPLOYMENT, "apps/v1", "Deployment", "status", subresource="status")
    live = DEPLOYMENTS.update(None, stored({"metadata": {"name": "d"}, "spec": {"replicas": 1}}), "creator")
    new = {**copy.deepcopy(live), "spec": {"replicas": 9}, "status": {"replicas": 1}}
    new["metadata"]["managedFields"] = []
    written = statuses.update(live, new, "controller")
    (controller,) = [e for e in written["metadata"]["managedFields"] if e["manager"] == "controller"]
    assert controller["subresource"] == "status" and controller["fieldsV1"] == {
        "f:status": {"f:replicas": {}}
    }


def test_scale_writes_own_the_replicas_of_the_parent() -> None:
    scales = FieldManager(DEPLOYMENT, "apps/v1", "Deployment", "status", subresource="scale")
    live = DEPLOYMENTS.apply(
        None, {"apiVersion": "apps/v1", "kind": "Deployment", "spec": {"replicas": 1}}, "a", False
    )
    scaled = scales.update(stored(live), {**stored(live), "spec": {"replicas": 5}}, "kubectl")
    with pytest.raises(
        ApplyConflicts, match='conflict with "kubectl" with subresource "scale" using apps/v1'
    ):
        DEPLOYMENTS.apply(
            scaled, {"apiVersion": "apps/v1", "kind": "Deployment", "spec": {"replicas": 2}}, "a", False
        )


@pytest.mark.parametrize(
    ("config", "message"),
    [
        ({"apiVersion": "v1", "kind": "Secret"}, "invalid object type: /v1, Kind=Secret"),
        ({}, "invalid object type: /, Kind="),
        ({"apiVersion": "apps/v1", "kind": "ConfigMap"}, "invalid object type: apps/v1, Kind=ConfigMap"),
        ({**cm(), "metadata": {"name": "c", "managedFields": []}}, "metadata.managedFields must be nil"),
        ({**cm(), "metadata": "c"}, "metadata must be an object"),
    ],
)
def test_bad_configurations_are_400(config: Obj, message: str) -> None:
    with pytest.raises(PatchError) as caught:
        CONFIG_MAPS.apply(None, config, "m", False)
    assert (caught.value.code, str(caught.value)) == (400, message)


def test_unmergeable_lists_are_400_with_upstreams_message() -> None:
    config = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "d", "namespace": "ns"},
        "spec": {"template": {"spec": {"containers": [{"name": "a"}, {"name": "a"}]}}},
    }
    with pytest.raises(
        PatchError, match=r"failed to create typed patch object \(ns/d; apps/v1, Kind=Deployment\)"
    ):
        DEPLOYMENTS.apply(None, config, "m", False)


def test_apply_entry_and_time() -> None:
    created = CONFIG_MAPS.apply(None, cm({"a": "1"}), "kubectl", False)
    assert entries(created) == [("kubectl", "Apply", {"f:data": {"f:a": {}}})]
    time = created["metadata"]["managedFields"][0]["time"]
    assert (
        CONFIG_MAPS.apply(stored(created), cm({"a": "1"}), "kubectl", False)["metadata"]["managedFields"][0][
            "time"
        ]
        == time
    )


def test_an_apply_of_nothing_but_identity_drops_the_entry_and_its_fields() -> None:
    live = stored(CONFIG_MAPS.apply(None, cm({"a": "1"}), "m", False))
    emptied = CONFIG_MAPS.apply(
        live, {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}}, "m", False
    )
    assert "managedFields" not in emptied["metadata"] and "data" not in emptied


def client_side_applied(data: Obj) -> Obj:
    """A ConfigMap created by ``kubectl apply`` (client-side): annotation plus Update entry."""
    manifest = cm(data)
    obj = cm(data, annotations={LAST_APPLIED: last_applied(manifest)})
    return stored(CONFIG_MAPS.update(None, stored(obj), "kubectl-client-side-apply"))


def test_kubectl_takes_over_what_client_side_apply_last_applied() -> None:
    live = client_side_applied({"a": "1"})
    upgraded = CONFIG_MAPS.apply(live, cm({"a": "2"}), "kubectl", False)
    assert upgraded["data"] == {"a": "2"}
    annotation = json.loads(upgraded["metadata"]["annotations"][LAST_APPLIED])
    assert annotation["data"] == {"a": "2"}  # kept current for a later client-side apply
    with pytest.raises(ApplyConflicts, match=re.escape('"kubectl-client-side-apply" using v1: .data.a')):
        CONFIG_MAPS.apply(live, cm({"a": "2"}), "other", False)


def test_no_take_over_of_a_value_changed_since_the_last_client_side_apply() -> None:
    live = client_side_applied({"a": "1"})
    live["data"]["a"] = "changed by hand"
    with pytest.raises(ApplyConflicts):
        CONFIG_MAPS.apply(live, cm({"a": "2"}), "kubectl", False)


def test_entries_sort_like_upstream_and_round_trip() -> None:
    raw = [
        {"manager": "b", "operation": "Update", "apiVersion": "v1", "time": "2024-01-02T00:00:00Z",
         "fieldsType": "FieldsV1", "fieldsV1": {"f:x": {}}},
        {"manager": "z", "operation": "Update", "apiVersion": "v1", "time": "2024-01-01T00:00:00Z",
         "fieldsType": "FieldsV1", "fieldsV1": {"f:y": {}}, "subresource": "status"},
        {"manager": "a", "operation": "Apply", "apiVersion": "v1", "time": "2024-01-03T00:00:00Z",
         "fieldsType": "FieldsV1", "fieldsV1": {"f:z": {}}},
    ]  # fmt: skip
    assert [e["manager"] for e in encode(decode(raw))] == ["a", "z", "b"]
    assert encode(decode(raw)) == [raw[2], raw[1], raw[0]]


@pytest.mark.parametrize(
    ("raw", "problem"),
    [
        ({}, "must be a list"),
        ([{"operation": "Patch", "apiVersion": "v1", "fieldsType": "FieldsV1"}], "operation must be"),
        ([{"operation": "Apply", "fieldsType": "FieldsV1"}], "apiVersion must not be empty"),
        ([{"operation": "Apply", "apiVersion": "v1"}], "missing fieldsType"),
        ([{"operation": "Apply", "apiVersion": "v1", "fieldsType": "FieldsV2"}], "invalid fieldsType"),
    ],
)
def test_malformed_entries(raw: Any, problem: str) -> None:
    with pytest.raises(ValueError, match=problem):
        decode(raw)
