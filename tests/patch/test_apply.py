"""Server-side apply's engine: field sets, merge, prune, conflicts and force (table-driven)."""

from __future__ import annotations

import copy
import re
from typing import Any

import pytest

from apiserver.patch.apply import ApplyConflicts, Scope, apply_config, merge
from apiserver.patch.compare import compare
from apiserver.patch.fieldpath import FieldSet, Path, from_fields_v1, path_string, to_fields_v1
from apiserver.patch.fieldset import InvalidConfig, field_set
from apiserver.patch.managedfields import APPLY, UPDATE, Entry, Managed, Manager
from apiserver.patch.schema import PLAIN, Fields, List
from minikube_py.api.unstructured import Object as Obj
from tests.patch.named_schemas import CONFIG_MAP, DEPLOYMENT, POD


def fields(tree: Obj) -> FieldSet:
    return from_fields_v1(tree)


# field sets


@pytest.mark.parametrize(
    ("obj", "schema", "expected"),
    [
        pytest.param(
            {"metadata": {"name": "x", "labels": {"app": "web"}}, "data": {"a": "1"}},
            CONFIG_MAP,
            {"f:metadata": {"f:name": {}, "f:labels": {"f:app": {}}}, "f:data": {"f:a": {}}},
            id="leaves of nested objects",
        ),
        pytest.param(
            {
                "spec": {
                    "containers": [{"name": "web", "image": "nginx", "env": [{"name": "A", "value": "1"}]}]
                }
            },
            POD,
            {
                "f:spec": {
                    "f:containers": {
                        'k:{"name":"web"}': {
                            ".": {},
                            "f:name": {},
                            "f:image": {},
                            "f:env": {'k:{"name":"A"}': {".": {}, "f:name": {}, "f:value": {}}},
                        }
                    }
                }
            },
            id="items of associative lists are members with their fields",
        ),
        pytest.param(
            {"metadata": {"finalizers": ["a.io/x", "b.io/y"]}},
            POD,
            {"f:metadata": {"f:finalizers": {'v:"a.io/x"': {}, 'v:"b.io/y"': {}}}},
            id="set items by value",
        ),
        pytest.param(
            {"spec": {"containers": [{"name": "c", "args": ["a", "b"], "command": []}]}},
            POD,
            {
                "f:spec": {
                    "f:containers": {'k:{"name":"c"}': {".": {}, "f:name": {}, "f:args": {}, "f:command": {}}}
                }
            },
            id="atomic lists are leaves, even empty",
        ),
        pytest.param(
            {"spec": {"securityContext": {}, "nodeName": None, "volumes": []}},
            POD,
            {"f:spec": {"f:securityContext": {}, "f:nodeName": {}}},
            id="empty objects and nulls are leaves, an empty associative list owns nothing",
        ),
        pytest.param(
            {"spec": {"ports": [{"port": 80.0}]}},
            Fields({"spec": Fields({"ports": List(merge_key="port")})}),
            {"f:spec": {"f:ports": {'k:{"port":80}': {".": {}, "f:port": {}}}}},
            id="integral float keys are written as integers",
        ),
    ],
)
def test_field_set(obj: Obj, schema: Fields, expected: Obj) -> None:
    found = field_set(obj, schema, strict=True)
    assert found == fields(expected)
    assert from_fields_v1(to_fields_v1(found)) == found


@pytest.mark.parametrize(
    ("obj", "message"),
    [
        (
            {"spec": {"containers": [{"name": "a"}, {"name": "a"}]}},
            '.spec.containers: duplicate entries for key [name="a"]',
        ),
        (
            {"spec": {"containers": [{"image": "x"}]}},
            ".spec.containers: element 0: associative list with keys has an element that omits key field",
        ),
        ({"spec": {"containers": ["web"]}}, "associative list with keys may not have non-map elements"),
        (
            {"metadata": {"finalizers": [{"a": 1}]}},
            "associative list without keys has an element that's a map",
        ),
        ({"metadata": {"finalizers": ["a", "a"]}}, '.metadata.finalizers: duplicate entries for key [="a"]'),
    ],
)
def test_field_set_of_a_config_refuses_unnamed_items(obj: Obj, message: str) -> None:
    with pytest.raises(InvalidConfig, match=re.escape(message)):
        field_set(obj, POD, strict=True)


def test_live_lists_that_cannot_be_named_are_atomic() -> None:
    live = {"spec": {"containers": [{"image": "x"}], "volumes": [{"name": "v"}, {"name": "v"}]}}
    assert field_set(live, POD) == {
        ("f:spec", "f:containers"),
        ("f:spec", "f:volumes", 'k:{"name":"v"}'),  # a duplicate is owned whole, not field by field
    }


def test_fields_v1_marks_members_with_children() -> None:
    paths = {("f:a",), ("f:a", "f:b"), ("f:c", 'k:{"n":1}'), ("f:c", 'k:{"n":1}', "f:n")}
    assert to_fields_v1(paths) == {"f:a": {".": {}, "f:b": {}}, "f:c": {'k:{"n":1}': {".": {}, "f:n": {}}}}


@pytest.mark.parametrize(
    ("tree", "problem"),
    [([], "must be a JSON object"), ({"f:a": 1}, "must be a JSON object"), ({"x:a": {}}, "unknown FieldsV1")],
)
def test_malformed_fields_v1(tree: Any, problem: str) -> None:
    with pytest.raises(ValueError, match=problem):
        from_fields_v1(tree)


@pytest.mark.parametrize(
    ("path", "text"),
    [
        (("f:spec", "f:replicas"), ".spec.replicas"),
        (("f:spec", "f:containers", 'k:{"name":"web"}', "f:image"), '.spec.containers[name="web"].image'),
        (("f:metadata", "f:finalizers", 'v:"a"'), '.metadata.finalizers[="a"]'),
        (("f:spec", "f:ports", 'k:{"port":80}'), ".spec.ports[port=80]"),
        (("f:x", "i:3"), ".x[3]"),
    ],
)
def test_path_string(path: Path, text: str) -> None:
    assert path_string(path) == text


# merge


MERGE_SCHEMA = Fields({"items": List(merge_key="k"), "set": List(), "spec": PLAIN})


@pytest.mark.parametrize(
    ("live", "config", "expected"),
    [
        pytest.param(
            {"a": 1, "b": 2}, {"b": 3, "c": 4}, {"a": 1, "b": 3, "c": 4}, id="config wins field by field"
        ),
        pytest.param({"a": 1, "b": 2}, {"b": None}, {"a": 1}, id="null removes"),
        pytest.param(
            {"spec": {"x": 1, "y": 2}}, {"spec": {"y": 3, "z": None}}, {"spec": {"x": 1, "y": 3}}, id="nested"
        ),
        pytest.param(
            {"spec": {"l": [1, 2]}}, {"spec": {"l": [3]}}, {"spec": {"l": [3]}}, id="atomic list replaced"
        ),
        pytest.param({"set": ["a", "b"]}, {"set": ["c", "a"]}, {"set": ["c", "a", "b"]}, id="set union"),
        pytest.param(
            {"items": [{"k": "a", "v": 1, "w": 1}, {"k": "b", "v": 2}]},
            {"items": [{"k": "a", "v": 10}, {"k": "c", "v": 3}]},
            {"items": [{"k": "a", "v": 10, "w": 1}, {"k": "b", "v": 2}, {"k": "c", "v": 3}]},
            id="items merge by key; live-only items keep their place, new ones follow",
        ),
        pytest.param(
            {"items": [{"k": "x"}, {"k": "a"}, {"k": "b"}]},
            {"items": [{"k": "b"}, {"k": "a"}]},
            {"items": [{"k": "x"}, {"k": "b"}, {"k": "a"}]},
            id="applied items take the configuration's order",
        ),
        pytest.param(
            {"items": [{"k": "a", "v": 1}, {"k": "a", "v": 2}]},
            {"items": [{"k": "a", "v": 3}]},
            {"items": [{"k": "a", "v": 3}]},
            id="a live duplicate is replaced by the applied item",
        ),
        pytest.param(
            {"items": [{"v": "no key"}, {"k": "a"}]},
            {"items": [{"k": "a", "v": 1}]},
            {"items": [{"v": "no key"}, {"k": "a", "v": 1}]},
            id="live items without a key stay",
        ),
    ],
)
def test_merge(live: Obj, config: Obj, expected: Obj) -> None:
    before = copy.deepcopy(live)
    assert merge(live, config, MERGE_SCHEMA) == expected
    assert live == before


# apply: ownership, prune, conflicts


SCOPE = Scope(DEPLOYMENT, "apps/v1", lambda path: path[0] == "f:status")


def deployment(*containers: Obj, replicas: int | None = 2, labels: Obj | None = None) -> Obj:
    obj: Obj = {"metadata": {"name": "d", "labels": labels or {"app": "d"}}, "spec": {}}
    if replicas is not None:
        obj["spec"]["replicas"] = replicas
    if containers:
        obj["spec"]["template"] = {"spec": {"containers": list(containers)}}
    return obj


def web(image: str = "nginx:1", **extra: Any) -> Obj:
    return {"name": "web", "image": image, **extra}


def applier(name: str) -> Manager:
    return Manager.of(name, APPLY, "apps/v1")


def run(steps: list[tuple[str, Obj, bool]]) -> tuple[Obj, Managed]:
    """Apply each ``(manager, config, force)`` in turn from nothing."""
    live: Obj = {}
    managed: Managed = {}
    for name, config, force in steps:
        live, managed = apply_config(live, config, managed, applier(name), force, SCOPE)
    return live, managed


def owned(managed: Managed, name: str) -> set[str]:
    return {path_string(path) for path in managed[applier(name)].fields}


def containers(obj: Obj) -> list[Obj]:
    return list(obj["spec"]["template"]["spec"]["containers"])


def test_a_second_apply_removes_what_it_no_longer_applies() -> None:
    live, managed = run(
        [
            (
                "a",
                deployment(web(env=[{"name": "A", "value": "1"}]), labels={"app": "d", "tier": "x"}),
                False,
            ),
            ("a", deployment(web("nginx:2")), False),
        ]
    )
    assert live["metadata"]["labels"] == {"app": "d"}
    assert containers(live) == [{"name": "web", "image": "nginx:2"}]
    assert ".metadata.labels.tier" not in owned(managed, "a")


def test_a_field_another_manager_owns_is_not_removed() -> None:
    live, managed = run(
        [
            ("a", deployment(replicas=3), False),
            ("b", deployment(replicas=3), False),  # same value: shared, no conflict
            ("a", deployment(replicas=None), False),
        ]
    )
    assert live["spec"]["replicas"] == 3
    assert ".spec.replicas" in owned(managed, "b")
    assert ".spec.replicas" not in owned(managed, "a")


def test_dropping_everything_in_an_object_removes_the_object() -> None:
    live, _ = run(
        [
            ("a", {"metadata": {"name": "d"}, "spec": {"replicas": 1}}, False),
            ("a", {"metadata": {"name": "d"}}, False),
        ]
    )
    assert "spec" not in live and live["metadata"] == {"name": "d"}


@pytest.mark.parametrize(
    ("second", "conflicts"),
    [
        pytest.param(deployment(replicas=5), ['conflict with "a": .spec.replicas'], id="scalar"),
        pytest.param(
            deployment(web("nginx:2"), replicas=None),
            ['conflict with "a": .spec.template.spec.containers[name="web"].image'],
            id="field of a list item",
        ),
        pytest.param(
            deployment(web("nginx:2"), replicas=5, labels={"app": "other"}),
            [
                'conflict with "a": .metadata.labels.app',
                'conflict with "a": .spec.replicas',
                'conflict with "a": .spec.template.spec.containers[name="web"].image',
            ],
            id="several",
        ),
    ],
)
def test_changing_a_field_another_applier_owns_conflicts(second: Obj, conflicts: list[str]) -> None:
    live, managed = run([("a", deployment(web()), False)])
    with pytest.raises(ApplyConflicts) as caught:
        apply_config(live, second, managed, applier("b"), False, SCOPE)
    assert [f"{message}: {field}" for message, field in caught.value.causes()] == conflicts
    if len(conflicts) == 1:
        assert str(caught.value) == f"Apply failed with 1 conflict: {conflicts[0]}"
    else:
        assert str(caught.value).startswith(
            f'Apply failed with {len(conflicts)} conflicts: conflicts with "a":\n- '
        )


def test_force_takes_ownership() -> None:
    live, managed = run(
        [("a", deployment(web()), False), ("b", deployment(web("nginx:2"), replicas=None), True)]
    )
    assert containers(live)[0]["image"] == "nginx:2"
    image = '.spec.template.spec.containers[name="web"].image'
    assert image in owned(managed, "b") and image not in owned(managed, "a")
    # now a changing the image back is the conflict, with b
    with pytest.raises(ApplyConflicts, match=re.escape('conflict with "b": .spec.template')):
        apply_config(live, deployment(web()), managed, applier("a"), False, SCOPE)


def test_same_value_from_two_managers_is_shared_without_conflict() -> None:
    live, managed = run([("a", deployment(web()), False), ("b", deployment(web()), False)])
    assert owned(managed, "a") == owned(managed, "b")
    with pytest.raises(ApplyConflicts) as caught:
        apply_config(live, deployment(web("nginx:3")), managed, applier("a"), False, SCOPE)
    assert {c.manager.name for c in caught.value.conflicts} == {"b"}


def test_list_items_by_merge_key_belong_to_their_appliers() -> None:
    side = {"name": "side", "image": "busybox"}
    live, managed = run([("a", deployment(web()), False), ("b", deployment(side, replicas=None), False)])
    assert [c["name"] for c in containers(live)] == ["web", "side"]
    assert '.spec.template.spec.containers[name="side"]' in owned(managed, "b")
    live, managed = apply_config(live, deployment(web("nginx:2")), managed, applier("a"), False, SCOPE)
    assert [c["name"] for c in containers(live)] == ["web", "side"]  # b's item stays
    live, managed = apply_config(live, deployment(side, replicas=None), managed, applier("a"), True, SCOPE)
    assert containers(live) == [side]  # a no longer applies web: gone


def test_ignored_fields_are_never_owned() -> None:
    config = {**deployment(), "status": {"replicas": 9}}
    _, managed = run([("a", config, False)])
    assert not any(path.startswith(".status") for path in owned(managed, "a"))


def test_update_managers_lose_what_an_apply_forces() -> None:
    live, managed = run([("a", deployment(), False)])
    editor = Manager.of("kubectl-edit", UPDATE, "apps/v1")
    managed[editor] = Entry({("f:spec", "f:replicas")}, "apps/v1", None)
    with pytest.raises(ApplyConflicts, match=re.escape('"kubectl-edit" using apps/v1: .spec.replicas')):
        apply_config(live, deployment(replicas=7), managed, applier("a"), False, SCOPE)
    _, managed = apply_config(live, deployment(replicas=7), managed, applier("a"), True, SCOPE)
    assert editor not in managed


def test_compare_reports_items_and_leaves() -> None:
    old = {"spec": {"containers": [web(), {"name": "gone", "image": "x"}], "nodeName": "n"}}
    new = {"spec": {"containers": [web("nginx:2"), {"name": "new", "image": "y"}], "hostname": "h"}}
    found = compare(old, new, POD)
    item = ("f:spec", "f:containers")
    assert found.modified == {(*item, 'k:{"name":"web"}', "f:image")}
    assert found.added == {
        (*item, 'k:{"name":"new"}'),
        (*item, 'k:{"name":"new"}', "f:name"),
        (*item, 'k:{"name":"new"}', "f:image"),
        ("f:spec", "f:hostname"),
    }
    assert ("f:spec", "f:nodeName") in found.removed and (*item, 'k:{"name":"gone"}') in found.removed


def test_compare_follows_go_equality() -> None:
    assert not compare({"a": 1}, {"a": 1.0}, PLAIN).modified
    assert compare({"a": 1}, {"a": True}, PLAIN).modified == {("f:a",)}
