"""Response encoding: JSON via ``minikube_py.jsonutil`` (orjson with a ``json`` fallback), and a
memo of encoded objects.

Every JSON document ends with a newline, as upstream's serializer (Go's ``json.Encoder``) writes
it: objects, lists, Status errors, Tables, discovery (one official e2e test compares bodies
exactly), and ``<``, ``>``, ``&``, U+2028/U+2029 are escaped as Go's encoder escapes them
(``jsonutil.go_escape``). Memoized objects are escaped too, without the newline: they are list
items and watch events' objects.

Objects served from the watch cache are shared and never mutated (a change replaces the
object), so the bytes of one object can be computed once and reused by every LIST and every
watcher (upstream's ``cachingObject`` does the same). The memo is keyed by identity and holds
the object, so an id cannot be reused while its entry lives; it is evicted oldest-first once
its encoded bytes exceed a budget (so one-off objects cost memory only for a while).
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

from starlette.responses import Response

from minikube_py.jsonutil import dumps, dumps_document, go_escape

MEMO_BYTES = 32 * 1024 * 1024


class JSONResponse(Response):
    media_type = "application/json"

    def render(self, content: Any) -> bytes:
        return dumps_document(content)


class EncodedObjects:
    """``encode(obj)`` -> JSON bytes, memoized per object identity.

    ``encode(obj, api_version, kind)`` encodes ``obj`` with its ``apiVersion`` and ``kind`` set
    (stored objects may lack them), memoized per identity of the stored object too, so serving
    a cached object with its type costs no copy nor re-encoding."""

    def __init__(self, budget: int = MEMO_BYTES) -> None:
        self._budget = budget
        self._bytes = 0
        self._memo: OrderedDict[tuple[int, str, str], tuple[dict[str, Any], bytes]] = OrderedDict()

    def encode(self, obj: dict[str, Any], api_version: str = "", kind: str = "") -> bytes:
        key = (id(obj), api_version, kind)
        hit = self._memo.get(key)
        if hit is not None and hit[0] is obj:
            return hit[1]
        typed = with_type(obj, api_version, kind) if kind else obj
        data = go_escape(dumps(typed))  # list items and watch events carry these bytes as they are
        if hit is not None:
            self._bytes -= len(self._memo.pop(key)[1])
        self._memo[key] = (obj, data)
        self._bytes += len(data)
        while self._bytes > self._budget:
            self._bytes -= len(self._memo.popitem(last=False)[1][1])
        return data


ENCODED = EncodedObjects()


def with_type(obj: dict[str, Any], api_version: str, kind: str) -> dict[str, Any]:
    """``obj`` with ``kind`` and ``apiVersion`` set and first, in that order, as upstream's
    structs serialize (``TypeMeta`` leads); ``obj`` itself when it already is so."""
    keys = iter(obj)
    leading = next(keys, None) == "kind" and next(keys, None) == "apiVersion"
    if leading and obj["kind"] == kind and obj["apiVersion"] == api_version:
        return obj
    typed = {"kind": kind, "apiVersion": api_version, **obj}
    typed["kind"], typed["apiVersion"] = kind, api_version
    return typed


def list_body(kind: str, api_version: str, meta: dict[str, Any], items: list[bytes]) -> bytes:
    """A ``...List`` document from already-encoded items (``items`` is its last field), ending
    with a newline like every document."""
    head = dumps({"kind": kind, "apiVersion": api_version, "metadata": meta, "items": []})
    assert head.endswith(b"[]}")
    if not items:
        return head + b"\n"
    # one join, no copy of the whole body: the head and tail ride on the first and last items
    parts = list(items)
    parts[0] = head[:-2] + parts[0]
    parts[-1] = parts[-1] + b"]}\n"
    return b",".join(parts)
