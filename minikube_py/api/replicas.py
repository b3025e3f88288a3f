"""Reading ``spec.replicas`` defensively: a count a controller may act on.

The apiserver refuses replicas that do not decode into upstream's ``int32``, but a controller
can still read one stored before that check, or written straight to the store (``1e308``,
``"3"``, ``2.5``). Acting on it would mean creating pods without bound, so controllers ask
``spec_replicas`` and skip (with a Warning event) an object whose count is not sane.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

MAX_INT32 = 2**31 - 1


def spec_replicas(obj: Mapping[str, Any], default: int = 1) -> int | None:
    """``spec.replicas`` (``default`` when unset), or None when it is not an integer in
    [0, 2^31-1]."""
    spec = obj.get("spec")
    value = spec.get("replicas") if isinstance(spec, Mapping) else None
    if value is None:
        return default
    if type(value) is not int or not 0 <= value <= MAX_INT32:
        return None
    return value


def invalid_replicas_message(obj: Mapping[str, Any]) -> str:
    """The Warning event's text for an object ``spec_replicas`` refuses."""
    value = (obj.get("spec") or {}).get("replicas")
    return f"spec.replicas {value!r} is not an int32 of at least 0: not acting on this object"
