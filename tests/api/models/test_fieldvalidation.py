"""Unknown fields as upstream's strict decoding names them; wrong JSON types."""

from __future__ import annotations

import copy
from typing import Any

from minikube_py.api.models.base import K8sModel
from minikube_py.api.models.core_refs import ObjectReference
from minikube_py.api.models.fieldvalidation import type_errors, unknown_fields, unknown_fields_of
from tests.api.models.objects import CLUSTER_ROLE, DEPLOYMENT, NODE, SERVICE


def deployment(**spec: Any) -> dict[str, Any]:
    obj = copy.deepcopy(DEPLOYMENT)
    obj["spec"].update(spec)
    return obj


def test_known_objects_have_no_unknown_fields() -> None:
    for obj in (DEPLOYMENT, NODE, CLUSTER_ROLE, SERVICE):
        assert unknown_fields(obj["apiVersion"], obj["kind"], obj) == []


def test_paths_name_nested_fields_and_list_indexes_in_document_order() -> None:
    obj = deployment(foo=1)
    obj["bar"] = True
    obj["metadata"]["labelz"] = {}
    container = obj["spec"]["template"]["spec"]["containers"][0]
    container["imagee"] = "nginx"
    container["env"][1]["valueFrom"]["fieldRef"]["path"] = "x"
    obj["spec"]["template"]["spec"]["volumes"].append({"name": "v", "secret": {"secretName": "s", "mode": 1}})
    assert unknown_fields("apps/v1", "Deployment", obj) == [
        "metadata.labelz",
        "spec.template.spec.containers[0].env[1].valueFrom.fieldRef.path",
        "spec.template.spec.containers[0].imagee",
        "spec.template.spec.volumes[1].secret.mode",
        "spec.foo",
        "bar",
    ]


def test_maps_and_free_form_objects_are_never_looked_into() -> None:
    obj = deployment()
    obj["metadata"]["labels"]["anything.example.com/goes"] = "x"
    obj["metadata"]["annotations"]["whatever"] = "{}"
    obj["metadata"]["managedFields"][0]["fieldsV1"]["f:metadata"] = {"f:labels": {}}
    obj["spec"]["template"]["spec"]["nodeSelector"] = {"disk": "ssd"}
    obj["spec"]["template"]["spec"]["volumes"].append({"name": "g", "gitRepo": {"repository": "x", "y": 1}})
    assert unknown_fields("apps/v1", "Deployment", obj) == []
    cm = {"apiVersion": "v1", "kind": "ConfigMap", "data": {"apiVersion": "x", "spec": "y"}}
    assert unknown_fields("v1", "ConfigMap", cm) == []


class _Entry(K8sModel):
    ref: ObjectReference | None = None


class _Holder(K8sModel):
    entries: dict[str, _Entry] | None = None
    nested: dict[str, list[_Entry]] | None = None


def test_map_values_that_are_objects_are_checked_with_their_key() -> None:
    obj = {
        "entries": {"a": {"ref": {"name": "x", "nam": "y"}}, "b": {"reff": {}}},
        "nested": {"k": [{"ref": {}}, {"oops": 1}]},
    }
    assert unknown_fields_of(_Holder, obj) == ["entries.a.ref.nam", "entries.b.reff", "nested.k[1].oops"]


def test_wrong_json_types_are_skipped_not_crashed_on() -> None:
    obj = deployment(template=[1, 2], selector="app=web")
    obj["metadata"] = None
    assert unknown_fields("apps/v1", "Deployment", obj) == []


def test_kinds_without_a_model_have_no_unknown_fields() -> None:
    assert unknown_fields("example.com/v1", "Widget", {"spec": {"anything": 1}}) == []
    assert type_errors("example.com/v1", "Widget", {"spec": 1}) == []


def test_type_errors_name_the_path() -> None:
    obj = deployment(replicas="two")
    obj["spec"]["template"]["spec"]["containers"][0]["resources"]["limits"]["cpu"] = "lots"
    obj["spec"]["template"]["spec"]["containers"][0]["ports"] = {"containerPort": 80}
    errors = type_errors("apps/v1", "Deployment", obj)
    assert errors[0].startswith("spec.replicas: Input should be a valid integer")
    assert "spec.template.spec.containers[0].ports: Input should be a valid list" in errors
    assert any(
        e.startswith("spec.template.spec.containers[0].resources.limits.cpu: quantities must") for e in errors
    )
    assert type_errors("apps/v1", "Deployment", DEPLOYMENT) == []
