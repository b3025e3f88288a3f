"""The one error every patch format raises, and upstream-style rendering for its messages."""

from __future__ import annotations

from typing import Any

_REASONS = {400: "BadRequest", 422: "Invalid"}


class PatchError(ValueError):
    """A patch that cannot be applied; ``code`` and ``reason`` are the Status to answer with.

    400 ``BadRequest``: the patch document itself is malformed (wrong shape, bad directive).
    422 ``Invalid``: the patch is well formed but does not apply to this object (a failed JSON
    patch ``test``, a path that does not exist, a list of lists). The caller builds the Status;
    the message is meant to be shown to the user as is.
    """

    def __init__(self, message: str, *, code: int = 400) -> None:
        if code not in _REASONS:
            raise ValueError(f"PatchError code must be 400 or 422, not {code}")
        super().__init__(message)
        self.message = message
        self.code = code
        self.reason = _REASONS[code]


def go_format(value: Any) -> str:
    """Render a JSON value the way Go's ``%v`` prints it, so messages read like upstream's."""
    if isinstance(value, dict):
        return "map[" + " ".join(f"{k}:{go_format(v)}" for k, v in sorted(value.items())) + "]"
    if isinstance(value, list):
        return "[" + " ".join(go_format(v) for v in value) + "]"
    if value is None:
        return "<nil>"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e21:
        return str(int(value))
    return str(value)


def json_kind(value: Any) -> str:
    """The JSON type name of a decoded value, as Go's decoder names it in errors."""
    if isinstance(value, dict):
        return "object"
    if isinstance(value, list):
        return "array"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    return "null"
