"""apply_merge_patch: the RFC 7386 appendix A examples, plus copy semantics."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from apiserver.patch.mergepatch import apply_merge_patch

RFC7386_APPENDIX_A = [
    ({"a": "b"}, {"a": "c"}, {"a": "c"}),
    ({"a": "b"}, {"b": "c"}, {"a": "b", "b": "c"}),
    ({"a": "b"}, {"a": None}, {}),
    ({"a": "b", "b": "c"}, {"a": None}, {"b": "c"}),
    ({"a": ["b"]}, {"a": "c"}, {"a": "c"}),
    ({"a": "c"}, {"a": ["b"]}, {"a": ["b"]}),
    ({"a": {"b": "c"}}, {"a": {"b": "d", "c": None}}, {"a": {"b": "d"}}),
    ({"a": [{"b": "c"}]}, {"a": [1]}, {"a": [1]}),
    (["a", "b"], ["c", "d"], ["c", "d"]),
    ({"a": "b"}, ["c"], ["c"]),
    ({"a": "foo"}, None, None),
    ({"a": "foo"}, "bar", "bar"),
    ({"e": None}, {"a": 1}, {"e": None, "a": 1}),
    ([1, 2], {"a": "b", "c": None}, {"a": "b"}),
    ({}, {"a": {"bb": {"ccc": None}}}, {"a": {"bb": {}}}),
]


@pytest.mark.parametrize(("doc", "patch", "expected"), RFC7386_APPENDIX_A)
def test_rfc7386_appendix_a(doc: Any, patch: Any, expected: Any) -> None:
    doc_before, patch_before = copy.deepcopy(doc), copy.deepcopy(patch)

    assert apply_merge_patch(doc, patch) == expected
    assert doc == doc_before
    assert patch == patch_before


@pytest.mark.parametrize(
    ("doc", "patch", "expected"),
    [
        pytest.param(
            {"metadata": {"labels": {"app": "web", "tier": "fe"}}},
            {"metadata": {"labels": {"tier": None, "env": "prod"}}},
            {"metadata": {"labels": {"app": "web", "env": "prod"}}},
            id="kubectl-label-adds-and-removes",
        ),
        pytest.param(
            {"spec": {"containers": [{"name": "a", "ports": [{"containerPort": 80}]}]}},
            {"spec": {"containers": [{"name": "a", "image": "x"}]}},
            {"spec": {"containers": [{"name": "a", "image": "x"}]}},
            id="lists-are-replaced-whole",
        ),
        pytest.param(
            {"a": 1},
            {"b": [{"c": None}]},
            {"a": 1, "b": [{"c": None}]},
            id="nulls-inside-arrays-are-kept",
        ),
    ],
)
def test_merge_patch_on_objects(doc: Any, patch: Any, expected: Any) -> None:
    assert apply_merge_patch(doc, patch) == expected


def test_result_shares_nothing_with_inputs() -> None:
    doc = {"keep": {"deep": [1]}, "other": 1}
    patch = {"new": {"deep": [2]}}

    result = apply_merge_patch(doc, patch)
    result["keep"]["deep"].append(9)
    result["new"]["deep"].append(9)

    assert doc == {"keep": {"deep": [1]}, "other": 1}
    assert patch == {"new": {"deep": [2]}}
