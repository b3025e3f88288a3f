"""JSON Merge Patch (RFC 7386, ``application/merge-patch+json``), applied to a copy.

An object patch merges member by member: ``null`` deletes the member, an object recurses and
anything else (arrays included) replaces the member whole. A patch that is not an object
replaces the whole target. This is what ``kubectl label``/``annotate`` and ``kubectl patch
--type merge`` send, and what kubectl uses for kinds without strategic merge patch.

The function is the pure RFC algorithm and never fails. Upstream's HTTP-level rules (a
``null`` body is 400 "Invalid JSON Patch"; a non-object result fails to decode into the
object) belong to the caller.
"""

from __future__ import annotations

import copy
from typing import Any


def apply_merge_patch(doc: Any, patch: Any) -> Any:
    """Return ``doc`` with the RFC 7386 ``patch`` applied; neither argument is mutated."""
    return _merge(copy.deepcopy(doc), patch)


def _merge(target: Any, patch: Any) -> Any:
    """Merge ``patch`` into ``target``, which the caller owns and which may be reused."""
    if not isinstance(patch, dict):
        return copy.deepcopy(patch)
    if not isinstance(target, dict):
        target = {}
    for key, value in patch.items():
        if value is None:
            target.pop(key, None)
        else:
            target[key] = _merge(target.get(key), value)
    return target
