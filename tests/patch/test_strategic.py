"""apply_strategic_merge_patch: merge rules, every directive, errors, and kubectl's apply patches."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from apiserver.patch.errors import PatchError
from apiserver.patch.jsonpatch import json_equal
from apiserver.patch.schema import Fields, List
from apiserver.patch.strategic import apply_strategic_merge_patch
from tests.patch.named_schemas import DEPLOYMENT

# A made-up type exercising every kind of node; "plain" and "m" are undeclared (plain) fields.
SCHEMA = Fields(
    {
        "items": List(merge_key="name", item=Fields({"ports": List(merge_key="port"), "tags": List()})),
        "numbers": List(),
        "union": Fields(retain_keys=True),
        "volumes": List(merge_key="name", retain_keys=True),
    }
)


def named(*names: str) -> list[dict[str, Any]]:
    return [{"name": name} for name in names]


MAPS = [
    pytest.param({"a": 1}, {"b": 2}, {"a": 1, "b": 2}, id="add-key"),
    pytest.param({"a": 1, "b": 2}, {"a": None}, {"b": 2}, id="null-deletes"),
    pytest.param({"a": 1}, {"z": None}, {"a": 1}, id="null-for-absent-key"),
    pytest.param(
        {"m": {"x": 1, "y": 2}}, {"m": {"y": None, "z": 3}}, {"m": {"x": 1, "z": 3}}, id="nested-merge"
    ),
    pytest.param(
        {}, {"m": {"x": None, "y": {"z": None, "w": 1}}}, {"m": {"y": {"w": 1}}}, id="new-value-nulls"
    ),
    pytest.param({"m": {"x": 1}}, {"m": "s"}, {"m": "s"}, id="scalar-replaces-map"),
    pytest.param({"m": [1]}, {"m": {"x": 1}}, {"m": {"x": 1}}, id="map-replaces-list"),
    pytest.param(
        {"plain": [{"name": "a", "v": 1}]}, {"plain": named("b")}, {"plain": named("b")}, id="plain-list"
    ),
    pytest.param(
        {"m": {"x": 1, "y": 2}}, {"m": {"$patch": "replace", "z": 3}}, {"m": {"z": 3}}, id="map-replace"
    ),
    pytest.param(
        {"m": {"x": 1}, "k": 1}, {"m": {"$patch": "delete"}}, {"m": {}, "k": 1}, id="map-delete-live"
    ),
    pytest.param({"k": 1}, {"m": {"$patch": "delete"}}, {"k": 1}, id="map-delete-absent"),
    pytest.param({}, {"m": {"$patch": "replace", "x": 1}}, {"m": {"x": 1}}, id="map-replace-absent"),
    pytest.param({"a": 1, "b": 2}, {"$patch": "replace", "c": 3}, {"c": 3}, id="top-level-replace"),
    pytest.param({"a": 1}, {"$patch": "delete"}, {}, id="top-level-delete"),
    pytest.param(
        {"m": {"$ref": "x"}}, {"m": {"$ref": "y"}}, {"m": {"$ref": "y"}}, id="other-dollar-keys-are-data"
    ),
]

KEYED_LISTS = [
    pytest.param(
        {"items": [{"name": "a", "v": 1}, {"name": "b"}]},
        {"items": [{"name": "a", "w": 2}]},
        {"items": [{"name": "a", "v": 1, "w": 2}, {"name": "b"}]},
        id="merge-into-item",
    ),
    pytest.param(
        {"items": named("a", "b")}, {"items": named("c")}, {"items": named("c", "a", "b")}, id="new-first"
    ),
    pytest.param(
        {"items": [{"name": 1, "v": 1}]},
        {"items": [{"name": True, "v": 2}, {"name": 1.0, "w": 3}]},
        {"items": [{"name": True, "v": 2}, {"name": 1.0, "v": 1, "w": 3}]},
        id="key-true-is-not-1-but-1-is-1.0",
    ),
    pytest.param(
        {"items": [{"name": "x"}, {"name": "y", "v": "old"}, {"name": "z"}]},
        {"items": [{"name": "z", "v": "1"}, {"name": "x", "v": "2"}]},
        {"items": [{"name": "y", "v": "old"}, {"name": "z", "v": "1"}, {"name": "x", "v": "2"}]},
        id="patch-order-wins-server-only-interleaved",
    ),
    pytest.param(
        {"items": named("a", "b", "c")},
        {"items": [{"$patch": "delete", "name": "b"}]},
        {"items": named("a", "c")},
        id="delete-item",
    ),
    pytest.param(
        {"items": named("a")},
        {"items": [{"$patch": "delete", "name": "q"}]},
        {"items": named("a")},
        id="delete-absent-item",
    ),
    pytest.param(
        {"items": [{"name": "a"}, {"name": "a", "v": 1}, {"name": "b"}]},
        {"items": [{"$patch": "delete", "name": "a"}]},
        {"items": named("b")},
        id="delete-removes-duplicates",
    ),
    pytest.param(
        {"items": named("a", "b")},
        {"items": [*named("c"), {"$patch": "replace"}]},
        {"items": named("c")},
        id="replace-list",
    ),
    pytest.param(
        {"items": named("a", "b")}, {"items": [{"$patch": "replace"}]}, {"items": []}, id="replace-empty"
    ),
    pytest.param(
        {"items": [{"name": "a", "ports": [{"port": 80, "p": "TCP"}, {"port": 443}]}]},
        {"items": [{"name": "a", "ports": [{"port": 80.0, "p": "UDP"}]}]},
        {"items": [{"name": "a", "ports": [{"port": 80, "p": "UDP"}, {"port": 443}]}]},
        id="nested-keyed-list-numeric-key",
    ),
    pytest.param(
        {"items": [{"name": "a", "args": ["x", "y"], "tags": ["t"]}]},
        {"items": [{"name": "a", "args": ["z"], "tags": ["u"]}]},
        {"items": [{"name": "a", "args": ["z"], "tags": ["u", "t"]}]},
        id="plain-and-set-lists-inside-item",
    ),
    pytest.param(
        {"items": [{"name": "a", "v": 1, "w": 2}]},
        {"items": [{"name": "a", "v": None}]},
        {"items": [{"name": "a", "w": 2}]},
        id="null-inside-item",
    ),
    pytest.param(
        {}, {"items": [*named("a"), {"$patch": "delete", "name": "b"}]}, {"items": named("a")}, id="new-list"
    ),
]

PRIMITIVE_SETS = [
    pytest.param({"numbers": [1, 2]}, {"numbers": [2, 3]}, {"numbers": [1, 2, 3]}, id="union"),
    pytest.param({"numbers": [1, 2, 3]}, {"numbers": [3, 1]}, {"numbers": [2, 3, 1]}, id="patch-order"),
    pytest.param({"numbers": [1, 1, 2]}, {"numbers": [2]}, {"numbers": [1, 2]}, id="deduplicated"),
    pytest.param(
        {"numbers": [1, 2, 3]},
        {"$deleteFromPrimitiveList/numbers": [2]},
        {"numbers": [1, 3]},
        id="delete-from-set",
    ),
    pytest.param(
        {"plain": ["a", "b", "a"]},
        {"$deleteFromPrimitiveList/plain": ["a", "z"]},
        {"plain": ["b"]},
        id="delete-plain",
    ),
    pytest.param({"k": 1}, {"$deleteFromPrimitiveList/numbers": [1]}, {"k": 1}, id="delete-from-absent"),
    pytest.param(
        {"numbers": [1, 2]},
        {"$setElementOrder/numbers": [2, 3], "numbers": [3], "$deleteFromPrimitiveList/numbers": [1]},
        {"numbers": [2, 3]},
        id="kubectl-style-set-change",
    ),
]

ELEMENT_ORDER = [
    pytest.param(
        {"items": named("a", "b", "c")},
        {"$setElementOrder/items": named("c", "a", "b")},
        {"items": named("c", "a", "b")},
        id="reorder-only",
    ),
    pytest.param(
        {"items": named("a", "b", "x", "c", "d")},
        {"$setElementOrder/items": named("b", "a", "d", "c")},
        {"items": named("b", "a", "x", "d", "c")},
        id="server-only-item-keeps-its-place",
    ),
    pytest.param(
        {"items": named("a", "c")},
        {
            "$setElementOrder/items": named("c", "b", "a"),
            "items": [{"name": "c", "v": 1}, {"name": "a", "v": 2}],
        },
        {"items": [{"name": "c", "v": 1}, {"name": "a", "v": 2}]},
        id="order-names-missing-item",
    ),
    pytest.param(
        {"items": named("a", "b", "c")},
        {"$setElementOrder/items": named("c", "a"), "items": [{"$patch": "delete", "name": "b"}]},
        {"items": named("c", "a")},
        id="delete-and-reorder",
    ),
    pytest.param(
        {"numbers": [1, 2, 3]}, {"$setElementOrder/numbers": [3, 1, 2]}, {"numbers": [3, 1, 2]}, id="set"
    ),
    pytest.param(
        {},
        {"$setElementOrder/items": named("b", "a"), "items": named("b", "a")},
        {"items": named("b", "a")},
        id="new",
    ),
    pytest.param(
        {"plain": [1, 2]}, {"$setElementOrder/plain": [2, 1]}, {"plain": [1, 2]}, id="ignored-on-plain"
    ),
]

RETAIN_KEYS = [
    pytest.param(
        {"union": {"type": "A", "a": {"x": 1}, "other": 1}},
        {"union": {"$retainKeys": ["type", "b"], "type": "B", "b": {"y": 2}}},
        {"union": {"type": "B", "b": {"y": 2}}},
        id="switch-member",
    ),
    pytest.param(
        {"union": {"type": "A", "a": {"x": 1, "y": 2}, "z": 0}},
        {"union": {"$retainKeys": ["type", "a"], "a": {"y": 3}}},
        {"union": {"type": "A", "a": {"x": 1, "y": 3}}},
        id="kept-fields-still-merge",
    ),
    pytest.param(
        {"union": {"a": 1, "b": 2}},
        {"union": {"$retainKeys": ["a"], "b": None}},
        {"union": {"a": 1}},
        id="nulls-ok",
    ),
    pytest.param(
        {"volumes": [{"name": "v", "emptyDir": {}}, {"name": "w", "emptyDir": {}}]},
        {"volumes": [{"name": "v", "$retainKeys": ["name", "hostPath"], "hostPath": {"path": "/x"}}]},
        {"volumes": [{"name": "v", "hostPath": {"path": "/x"}}, {"name": "w", "emptyDir": {}}]},
        id="in-list-item",
    ),
]


@pytest.mark.parametrize(
    ("doc", "patch", "expected"), MAPS + KEYED_LISTS + PRIMITIVE_SETS + ELEMENT_ORDER + RETAIN_KEYS
)
def test_apply(doc: dict[str, Any], patch: dict[str, Any], expected: dict[str, Any]) -> None:
    doc_before, patch_before = copy.deepcopy(doc), copy.deepcopy(patch)

    result = apply_strategic_merge_patch(doc, patch, SCHEMA)

    assert json_equal(result, expected), result  # list order matters, and true is not 1
    assert doc == doc_before
    assert patch == patch_before


def test_result_shares_nothing_with_inputs() -> None:
    doc = {"items": [{"name": "a", "tags": ["t"]}], "m": {"x": [1]}}
    patch = {"items": [{"name": "b", "tags": ["u"]}], "n": {"y": [2]}}

    result = apply_strategic_merge_patch(doc, patch, SCHEMA)
    for item in result["items"]:
        item["tags"].append("!")
    result["m"]["x"].append(0)
    result["n"]["y"].append(0)

    assert doc == {"items": [{"name": "a", "tags": ["t"]}], "m": {"x": [1]}}
    assert patch == {"items": [{"name": "b", "tags": ["u"]}], "n": {"y": [2]}}


LIVE_ITEMS = {"items": named("a", "b", "c"), "m": {}, "numbers": [[1]], "union": {"a": 1}}

BAD_PATCHES = [
    pytest.param(["not", "a", "map"], 400, "invalid JSON document", id="patch-is-list"),
    pytest.param("spec", 400, "invalid JSON document", id="patch-is-string"),
    pytest.param(None, 400, "invalid JSON document", id="patch-is-null"),
    pytest.param(
        {"$patch": "bogus"}, 400, "unknown patch type: bogus in map: map[$patch:bogus]", id="top-bogus"
    ),
    pytest.param(
        {"m": {"$patch": "merge"}}, 400, "unknown patch type: merge in map", id="map-merge-directive"
    ),
    pytest.param({"m": {"$patch": 7}}, 400, "unknown patch type: 7 in map", id="map-directive-not-string"),
    pytest.param(
        {"items": [{"$patch": "merge", "name": "a"}]},
        400,
        "merging lists cannot yet be specified in the patch",
        id="item-merge-directive",
    ),
    pytest.param(
        {"items": [{"$patch": "explode", "name": "a"}]}, 400, "unknown patch type: explode", id="item-bogus"
    ),
    pytest.param(
        {"plain": [{"$patch": "explode"}]}, 400, "unknown patch type: explode", id="plain-item-bogus"
    ),
    pytest.param(
        {"items": [{"v": 1}]},
        400,
        "map: map[v:1] does not contain declared merge key: name",
        id="item-without-merge-key",
    ),
    pytest.param(
        {"items": [{"$patch": "delete"}]},
        400,
        "does not contain declared merge key: name",
        id="delete-no-key",
    ),
    pytest.param({"items": ["a"]}, 400, "list element types are not identical", id="keyed-list-mixed"),
    pytest.param({"numbers": [[2]]}, 422, "lists of lists are not supported", id="list-of-lists"),
    pytest.param(
        {
            "$setElementOrder/items": named("a", "b", "c"),
            "items": [{"name": "c", "v": 1}, {"name": "a", "v": 1}],
        },
        400,
        "doesn't match $setElementOrder list",
        id="order-contradicts-patch",
    ),
    pytest.param(
        {"$setElementOrder/items": named("a"), "items": [{"name": "z", "v": 1}]},
        400,
        "doesn't match",
        id="patch-item-not-in-order",
    ),
    pytest.param(
        {"$setElementOrder/items": "a"}, 400, "invalid patch format of setElementOrder list", id="order-str"
    ),
    pytest.param(
        {"$setElementOrder": []}, 400, "invalid patch format of setElementOrder list", id="order-no-field"
    ),
    pytest.param(
        {"$setElementOrder/items": [{"id": "a"}]}, 400, "declared merge key: name", id="order-without-key"
    ),
    pytest.param(
        {"$setElementOrder/items": named("a"), "items": None},
        400,
        "setElementOrder list",
        id="order-with-null-list",
    ),
    pytest.param(
        {"union": {"$retainKeys": "a"}}, 400, "invalid patch format of retainKeys", id="retain-not-list"
    ),
    pytest.param(
        {"union": {"$retainKeys": ["a"], "b": 2}}, 400, "invalid patch format of retainKeys", id="unlisted"
    ),
    pytest.param(
        {"$deleteFromPrimitiveList/numbers": 1},
        400,
        "invalid patch format of primitive list",
        id="delete-not-list",
    ),
    pytest.param(
        {"$deleteFromPrimitiveList/plain": [{"a": 1}]},
        400,
        "invalid patch format of primitive list",
        id="delete-maps",
    ),
    pytest.param(
        {"$deleteFromPrimitiveList": [1]}, 400, "invalid patch format of primitive list", id="delete-no-field"
    ),
]


@pytest.mark.parametrize(("patch", "code", "message"), BAD_PATCHES)
def test_bad_patches(patch: Any, code: int, message: str) -> None:
    live = copy.deepcopy(LIVE_ITEMS)
    patch_before = copy.deepcopy(patch)

    with pytest.raises(PatchError) as caught:
        apply_strategic_merge_patch(live, patch, SCHEMA)

    assert (caught.value.code, caught.value.reason) == (code, {400: "BadRequest", 422: "Invalid"}[code])
    assert message in caught.value.message
    assert live == LIVE_ITEMS
    assert patch == patch_before


@pytest.mark.parametrize(
    ("doc", "patch", "message"),
    [
        ({"numbers": [{"a": 1}]}, {"numbers": [{"a": 2}]}, "cannot merge lists without merge key"),
        ({}, {"items": ["a", "b"]}, "expected a map[string]interface {}, but received a string"),
    ],
)
def test_list_items_of_the_wrong_shape_are_refused(doc: Any, patch: Any, message: str) -> None:
    with pytest.raises(PatchError) as caught:
        apply_strategic_merge_patch(doc, patch, SCHEMA)

    assert caught.value.code == 400
    assert message in caught.value.message


# --- kubectl apply, as kubectl 1.27-1.33 sends it (kubectl-wire.md §8) ------------------------

LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration"


def manifest(image: str, env: list[dict[str, str]], containers: list[dict[str, Any]]) -> dict[str, Any]:
    web = {"name": "web", "image": image, "ports": [{"containerPort": 80}], "env": env}
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "web", "labels": {"app": "web"}},
        "spec": {
            "replicas": 2,
            "selector": {"matchLabels": {"app": "web"}},
            "template": {"metadata": {"labels": {"app": "web"}}, "spec": {"containers": [web, *containers]}},
        },
    }


def live_after_create(applied: dict[str, Any]) -> dict[str, Any]:
    """What the server stores on the first apply (a POST): the manifest, annotated and defaulted."""
    live = copy.deepcopy(applied)
    live["metadata"]["annotations"] = {LAST_APPLIED: json.dumps(applied) + "\n"}
    live["metadata"].update(uid="u-1", resourceVersion="7", generation=1)
    live["spec"]["strategy"] = {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": "25%"}}
    for container in live["spec"]["template"]["spec"]["containers"]:
        container["imagePullPolicy"] = "IfNotPresent"
        for port in container.get("ports", []):
            port["protocol"] = "TCP"
    live["status"] = {"conditions": [{"type": "Available", "status": "True"}], "replicas": 2}
    return live


def annotation_patch(applied: dict[str, Any]) -> dict[str, Any]:
    return {"metadata": {"annotations": {LAST_APPLIED: json.dumps(applied) + "\n"}}}


def test_kubectl_apply_twice_keeps_ports_and_drops_removed_env_and_container() -> None:
    first = manifest(
        "nginx:1.25",
        [{"name": "A", "value": "1"}, {"name": "B", "value": "2"}],
        [{"name": "side", "image": "bb"}],
    )
    second = manifest("nginx:1.26", [{"name": "A", "value": "2"}], [])
    live = live_after_create(first)
    # The three-way patch kubectl computes from (last-applied, second, live):
    patch = annotation_patch(second) | {
        "spec": {
            "template": {
                "spec": {
                    "$setElementOrder/containers": [{"name": "web"}],
                    "containers": [
                        {
                            "$setElementOrder/env": [{"name": "A"}],
                            "env": [{"name": "A", "value": "2"}, {"$patch": "delete", "name": "B"}],
                            "image": "nginx:1.26",
                            "name": "web",
                        },
                        {"$patch": "delete", "name": "side"},
                    ],
                }
            }
        }
    }
    live_before, patch_before = copy.deepcopy(live), copy.deepcopy(patch)

    result = apply_strategic_merge_patch(live, patch, DEPLOYMENT)

    assert result["spec"]["template"]["spec"]["containers"] == [
        {
            "name": "web",
            "image": "nginx:1.26",
            "ports": [{"containerPort": 80, "protocol": "TCP"}],
            "env": [{"name": "A", "value": "2"}],
            "imagePullPolicy": "IfNotPresent",
        }
    ]
    assert json.loads(result["metadata"]["annotations"][LAST_APPLIED]) == second
    assert result["metadata"]["uid"] == "u-1"
    assert result["spec"]["strategy"] == live["spec"]["strategy"]
    assert result["status"] == live["status"]
    assert (live, patch) == (live_before, patch_before)


def test_kubectl_apply_adding_env_in_front_and_a_second_port() -> None:
    first = manifest("nginx:1.25", [{"name": "A", "value": "1"}], [])
    live = live_after_create(first)
    second = manifest("nginx:1.25", [{"name": "B", "value": "0"}, {"name": "A", "value": "1"}], [])
    second["spec"]["template"]["spec"]["containers"][0]["ports"].append({"containerPort": 443})
    patch = annotation_patch(second) | {
        "spec": {
            "template": {
                "spec": {
                    "$setElementOrder/containers": [{"name": "web"}],
                    "containers": [
                        {
                            "$setElementOrder/env": [{"name": "B"}, {"name": "A"}],
                            "$setElementOrder/ports": [{"containerPort": 80}, {"containerPort": 443}],
                            "env": [{"name": "B", "value": "0"}],
                            "name": "web",
                            "ports": [{"containerPort": 443}],
                        }
                    ],
                }
            }
        }
    }

    web = apply_strategic_merge_patch(live, patch, DEPLOYMENT)["spec"]["template"]["spec"]["containers"][0]

    assert web["env"] == [{"name": "B", "value": "0"}, {"name": "A", "value": "1"}]
    assert web["ports"] == [{"containerPort": 80, "protocol": "TCP"}, {"containerPort": 443}]


def test_kubectl_apply_switching_strategy_to_recreate_uses_retain_keys() -> None:
    live = live_after_create(manifest("nginx:1.25", [], []))
    patch = {"spec": {"strategy": {"$retainKeys": ["type"], "rollingUpdate": None, "type": "Recreate"}}}

    result = apply_strategic_merge_patch(live, patch, DEPLOYMENT)

    assert result["spec"]["strategy"] == {"type": "Recreate"}
