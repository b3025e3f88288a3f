"""Resource quantities as upstream (``k8s.io/apimachinery/pkg/api/resource.Quantity``).

``Quantity.parse("1.5Gi")`` is exact (never a float): ``500m`` is half a CPU, ``1Gi`` is 2^30 bytes,
``1e3`` is a thousand. ``str()`` is what upstream serializes: the input itself when it is already
canonical, else the canonical form (``1000m`` -> ``1``, ``1024Mi`` -> ``1Gi``, ``0.5`` -> ``500m``).

Beyond upstream, where upstream would print a wrong number (a decimal exponent above ``E`` or a
binary one above ``Ei``, reachable only through huge values), the mantissa absorbs the excess.
"""

from __future__ import annotations

from decimal import Decimal
from functools import total_ordering

from minikube_py.api._quantity_parse import (
    BINARY_SUFFIXES,
    DECIMAL_SUFFIXES,
    Format,
    QuantityError,
    int_to_digits,
    parse,
    round_to_nanos,
)

__all__ = ["Format", "Quantity", "QuantityError", "parse_quantity"]

_INT64_MAX = 2**63 - 1
_MAX_ALIGN_DIGITS = 4096  # adding 1e5000 to 1 exactly would need a 5000-digit number: refused
_DECIMAL_BY_EXPONENT = {e: s for s, e in DECIMAL_SUFFIXES.items()}
_BINARY_BY_EXPONENT = {e // 10: s for s, e in BINARY_SUFFIXES.items()}


def _normalize(unscaled: int, scale: int) -> tuple[int, int]:
    if unscaled == 0:
        return 0, 0
    if unscaled % 10:
        return unscaled, scale
    digits = int_to_digits(abs(unscaled))
    zeros = len(digits) - len(digits.rstrip("0"))
    return unscaled // _pow10(zeros), scale + zeros


def _ndigits(number: int) -> int:
    return len(int_to_digits(abs(number)))


def _pow10(exponent: int) -> int:
    """``10**exponent`` for ``exponent >= 0``, typed as the int it is."""
    result: int = 10**exponent
    return result


def _sign(number: int) -> int:
    return (number > 0) - (number < 0)


@total_ordering
class Quantity:
    """An exact fixed-point number with a display ``format``; compares and hashes by value."""

    __slots__ = ("_scale", "_text", "_unscaled", "format")

    def __init__(
        self, unscaled: int = 0, scale: int = 0, fmt: Format = Format.DECIMAL_SI, text: str = ""
    ) -> None:
        """``unscaled * 10**scale`` (magnitude rounded up to whole nanos) shown in ``fmt``.

        ``text`` is a pre-computed ``str()``, or "".
        """
        self._unscaled, self._scale = _normalize(*round_to_nanos(unscaled, scale))
        self.format = fmt
        self._text = text

    @classmethod
    def parse(cls, text: str) -> Quantity:
        """Upstream's ``ParseQuantity``; raises ``QuantityError`` with upstream's message."""
        parsed = parse(text)
        return cls(parsed.unscaled, parsed.scale, parsed.format, parsed.text)

    @classmethod
    def from_int(cls, value: int, fmt: Format = Format.DECIMAL_SI) -> Quantity:
        """Upstream's ``NewQuantity``."""
        return cls(value, 0, fmt)

    @classmethod
    def from_milli(cls, value: int, fmt: Format = Format.DECIMAL_SI) -> Quantity:
        """Upstream's ``NewMilliQuantity``: ``value`` thousandths."""
        return cls(value, -3, fmt)

    def sign(self) -> int:
        """-1, 0 or 1."""
        return _sign(self._unscaled)

    def is_zero(self) -> bool:
        return self._unscaled == 0

    def as_decimal(self) -> Decimal:
        """The exact value."""
        return Decimal(f"{int_to_digits(self._unscaled)}E{self._scale}")

    def scaled_value(self, scale: int) -> int:
        """``value / 10**scale`` rounded away from zero; beyond int64 it saturates (upstream overflows)."""
        shift = self._scale - scale
        if shift >= 0:
            if self._unscaled and _ndigits(self._unscaled) + shift > 19:
                return _INT64_MAX if self._unscaled > 0 else -_INT64_MAX - 1
            return max(min(self._unscaled * _pow10(shift), _INT64_MAX), -_INT64_MAX - 1)
        whole, rest = divmod(abs(self._unscaled), _pow10(-shift))
        return self.sign() * (whole + (1 if rest else 0))

    def value(self) -> int:
        """The value rounded up (away from zero) to an integer: ``Quantity.parse("1500m").value() == 2``."""
        return self.scaled_value(0)

    def milli_value(self) -> int:
        """Thousandths, rounded up (away from zero): ``Quantity.parse("0.1m").milli_value() == 1``."""
        return self.scaled_value(-3)

    def _aligned(self, other: Quantity) -> tuple[int, int, int]:
        scale = min(self._scale, other._scale)
        if max(self._scale, other._scale) - scale > _MAX_ALIGN_DIGITS:
            raise QuantityError("quantities too far apart in magnitude to combine exactly")
        return (
            self._unscaled * _pow10(self._scale - scale),
            other._unscaled * _pow10(other._scale - scale),
            scale,
        )

    def __add__(self, other: Quantity) -> Quantity:
        """The sum, in this format (or in ``other``'s when this one is zero, as upstream's ``Add``)."""
        if not isinstance(other, Quantity):
            return NotImplemented
        mine, theirs, scale = self._aligned(other)
        return Quantity(mine + theirs, scale, other.format if self.is_zero() else self.format)

    def __sub__(self, other: Quantity) -> Quantity:
        """The difference, with upstream's ``Sub`` format rule (like ``+``)."""
        if not isinstance(other, Quantity):
            return NotImplemented
        return self + (-other)

    def __neg__(self) -> Quantity:
        return Quantity(-self._unscaled, self._scale, self.format)

    def _compare(self, other: Quantity) -> int:
        if self.sign() != other.sign() or self.is_zero():
            return _sign(self.sign() - other.sign())
        mine, theirs = _ndigits(self._unscaled) + self._scale, _ndigits(other._unscaled) + other._scale
        if mine != theirs:  # different orders of magnitude, same sign
            return self.sign() * _sign(mine - theirs)
        a, b, _ = self._aligned(other)
        return _sign(a - b)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Quantity):
            return NotImplemented
        return (self._unscaled, self._scale) == (other._unscaled, other._scale)

    def __lt__(self, other: Quantity) -> bool:
        if not isinstance(other, Quantity):
            return NotImplemented
        return self._compare(other) < 0

    def __hash__(self) -> int:
        return hash((self._unscaled, self._scale))

    def __str__(self) -> str:
        return self._text or self.canonical()

    def __repr__(self) -> str:
        return f"Quantity({str(self)!r}, {self.format.value})"

    def canonical(self) -> str:
        """Upstream's canonical form: largest suffix, no fraction digits, no precision lost."""
        if self.is_zero():
            return "0"
        if self.format is Format.BINARY_SI:
            binary = self._binary()
            if binary is not None:
                return binary
        return self._decimal(
            Format.DECIMAL_EXPONENT if self.format is Format.DECIMAL_EXPONENT else Format.DECIMAL_SI
        )

    def _binary(self) -> str | None:
        """``<n>Ki``..``<n>Ei`` for whole values of at least 1024 in magnitude; else ``None``."""
        if self._scale < 0 or self._scale > _MAX_ALIGN_DIGITS:
            return None
        number = self._unscaled * _pow10(self._scale)
        if abs(number) < 1024:
            return None
        power = 0
        while number % 1024 == 0 and power < max(_BINARY_BY_EXPONENT):
            number //= 1024
            power += 1
        return int_to_digits(number) + _BINARY_BY_EXPONENT.get(power, "")

    def _decimal(self, fmt: Format) -> str:
        """The mantissa times a power of 1000 (``k``, ``M``... or ``e<n>``)."""
        mantissa, exponent = self._unscaled, self._scale
        mantissa, exponent = mantissa * _pow10(exponent % 3), exponent - exponent % 3
        if fmt is Format.DECIMAL_EXPONENT:
            return int_to_digits(mantissa) + (f"e{exponent}" if exponent else "")
        top = max(_DECIMAL_BY_EXPONENT)
        if exponent > top:
            mantissa, exponent = mantissa * _pow10(exponent - top), top
        return int_to_digits(mantissa) + _DECIMAL_BY_EXPONENT[exponent]


def parse_quantity(text: str) -> Quantity:
    """Upstream's ``ParseQuantity`` / ``MustParse`` without the panic."""
    return Quantity.parse(text)
