"""Reading a quantity string the way upstream's ``ParseQuantity`` does (quirks included).

The result is exact: ``unscaled * 10**scale`` with magnitudes rounded up to whole nanos, binary
quantities capped at 2^63-1, and the input itself kept when upstream would keep it for ``String()``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal
from enum import StrEnum

SPLIT_RE = "^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$"
MAX_BINARY = 2**63 - 1
_DIGITS = frozenset("0123456789")
_SUFFIX_CHARS = frozenset("eEinumkKMGTP")
_SIGNED_INT = re.compile(r"[+-]?[0-9]+")


class QuantityError(ValueError):
    """A string that is not a quantity; the message is upstream's."""


class Format(StrEnum):
    """How a quantity prints: ``12e6``, ``12Mi`` (powers of 1024) or ``12M`` (powers of 1000)."""

    DECIMAL_EXPONENT = "DecimalExponent"
    BINARY_SI = "BinarySI"
    DECIMAL_SI = "DecimalSI"


DECIMAL_SUFFIXES = {"n": -9, "u": -6, "m": -3, "": 0, "k": 3, "M": 6, "G": 9, "T": 12, "P": 15, "E": 18}
BINARY_SUFFIXES = {"Ki": 10, "Mi": 20, "Gi": 30, "Ti": 40, "Pi": 50, "Ei": 60}
FORMAT_WRONG = f"quantities must match the regular expression '{SPLIT_RE}'"
NUMERIC = "unable to parse numeric part of quantity"
SUFFIX = "unable to parse quantity's suffix"


def digits_to_int(digits: str) -> int:
    """``int(digits)`` without Python's 4300-digit guard (upstream reads any length)."""
    return int(Decimal(digits))


def int_to_digits(number: int) -> str:
    """``str(number)`` without Python's 4300-digit guard."""
    return str(Decimal(number))


@dataclass(frozen=True, slots=True)
class Parsed:
    """A parsed quantity: its exact value, its format, and the text ``String()`` reuses (or "")."""

    unscaled: int
    scale: int
    format: Format
    text: str = ""


@dataclass(frozen=True, slots=True)
class _Parts:
    positive: bool
    value: str  # the numeric text as written (sign, leading zeros, point and all)
    num: str  # integer digits without leading zeros ("0" when none)
    denom: str  # fraction digits
    suffix: str


def _skip(text: str, pos: int, chars: frozenset[str]) -> int:
    while pos < len(text) and text[pos] in chars:
        pos += 1
    return pos


def _scan(text: str) -> _Parts:
    """Split ``[sign]digits[.digits]suffix`` as upstream's scanner does; no value check yet."""
    positive, pos = text[:1] != "-", 1 if text[:1] in ("+", "-") else 0
    pos = _skip(text, pos, frozenset("0"))
    if pos >= len(text):
        return _Parts(positive, "0", "0", "", "")
    start, pos = pos, _skip(text, pos, _DIGITS)
    num = text[start:pos] or "0"
    denom = ""
    if pos < len(text) and text[pos] == ".":
        start, pos = pos + 1, _skip(text, pos + 1, _DIGITS)
        denom = text[start:pos]
    value, suffix_start = text[:pos], pos
    pos = _skip(text, pos, _SUFFIX_CHARS)
    if pos < len(text) and text[pos] in "+-":
        pos += 1
    if _skip(text, pos, _DIGITS) < len(text):
        raise QuantityError(FORMAT_WRONG)
    return _Parts(positive, value, num, denom, text[suffix_start:])


def _interpret(suffix: str) -> tuple[int, int, Format]:
    """``(base, exponent, format)`` of a suffix: ``Mi`` is (2, 20), ``k`` (10, 3), ``e-3`` (10, -3)."""
    if suffix in DECIMAL_SUFFIXES:
        return 10, DECIMAL_SUFFIXES[suffix], Format.DECIMAL_SI
    if suffix in BINARY_SUFFIXES:
        return 2, BINARY_SUFFIXES[suffix], Format.BINARY_SI
    if len(suffix) > 1 and suffix[0] in "eE" and _SIGNED_INT.fullmatch(suffix[1:]):
        exponent = int(suffix[1:])
        if -(2**63) <= exponent < 2**63:
            return 10, (exponent + 2**31) % 2**32 - 2**31, Format.DECIMAL_EXPONENT  # Go's int32()
    raise QuantityError(SUFFIX)


def _fast_text(text: str, parts: _Parts, exponent: int, fmt: Format) -> str | None:
    """``None`` off upstream's int64 fast path; else the text ``String()`` reuses ("" for none)."""
    digits = parts.num + parts.denom
    if fmt is Format.BINARY_SI:
        precision = 15 - len(parts.num) - int(exponent * 3 / 10) - 1
        if parts.denom or precision < 0 or int(digits) << exponent > MAX_BINARY:
            return None  # (precision >= 0 keeps digits short enough for int())
        return text if int(digits) & 7 else ""
    scale = exponent - len(parts.denom)
    if 18 - len(digits) < 0 or scale < -9:
        return None
    canonical = scale % 3 == 0 and not digits.endswith("000") and digits[0] != "0"
    return text if canonical else ""


def round_to_nanos(unscaled: int, scale: int) -> tuple[int, int]:
    """Round the magnitude up to a whole number of nanos (upstream: "if you want some, get some")."""
    if scale >= -9 or unscaled == 0:
        return unscaled, scale
    sign, shift = (1 if unscaled > 0 else -1), -9 - scale
    if len(int_to_digits(abs(unscaled))) <= shift:  # below one nano: exactly one nano
        return sign, -9
    whole, rest = divmod(abs(unscaled), 10**shift)
    return sign * (whole + (1 if rest else 0)), -9


def _exact(parts: _Parts, base: int, exponent: int) -> tuple[int, int]:
    digits = digits_to_int(parts.num + parts.denom) * (1 if parts.positive else -1)
    if base == 2:
        return digits << exponent, -len(parts.denom)
    return digits, exponent - len(parts.denom)


def _binary_limits(unscaled: int, scale: int, fmt: Format) -> tuple[int, int, Format]:
    """Cap binary magnitudes at 2^63-1; a binary fraction below one prints as decimal."""
    if fmt is not Format.BINARY_SI or unscaled == 0:
        return unscaled, scale, fmt
    sign, magnitude, unit = (1 if unscaled > 0 else -1), abs(unscaled), 10 ** max(-scale, 0)
    if magnitude > MAX_BINARY * unit:
        return sign * MAX_BINARY, 0, fmt
    if magnitude < unit:
        return unscaled, scale, Format.DECIMAL_SI
    return unscaled, scale, fmt


def parse(text: str) -> Parsed:
    """Upstream's ``ParseQuantity``; raises ``QuantityError`` with upstream's message."""
    if not text:
        raise QuantityError(FORMAT_WRONG)
    if text == "0":
        return Parsed(0, 0, Format.DECIMAL_SI, "0")
    parts = _scan(text)
    base, exponent, fmt = _interpret(parts.suffix)
    reused = _fast_text(text, parts, exponent, fmt)
    if reused is None and not any(ch in _DIGITS for ch in parts.value):
        raise QuantityError(NUMERIC)  # upstream's decimal fallback cannot read "." or ""
    unscaled, scale = round_to_nanos(*_exact(parts, base, exponent))
    unscaled, scale, fmt = _binary_limits(unscaled, scale, fmt)
    return Parsed(unscaled, scale, fmt, reused or "")
