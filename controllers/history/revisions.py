"""What a ControllerRevision is, without the API: its name, its hash label, its order and when
two are the same (upstream's ``pkg/controller/history`` free functions).

A revision is a plain ``ControllerRevision`` object (a dict as the API serves it). Its ``data``
is the snapshot a controller wants to be able to roll back to (a StatefulSet's or DaemonSet's
template patch); its ``revision`` the ordinal of that snapshot among the parent's revisions.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import orjson

from controllers.podcontrol.ownerrefs import new_controller_ref
from minikube_py import jsonutil
from minikube_py.api.timestamps import parse_rfc3339
from minikube_py.api.unstructured import Object

#: the label carrying a revision's hash (upstream's ``ControllerRevisionHashLabel``)
CONTROLLER_REVISION_HASH_LABEL = "controller.kubernetes.io/hash"
#: a revision's name is ``<prefix>-<hash>``; the prefix is cut so that the name fits 253 characters
MAX_PREFIX = 223
SAFE_ALPHABET = "bcdfghjklmnpqrstvwxz2456789"
_FNV_OFFSET = 0x811C9DC5
_FNV_PRIME = 0x01000193


def controller_revision_name(prefix: str, hash_: str) -> str:
    """``<prefix>-<hash>``, the prefix cut to 223 characters."""
    return f"{prefix[:MAX_PREFIX]}-{hash_}"


def _fnv1_32(data: bytes, value: int = _FNV_OFFSET) -> int:
    """FNV-1 (not 1a: upstream hashes revisions with ``fnv.New32``)."""
    for byte in data:
        value = ((value * _FNV_PRIME) & 0xFFFFFFFF) ^ byte
    return value


def encode_data(data: Any) -> bytes:
    """``data`` as Go's ``json.Marshal`` writes a map: compact, keys sorted, HTML characters
    escaped; the bytes upstream's ``Data.Raw`` holds and hashes."""
    return jsonutil.go_escape(orjson.dumps(data, option=orjson.OPT_SORT_KEYS))


def hash_controller_revision(revision: Mapping[str, Any], probe: int | None) -> str:
    """``HashControllerRevision``: FNV-1 32 of the data's JSON, then of ``probe`` (the parent's
    ``collisionCount``) in decimal when given, as the safe-encoded decimal digits of the sum.

    For the same data this is the hash a real cluster computes (the data is hashed as the JSON
    the controller sends), so revision names match upstream's."""
    value = _fnv1_32(encode_data(revision.get("data")))
    if probe is not None:
        value = _fnv1_32(str(probe).encode(), value)
    return "".join(SAFE_ALPHABET[ord(ch) % len(SAFE_ALPHABET)] for ch in str(value))


def new_controller_revision(
    parent: Object,
    api_version: str,
    kind: str,
    template_labels: Mapping[str, str] | None,
    data: Any,
    revision: int,
    collision_count: int | None,
) -> Object:
    """``NewControllerRevision``: a revision of ``parent`` (kind ``kind`` in ``api_version``),
    labelled with the template's labels plus its hash, owned by the parent (controller, blocking
    its deletion), named ``<parent name>-<hash>``, in the parent's namespace. Not created: pass
    it to ``History.create_controller_revision``."""
    meta = parent["metadata"]
    owner = new_controller_ref(parent, api_version, kind)
    cr: Object = {
        "apiVersion": "apps/v1",
        "kind": "ControllerRevision",
        "metadata": {"labels": dict(template_labels or {}), "ownerReferences": [owner]},
        "data": data,
        "revision": revision,
    }
    if meta.get("namespace"):
        cr["metadata"]["namespace"] = meta["namespace"]
    hash_ = hash_controller_revision(cr, collision_count)
    cr["metadata"]["name"] = controller_revision_name(meta["name"], hash_)
    cr["metadata"]["labels"][CONTROLLER_REVISION_HASH_LABEL] = hash_
    return cr


def _order(revision: Object) -> tuple[int, float, str]:
    meta = revision["metadata"]
    created = parse_rfc3339(meta.get("creationTimestamp")) or 0.0  # unset: the zero time, first
    return (int(revision.get("revision") or 0), created, str(meta.get("name", "")))


def sort_controller_revisions(revisions: Iterable[Object]) -> list[Object]:
    """By ``revision``, then creation time, then name, oldest first (upstream's ``byRevision``)."""
    return sorted(revisions, key=_order)


def equal_revision(lhs: Object | None, rhs: Object | None) -> bool:
    """``EqualRevision``: both None, or the same data. Hash labels, when both parse as upstream's
    int32 and differ, make them different without comparing data."""
    if lhs is None or rhs is None:
        return lhs is rhs
    lhash, rhash = _parsed_hash(lhs), _parsed_hash(rhs)
    if lhash is not None and rhash is not None and lhash != rhash:
        return False
    return bool(lhs.get("data") == rhs.get("data"))


def _parsed_hash(revision: Object) -> int | None:
    text = ((revision["metadata"].get("labels") or {}).get(CONTROLLER_REVISION_HASH_LABEL)) or ""
    try:
        value = int(text, 10)
    except ValueError:
        return None
    return value & 0xFFFFFFFF if -(2**31) <= value < 2**31 else None


def find_equal_revisions(revisions: Iterable[Object], needle: Object) -> list[Object]:
    """The revisions equal to ``needle`` (``equal_revision``), in the order given."""
    return [revision for revision in revisions if equal_revision(revision, needle)]


def next_revision(revisions: Sequence[Object]) -> int:
    """The number the next revision gets: one more than the highest, 1 when there is none."""
    return max((int(r.get("revision") or 0) for r in revisions), default=0) + 1
