"""The encoded-object memo and list assembly."""

from __future__ import annotations

import json

from apiserver.endpoints.encoding import EncodedObjects, list_body


def test_memo_reuses_bytes_per_object_and_respects_its_budget() -> None:
    memo = EncodedObjects(budget=100)
    a = {"metadata": {"name": "a"}, "data": {"k": "v"}}
    first = memo.encode(a)
    assert memo.encode(a) is first  # same object: same bytes, not re-encoded
    b = {"metadata": {"name": "a"}, "data": {"k": "v"}}
    assert memo.encode(b) == first and memo.encode(b) is not first  # equal but distinct object
    for i in range(20):  # push a and b out of the 100-byte budget
        memo.encode({"n": i, "pad": "x" * 10})
    assert memo.encode(a) is not first


def test_list_body_is_the_same_json_as_encoding_the_whole_list() -> None:
    items = [{"metadata": {"name": f"cm-{i}"}, "data": {"i": str(i)}} for i in range(3)]
    meta = {"resourceVersion": "7", "continue": "abc"}
    body = list_body(
        "ConfigMapList", "v1", meta, [json.dumps(o, separators=(",", ":")).encode() for o in items]
    )
    assert json.loads(body) == {"kind": "ConfigMapList", "apiVersion": "v1", "metadata": meta, "items": items}
    assert json.loads(list_body("ConfigMapList", "v1", {}, []))["items"] == []
