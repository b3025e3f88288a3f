"""Request and response bodies as audit events log them: decoded once, after the handler has
read them (only when the level needs them), without managedFields when the policy says so."""

from __future__ import annotations

from typing import Any

import yaml

from minikube_py import jsonutil
from minikube_py.api.protobuf.decode import decode_object as decode_protobuf

PROTOBUF = "application/vnd.kubernetes.protobuf"


def media_type(content_type: str) -> str:
    return content_type.split(";")[0].strip().lower()


def decode_body(raw: bytes, content_type: str) -> Any:
    """The object a request or response body carries (JSON, the YAML of apply patches,
    kubectl's protobuf), or None when it cannot be decoded (the handler reports that)."""
    if not raw:
        return None
    kind = media_type(content_type)
    try:
        if kind == PROTOBUF:
            return decode_protobuf(raw)
        if kind.endswith("yaml"):
            return yaml.safe_load(raw)
        return jsonutil.loads(raw)
    except Exception:  # any malformed body: the handler answers 400, the event has no body
        return None


def without_managed_fields(obj: Any) -> Any:
    """``obj`` without ``metadata.managedFields`` (also in list items and Table rows); copies
    only what it changes."""
    if not isinstance(obj, dict):
        return obj
    out = obj
    meta = obj.get("metadata")
    if isinstance(meta, dict) and "managedFields" in meta:
        out = {**obj, "metadata": {k: v for k, v in meta.items() if k != "managedFields"}}
    for key, inner in (("items", None), ("rows", "object")):
        entries = obj.get(key)
        if isinstance(entries, list):
            if inner is None:
                stripped = [without_managed_fields(item) for item in entries]
            else:
                stripped = [_strip_row(row, inner) for row in entries]
            out = {**out, key: stripped}
    return out


def _strip_row(row: Any, key: str) -> Any:
    if isinstance(row, dict) and isinstance(row.get(key), dict):
        return {**row, key: without_managed_fields(row[key])}
    return row
