"""apply_json_patch: RFC 6902 operations, pointers, error classes and copy semantics."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from apiserver.patch.errors import PatchError
from apiserver.patch.jsonpatch import apply_json_patch, json_equal

APPLIES = [
    pytest.param({"a": 1}, [{"op": "add", "path": "/b", "value": 2}], {"a": 1, "b": 2}, id="add-member"),
    pytest.param({"a": 1}, [{"op": "add", "path": "/a", "value": 5}], {"a": 5}, id="add-overwrites-member"),
    pytest.param(
        {"l": ["x", "z"]},
        [{"op": "add", "path": "/l/1", "value": "y"}],
        {"l": ["x", "y", "z"]},
        id="add-insert",
    ),
    pytest.param(
        {"l": [1]}, [{"op": "add", "path": "/l/-", "value": 2}], {"l": [1, 2]}, id="add-append-dash"
    ),
    pytest.param({"l": [1]}, [{"op": "add", "path": "/l/1", "value": 2}], {"l": [1, 2]}, id="add-at-length"),
    pytest.param(
        {"a": {}},
        [{"op": "add", "path": "/a/b", "value": {"c": [1]}}],
        {"a": {"b": {"c": [1]}}},
        id="add-nested",
    ),
    pytest.param({"a": 1}, [{"op": "add", "path": "", "value": [1]}], [1], id="add-root-replaces-document"),
    pytest.param({"a": 1, "b": 2}, [{"op": "remove", "path": "/a"}], {"b": 2}, id="remove-member"),
    pytest.param({"l": [1, 2, 3]}, [{"op": "remove", "path": "/l/1"}], {"l": [1, 3]}, id="remove-element"),
    pytest.param(
        {"a": 1}, [{"op": "replace", "path": "/a", "value": None}], {"a": None}, id="replace-with-null"
    ),
    pytest.param(
        {"l": [1, 2]}, [{"op": "replace", "path": "/l/0", "value": 9}], {"l": [9, 2]}, id="replace-element"
    ),
    pytest.param({"a": 1}, [{"op": "replace", "path": "", "value": {"b": 2}}], {"b": 2}, id="replace-root"),
    pytest.param(
        {"a": {"x": 1}, "b": {}},
        [{"op": "move", "from": "/a/x", "path": "/b/y"}],
        {"a": {}, "b": {"y": 1}},
        id="move-member",
    ),
    pytest.param(
        {"l": ["a", "b", "c", "d"]},
        [{"op": "move", "from": "/l/1", "path": "/l/3"}],
        {"l": ["a", "c", "d", "b"]},
        id="move-element-index-after-removal",
    ),
    pytest.param({"a": 1}, [{"op": "move", "from": "/a", "path": "/a"}], {"a": 1}, id="move-to-itself"),
    pytest.param(
        {"a": {"x": [1]}},
        [{"op": "copy", "from": "/a", "path": "/b"}],
        {"a": {"x": [1]}, "b": {"x": [1]}},
        id="copy-member",
    ),
    pytest.param(
        {"a/b": 1, "m~n": 2},
        [{"op": "replace", "path": "/a~1b", "value": 3}, {"op": "remove", "path": "/m~0n"}],
        {"a/b": 3},
        id="pointer-escapes",
    ),
    pytest.param({"": 1}, [{"op": "replace", "path": "/", "value": 2}], {"": 2}, id="empty-member-name"),
    pytest.param(
        {"spec": {"replicas": 2}},
        [
            {"op": "test", "path": "/spec/replicas", "value": 2.0},
            {"op": "replace", "path": "/spec/replicas", "value": 3},
        ],
        {"spec": {"replicas": 3}},
        id="test-then-replace",
    ),
    pytest.param(
        {"a": {"b": [1, {"c": "d"}]}},
        [{"op": "test", "path": "/a", "value": {"b": [1, {"c": "d"}]}}],
        {"a": {"b": [1, {"c": "d"}]}},
        id="test-deep-equality",
    ),
    pytest.param(
        {"a": {}}, [{"op": "test", "path": "/a/gone", "value": None}], {"a": {}}, id="test-absent-is-null"
    ),
    pytest.param({"a": 1}, [], {"a": 1}, id="empty-patch"),
]


@pytest.mark.parametrize(("doc", "ops", "expected"), APPLIES)
def test_apply(doc: Any, ops: Any, expected: Any) -> None:
    doc_before, ops_before = copy.deepcopy(doc), copy.deepcopy(ops)

    assert apply_json_patch(doc, ops) == expected
    assert doc == doc_before
    assert ops == ops_before


FAILS = [
    pytest.param({"a": 1}, {"op": "add"}, 400, "into Go value of type jsonpatch.Patch", id="patch-not-array"),
    pytest.param({"a": 1}, ["add"], 400, "into Go value of type jsonpatch.Operation", id="op-not-object"),
    pytest.param({"a": 1}, None, 400, "cannot unmarshal null", id="patch-null"),
    pytest.param(
        {"a": 1}, [{"op": "frobnicate", "path": "/a"}], 422, "Unexpected kind: frobnicate", id="unknown-op"
    ),
    pytest.param({"a": 1}, [{"path": "/a"}], 422, "Unexpected kind: unknown", id="missing-op"),
    pytest.param({"a": 1}, [{"op": "remove"}], 422, "operation missing path field", id="missing-path"),
    pytest.param({"a": 1}, [{"op": "add", "path": "/b"}], 422, "missing value field", id="missing-value"),
    pytest.param({"a": 1}, [{"op": "copy", "path": "/b"}], 422, "missing from field", id="missing-from"),
    pytest.param(
        {"a": 1}, [{"op": "remove", "path": 7}], 422, "cannot unmarshal number", id="path-not-string"
    ),
    pytest.param(
        {"a": 1}, [{"op": "remove", "path": "a"}], 422, "must be empty or start with '/'", id="bad-pointer"
    ),
    pytest.param({"a~b": 1}, [{"op": "remove", "path": "/a~b"}], 422, "invalid '~' escape", id="bad-escape"),
    pytest.param(
        {"a": 1},
        [{"op": "add", "path": "/x/y", "value": 1}],
        422,
        'add operation does not apply: doc is missing path: "/x/y"',
        id="add-missing-parent",
    ),
    pytest.param(
        {"a": 1}, [{"op": "remove", "path": "/b"}], 422, "Unable to remove nonexistent key: b", id="rm-gone"
    ),
    pytest.param(
        {"a": 1},
        [{"op": "replace", "path": "/b", "value": 1}],
        422,
        "doc is missing key: /b",
        id="replace-gone",
    ),
    pytest.param(
        {"l": [1]}, [{"op": "add", "path": "/l/3", "value": 1}], 422, "invalid index", id="add-past-end"
    ),
    pytest.param({"l": [1]}, [{"op": "remove", "path": "/l/1"}], 422, "invalid index", id="remove-past-end"),
    pytest.param(
        {"l": [1]}, [{"op": "remove", "path": "/l/-"}], 422, "not a proper array index", id="remove-dash"
    ),
    pytest.param({"l": [1, 2]}, [{"op": "remove", "path": "/l/-1"}], 422, "array index", id="negative-index"),
    pytest.param(
        {"l": [1, 2]}, [{"op": "remove", "path": "/l/01"}], 422, "array index", id="zero-padded-index"
    ),
    pytest.param(
        {"a": {"b": 1}},
        [{"op": "move", "from": "/a", "path": "/a/c"}],
        422,
        "into its own child",
        id="move-into-child",
    ),
    pytest.param(
        {"a": 1}, [{"op": "move", "from": "/x", "path": "/y"}], 422, "missing from path", id="move-gone"
    ),
    pytest.param(
        {"a": 1}, [{"op": "copy", "from": "/x", "path": "/y"}], 422, "missing from path", id="copy-gone"
    ),
    pytest.param(
        {"a": 1},
        [{"op": "test", "path": "/a", "value": 2}],
        422,
        "testing value /a failed: test failed",
        id="test-failed",
    ),
    pytest.param(
        {"a": "10"}, [{"op": "test", "path": "/a", "value": 10}], 422, "test failed", id="string-vs-number"
    ),
    pytest.param(
        {"a": 1}, [{"op": "test", "path": "/a", "value": True}], 422, "test failed", id="one-is-not-true"
    ),
    pytest.param(
        {"a": 1}, [{"op": "test", "path": "/b", "value": 1}], 422, "missing path: /b", id="test-absent"
    ),
]


@pytest.mark.parametrize(("doc", "ops", "code", "message"), FAILS)
def test_errors(doc: Any, ops: Any, code: int, message: str) -> None:
    with pytest.raises(PatchError) as caught:
        apply_json_patch(doc, ops)

    assert caught.value.code == code
    assert caught.value.reason == {400: "BadRequest", 422: "Invalid"}[code]
    assert message in str(caught.value)


def test_failure_part_way_leaves_input_untouched() -> None:
    doc = {"spec": {"replicas": 1, "paused": False}}
    ops = [
        {"op": "replace", "path": "/spec/replicas", "value": 5},
        {"op": "remove", "path": "/spec/paused"},
        {"op": "test", "path": "/spec/replicas", "value": 1},
    ]

    with pytest.raises(PatchError):
        apply_json_patch(doc, ops)

    assert doc == {"spec": {"replicas": 1, "paused": False}}


def test_result_shares_nothing_with_inputs() -> None:
    doc = {"a": {"b": [1]}}
    ops: list[dict[str, Any]] = [
        {"op": "add", "path": "/c", "value": {"d": [2]}},
        {"op": "copy", "from": "/a", "path": "/e"},
    ]

    result = apply_json_patch(doc, ops)
    result["a"]["b"].append(0)
    result["c"]["d"].append(0)
    result["e"]["b"].append(0)

    assert doc == {"a": {"b": [1]}}
    assert ops[0]["value"] == {"d": [2]}


@pytest.mark.parametrize(
    ("left", "right", "equal"),
    [
        (1, 1.0, True),
        (True, 1, False),
        (False, 0, False),
        (None, None, True),
        ({"a": [1, "x"]}, {"a": [1.0, "x"]}, True),
        ({"a": 1}, {"a": 1, "b": None}, False),
        ([1, 2], [2, 1], False),
        ("1", 1, False),
    ],
)
def test_json_equal(left: Any, right: Any, equal: bool) -> None:
    assert json_equal(left, right) is equal
