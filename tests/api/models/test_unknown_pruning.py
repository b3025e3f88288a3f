"""``find_unknown`` and ``prune``: one walk finds each unknown field with where it sits, and
pruning deletes exactly those keys."""

from __future__ import annotations

import copy
from typing import Any

from minikube_py.api.models.fieldvalidation import find_unknown, prune, unknown_fields
from tests.api.models.objects import DEPLOYMENT, NODE, SERVICE


def test_known_objects_are_left_untouched() -> None:
    for obj in (DEPLOYMENT, NODE, SERVICE):
        before = copy.deepcopy(obj)
        found = find_unknown(obj["apiVersion"], obj["kind"], obj)
        prune(found)
        assert found == [] and obj == before


def test_each_field_has_its_path_steps_and_parent() -> None:
    obj = copy.deepcopy(DEPLOYMENT)
    obj["metadata"]["labelz"] = {"a": "b"}
    container = obj["spec"]["template"]["spec"]["containers"][0]
    container["imagee"] = "x"
    found = find_unknown("apps/v1", "Deployment", obj)
    assert [(f.path, f.steps) for f in found] == [
        ("metadata.labelz", ("metadata", "labelz")),
        (
            "spec.template.spec.containers[0].imagee",
            ("spec", "template", "spec", "containers", 0, "imagee"),
        ),
    ]
    assert found[0].parent is obj["metadata"] and found[1].parent is container


def test_prune_deletes_exactly_the_unknown_fields() -> None:
    obj = copy.deepcopy(DEPLOYMENT)
    expected = copy.deepcopy(obj)
    obj["extra"] = [1, 2]
    obj["status"]["replicaz"] = 3
    obj["spec"]["template"]["spec"]["containers"][0]["resources"]["limitz"] = {"cpu": "1"}
    obj["spec"]["template"]["spec"]["volumes"].append({"name": "v", "secret": {"mode": 1}})
    expected["spec"]["template"]["spec"]["volumes"].append({"name": "v", "secret": {}})
    prune(find_unknown("apps/v1", "Deployment", obj))
    assert obj == expected
    assert unknown_fields("apps/v1", "Deployment", obj) == []


def test_free_form_values_are_kept_whole() -> None:
    obj: dict[str, Any] = copy.deepcopy(DEPLOYMENT)
    obj["metadata"]["annotations"]["anything"] = "goes"
    obj["metadata"]["managedFields"][0]["fieldsV1"] = {"f:spec": {"f:whatever": {}}}
    obj["spec"]["template"]["spec"]["nodeSelector"] = {"unknown.example.com/key": "v"}
    obj["spec"]["template"]["spec"]["volumes"].append({"name": "g", "gitRepo": {"repository": "r", "y": 1}})
    before = copy.deepcopy(obj)
    assert find_unknown("apps/v1", "Deployment", obj) == []
    assert obj == before


def test_pruning_twice_is_harmless() -> None:
    obj = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a"}, "dta": {"x": "y"}}
    found = find_unknown("v1", "ConfigMap", obj)
    prune(found)
    prune(found)
    assert obj == {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a"}}


def test_kinds_without_a_model_and_non_objects_find_nothing() -> None:
    assert find_unknown("example.com/v1", "Widget", {"spec": {"x": 1}}) == []
    assert find_unknown("v1", "Pod", [1, 2]) == []  # type: ignore[arg-type]
