"""The one-walk ``FieldsV1`` of a create equals the set-based computation it short-cuts:
``to_fields_v1(compare({}, new).added - ignored - STRIPPED)``, for hand-picked corner cases and
for many random objects shaped like pods and deployments."""

from __future__ import annotations

import random
from typing import Any

import pytest

from apiserver.patch.compare import compare
from apiserver.patch.createdfields import created_fields_v1
from apiserver.patch.fieldmanager import _SYSTEM_META, STRIPPED, FieldManager
from apiserver.patch.fieldpath import field, to_fields_v1
from apiserver.patch.schema import Fields
from minikube_py.api.unstructured import Object as Obj
from tests.patch.named_schemas import CONFIG_MAP, DEPLOYMENT, POD


def by_sets(obj: Obj, schema: Fields, status: str | None) -> Obj:
    added = compare({}, obj, schema).added - STRIPPED
    return to_fields_v1({p for p in added if not (status and p[0] == field(status))})


def by_walk(obj: Obj, schema: Fields, status: str | None) -> Obj:
    ignored = ("apiVersion", "kind", status) if status else ("apiVersion", "kind")
    return created_fields_v1(obj, schema, ignored, _SYSTEM_META)


CORNERS: list[tuple[Obj, Fields, str | None]] = [
    ({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}}, CONFIG_MAP, None),
    ({"metadata": {}, "data": {}}, CONFIG_MAP, None),
    ({"metadata": {"name": "c", "labels": {}}, "data": {"a": "1"}, "binaryData": {}}, CONFIG_MAP, None),
    (  # duplicated merge keys: the items are atomic leaves
        {"spec": {"containers": [{"name": "a", "image": "x"}, {"name": "a", "image": "y"}]}},
        POD,
        "status",
    ),
    (  # an item without its merge key: the whole list is atomic
        {"spec": {"containers": [{"name": "a"}, {"image": "y"}], "volumes": []}},
        POD,
        "status",
    ),
    ({"metadata": {"finalizers": ["a/b", "c/d", "a/b"]}, "status": {"phase": "x"}}, POD, "status"),
    ({"metadata": {"ownerReferences": [{"uid": "1", "kind": "K"}, {}]}}, POD, "status"),
    ({"spec": {"containers": [{"name": "a", "env": [{"name": "E"}], "ports": [{}]}]}}, POD, "status"),
    ({"spec": {"containers": [{}], "nodeName": "n"}, "status": {}}, POD, None),
]


@pytest.mark.parametrize(("obj", "schema", "status"), CORNERS)
def test_corner_cases_match_the_set_computation(obj: Obj, schema: Fields, status: str | None) -> None:
    assert by_walk(obj, schema, status) == by_sets(obj, schema, status)


def random_value(rng: random.Random, depth: int) -> Any:
    kind = rng.choice(["str", "int", "bool", "none", "map", "list", "empty"]) if depth else "str"
    if kind == "map":
        return {rng.choice("abcde"): random_value(rng, depth - 1) for _ in range(rng.randint(0, 3))}
    if kind == "list":
        return [random_value(rng, depth - 1) for _ in range(rng.randint(0, 3))]
    if kind == "empty":
        return rng.choice([{}, [], ""])
    return {"str": "v", "int": rng.randint(0, 3), "bool": True, "none": None}[kind]


def random_container(rng: random.Random) -> Obj:
    container: Obj = {"image": "img"}
    if rng.random() < 0.9:
        container["name"] = rng.choice(["app", "side", "init"])
    if rng.random() < 0.7:
        container["env"] = [{"name": rng.choice("XYZ"), "value": "1"} for _ in range(rng.randint(0, 3))]
    if rng.random() < 0.5:
        container["ports"] = [{"containerPort": rng.choice([80, 443]), "protocol": "TCP"}]
    if rng.random() < 0.5:
        container["resources"] = rng.choice([{}, {"requests": {"cpu": "1"}}])
    if rng.random() < 0.3:
        container[rng.choice("xyz")] = random_value(rng, 2)
    return container


def random_pod(rng: random.Random) -> Obj:
    spec: Obj = {"containers": [random_container(rng) for _ in range(rng.randint(0, 3))]}
    if rng.random() < 0.5:
        spec["volumes"] = [{"name": rng.choice("vw"), "emptyDir": {}} for _ in range(rng.randint(0, 2))]
    if rng.random() < 0.3:
        spec["tolerations"] = [{"key": "k", "operator": "Exists"}]
    meta: Obj = {"name": "p", "namespace": "default", "uid": "u"}
    if rng.random() < 0.6:
        meta["labels"] = {rng.choice("ab"): "1"}
    if rng.random() < 0.3:
        meta["finalizers"] = [rng.choice(["x/y", "z/w"]) for _ in range(rng.randint(0, 3))]
    if rng.random() < 0.2:
        meta["ownerReferences"] = [{"uid": rng.choice("12"), "kind": "ReplicaSet"}]
    pod: Obj = {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec}
    if rng.random() < 0.5:
        pod["status"] = {"phase": "Pending", "conditions": [{"type": "Ready"}]}
    if rng.random() < 0.2:
        pod[rng.choice("qr")] = random_value(rng, 3)
    return pod


def test_random_pods_and_deployments_match_the_set_computation() -> None:
    rng = random.Random(20261129)
    for _ in range(500):
        pod = random_pod(rng)
        status = rng.choice([None, "status"])
        assert by_walk(pod, POD, status) == by_sets(pod, POD, status), pod
        deployment = {
            "apiVersion": "apps/v1",
            "kind": "Deployment",
            "metadata": {"name": "d", "labels": {"app": "x"}},
            "spec": {"replicas": 2, "template": {"metadata": pod["metadata"], "spec": pod["spec"]}},
        }
        assert by_walk(deployment, DEPLOYMENT, "status") == by_sets(deployment, DEPLOYMENT, "status")


def test_create_records_one_update_entry_for_the_creator() -> None:
    pods = FieldManager(POD, "v1", "Pod", status_field="status")
    pod = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "p", "labels": {"app": "web"}},
        "spec": {"containers": [{"name": "app", "image": "nginx"}]},
        "status": {"phase": "Pending"},
    }
    created = pods.update(None, pod, "kubectl-create")
    (entry,) = created["metadata"]["managedFields"]
    assert list(entry) == ["manager", "operation", "apiVersion", "time", "fieldsType", "fieldsV1"]
    assert (entry["manager"], entry["operation"], entry["apiVersion"]) == ("kubectl-create", "Update", "v1")
    assert entry["fieldsV1"] == {
        "f:metadata": {"f:labels": {"f:app": {}}},
        "f:spec": {"f:containers": {'k:{"name":"app"}': {".": {}, "f:image": {}, "f:name": {}}}},
    }
    assert "managedFields" not in pod["metadata"]  # the input is not modified


def test_create_of_only_unowned_fields_records_nothing() -> None:
    created = FieldManager(CONFIG_MAP, "v1", "ConfigMap").update(
        None, {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c", "managedFields": None}}, "m"
    )
    assert created["metadata"] == {"name": "c"}
