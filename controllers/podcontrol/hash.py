"""``compute_hash``: the pod-template-hash label value (upstream's ``controller.ComputeHash``).

FNV-1a 32-bit over a stable JSON encoding of the template (sorted keys, no spaces), then the
collision count as 4 little-endian bytes when set, rendered as the decimal digits of the sum
mapped through upstream's ``SafeEncodeString`` alphabet. Upstream hashes Go's printed struct,
so the *value* differs from a real cluster's for the same template; its shape (length,
alphabet) and its role (stable per template, changed by ``collisionCount``) are the same.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

SAFE_ALPHABET = "bcdfghjklmnpqrstvwxz2456789"
_FNV_OFFSET = 0x811C9DC5
_FNV_PRIME = 0x01000193


def fnv1a_32(data: bytes, value: int = _FNV_OFFSET) -> int:
    for byte in data:
        value = ((value ^ byte) * _FNV_PRIME) & 0xFFFFFFFF
    return value


def safe_encode_string(text: str) -> str:
    return "".join(SAFE_ALPHABET[ord(ch) % len(SAFE_ALPHABET)] for ch in text)


def compute_hash(template: Mapping[str, Any], collision_count: int | None) -> str:
    encoded = json.dumps(template, sort_keys=True, separators=(",", ":")).encode()
    value = fnv1a_32(encoded)
    if collision_count is not None:
        value = fnv1a_32((collision_count & 0xFFFFFFFF).to_bytes(4, "little"), value)
    return safe_encode_string(str(value))
