"""Field-level validation errors rendered exactly like ``k8s.io/apimachinery/pkg/util/validation/field``.

Upstream prints ``<path>: <type>: <value>: <detail>`` (``metadata.name: Invalid value: "Foo": ...``),
quoting string values with Go's ``%q`` and other values as JSON. Several errors aggregate into
``[a, b]`` with duplicates removed.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

# reason (the machine-readable ``FieldValue*`` type) -> the human text upstream prints
_TYPE_TEXT = {
    "FieldValueNotFound": "Not found",
    "FieldValueRequired": "Required value",
    "FieldValueDuplicate": "Duplicate value",
    "FieldValueInvalid": "Invalid value",
    "FieldValueNotSupported": "Unsupported value",
    "FieldValueForbidden": "Forbidden",
    "FieldValueTooLong": "Too long",
    "FieldValueTooMany": "Too many",
}
# these types never print the offending value
_VALUELESS = frozenset({"FieldValueRequired", "FieldValueForbidden", "FieldValueTooLong"})
# a bad value never printed (upstream's ``field.OmitValueType{}``)
OMIT_VALUE: Any = type("OmitValue", (), {"__repr__": lambda self: "OMIT_VALUE"})()
_GO_ESCAPES = {"\a": r"\a", "\b": r"\b", "\f": r"\f", "\n": r"\n", "\r": r"\r", "\t": r"\t", "\v": r"\v"}
_JSON_HTML = {"<": r"\u003c", ">": r"\u003e", "&": r"\u0026", "\u2028": r"\u2028", "\u2029": r"\u2029"}


def go_quote(text: str) -> str:
    """Go's ``strconv.Quote`` (what ``%q`` prints) for a string."""
    out = ['"']
    for ch in text:
        if ch in ('"', "\\"):
            out.append("\\" + ch)
        elif ch in _GO_ESCAPES:
            out.append(_GO_ESCAPES[ch])
        elif ch.isprintable():
            out.append(ch)
        elif ord(ch) < 0x80:
            out.append(f"\\x{ord(ch):02x}")
        elif ord(ch) < 0x10000:
            out.append(f"\\u{ord(ch):04x}")
        else:
            out.append(f"\\U{ord(ch):08x}")
    out.append('"')
    return "".join(out)


def go_quote_slice(values: Iterable[str]) -> str:
    """Go's ``%q`` of a ``[]string``: ``["a" "b"]``."""
    return "[" + " ".join(go_quote(v) for v in values) + "]"


def go_json(value: Any) -> str:
    """Go's ``encoding/json`` rendering of a simple value (HTML characters escaped)."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    return "".join(_JSON_HTML.get(ch, ch) for ch in text)


@dataclass(frozen=True, slots=True)
class FieldError:
    """One upstream ``field.Error``: ``reason`` is the type (``FieldValueInvalid``, ...)."""

    reason: str
    field: str
    bad_value: Any = ""
    detail: str = ""

    def body(self) -> str:
        """Upstream's ``ErrorBody()``: the message without the field path."""
        text = _TYPE_TEXT.get(self.reason, self.reason)
        if self.reason not in _VALUELESS and self.bad_value is not OMIT_VALUE:
            text += ": " + _render_value(self.bad_value)
        if self.detail:
            text += ": " + self.detail
        return text

    def __str__(self) -> str:
        return f"{self.field}: {self.body()}"


def _render_value(value: Any) -> str:
    if isinstance(value, str):
        return go_quote(value)
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return str(value)
    return go_json(value)


def invalid(field: str, value: Any, detail: str) -> FieldError:
    """``field.Invalid``."""
    return FieldError("FieldValueInvalid", field, value, detail)


def required(field: str, detail: str = "") -> FieldError:
    """``field.Required``."""
    return FieldError("FieldValueRequired", field, "", detail)


def forbidden(field: str, detail: str) -> FieldError:
    """``field.Forbidden``."""
    return FieldError("FieldValueForbidden", field, "", detail)


def not_supported(field: str, value: Any, supported: Sequence[str]) -> FieldError:
    """``field.NotSupported``: lists the supported values, each quoted."""
    detail = "supported values: " + ", ".join(go_quote(v) for v in supported) if supported else ""
    return FieldError("FieldValueNotSupported", field, value, detail)


def too_long(field: str, max_bytes: int) -> FieldError:
    """``field.TooLong`` (the value itself is never printed)."""
    unit = "byte" if max_bytes == 1 else "bytes"
    return FieldError(
        "FieldValueTooLong", field, "<value omitted>", f"may not be more than {max_bytes} {unit}"
    )


def too_many(field: str, actual: int, maximum: int) -> FieldError:
    """``field.TooMany``."""
    return FieldError("FieldValueTooMany", field, actual, f"must have at most {maximum} items")


def aggregate_message(errors: Iterable[object]) -> str:
    """Upstream's ``ErrorList.ToAggregate().Error()``: one message, or ``[a, b]`` without duplicates."""
    messages = list(dict.fromkeys(str(e) for e in errors))
    if len(messages) == 1:
        return messages[0]
    return "[" + ", ".join(messages) + "]"
