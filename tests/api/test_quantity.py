"""Quantities: upstream's parsing (exact values, formats, rounding), canonical strings and arithmetic."""

from __future__ import annotations

from decimal import Decimal

import pytest

from minikube_py.api.quantity import Format, Quantity, QuantityError, parse_quantity

DSI, BSI, DEX = Format.DECIMAL_SI, Format.BINARY_SI, Format.DECIMAL_EXPONENT
FORMAT_WRONG = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"
SUFFIX = "unable to parse quantity's suffix"
NUMERIC = "unable to parse numeric part of quantity"
KI, MI, GI, TI, PI, EI = (1024**n for n in range(1, 7))

# upstream's TestQuantityParse table: input -> exact value and format
PARSE_TABLE = [
    ("0", "0", DSI),
    ("0n", "0", DSI),
    ("0u", "0", DSI),
    ("0m", "0", DSI),
    ("0Ki", "0", BSI),
    ("0k", "0", DSI),
    ("0Mi", "0", BSI),
    ("0M", "0", DSI),
    ("0Gi", "0", BSI),
    ("0G", "0", DSI),
    ("0Ti", "0", BSI),
    ("0T", "0", DSI),
    ("1", "1", DSI),
    ("1Ki", str(KI), BSI),
    ("8Ki", str(8 * KI), BSI),
    ("7Mi", str(7 * MI), BSI),
    ("6Gi", str(6 * GI), BSI),
    ("5Ti", str(5 * TI), BSI),
    ("4Pi", str(4 * PI), BSI),
    ("3Ei", str(3 * EI), BSI),
    ("10Ti", str(10 * TI), BSI),
    ("100Ti", str(100 * TI), BSI),
    ("5n", "5e-9", DSI),
    ("4u", "4e-6", DSI),
    ("3m", "3e-3", DSI),
    ("9", "9", DSI),
    ("8k", "8e3", DSI),
    ("50k", "5e4", DSI),
    ("7M", "7e6", DSI),
    ("6G", "6e9", DSI),
    ("5T", "5e12", DSI),
    ("40T", "4e13", DSI),
    ("300T", "3e14", DSI),
    ("2P", "2e15", DSI),
    ("1E", "1e18", DSI),
    ("1E-3", "1e-3", DEX),
    ("1e3", "1e3", DEX),
    ("1E6", "1e6", DEX),
    ("1e9", "1e9", DEX),
    ("1E12", "1e12", DEX),
    ("1e15", "1e15", DEX),
    ("1E18", "1e18", DEX),
    ("1e14", "1e14", DEX),
    ("1e13", "1e13", DEX),
    ("100.035k", "100035", DSI),
    ("0.001", "1e-3", DSI),
    ("0.0005k", "5e-1", DSI),
    ("0.005", "5e-3", DSI),
    ("0.05", "5e-2", DSI),
    ("0.5", "5e-1", DSI),
    ("0.00050k", "5e-1", DSI),
    ("0.00500", "5e-3", DSI),
    ("0.05000", "5e-2", DSI),
    ("0.50000", "5e-1", DSI),
    ("0.5e0", "5e-1", DEX),
    ("0.5e-1", "5e-2", DEX),
    ("0.5e-2", "5e-3", DEX),
    ("10.035M", "10035e3", DSI),
    ("1.2e3", "12e2", DEX),
    ("1.3E+6", "13e5", DEX),
    ("1.40e9", "14e8", DEX),
    ("1.53E12", "153e10", DEX),
    ("1.6e15", "16e14", DEX),
    ("1.7E18", "17e17", DEX),
    ("9.01", "901e-2", DSI),
    ("8.1k", "81e2", DSI),
    ("7.123456M", "7123456", DSI),
    ("6.987654321G", "6987654321", DSI),
    ("5.444T", "5444e9", DSI),
    ("40.1T", "401e11", DSI),
    ("300.2T", "3002e11", DSI),
    ("2.5P", "25e14", DSI),
    ("1.01E", "101e16", DSI),
    # things that saturate or round up
    ("3.001n", "4e-9", DSI),
    ("1.1E-9", "2e-9", DEX),
    ("0.0000000001", "1e-9", DSI),
    ("0.0000000005", "1e-9", DSI),
    ("0.00000000050", "1e-9", DSI),
    ("0.5e-9", "1e-9", DEX),
    ("0.9n", "1e-9", DSI),
    ("0.00000012345", "124e-9", DSI),
    ("0.00000012354", "124e-9", DSI),
    ("9Ei", str(2**63 - 1), BSI),
    ("9223372036854775807Ki", str(2**63 - 1), BSI),
    ("12E", "12e18", DSI),
    # fractional binary
    ("100.035Ki", "10243584e-2", BSI),
    ("0.5Mi", str(MI // 2), BSI),
    ("0.05Gi", "536870912e-1", BSI),
    ("0.025Ti", "274877906944e-1", BSI),
    # things written by trolls
    ("0.000000000001Ki", "2e-9", DSI),  # rounds up, changes format
    (".001", "1e-3", DSI),
    (".0001k", "100e-3", DSI),
    ("1.", "1", DSI),
    ("1.G", "1e9", DSI),
]


@pytest.mark.parametrize(("text", "value", "fmt"), PARSE_TABLE)
def test_parse(text: str, value: str, fmt: Format) -> None:
    q = Quantity.parse(text)
    assert q.as_decimal() == Decimal(value)
    assert q.format is fmt


@pytest.mark.parametrize(("text", "value", "fmt"), PARSE_TABLE)
def test_parse_signed(text: str, value: str, fmt: Format) -> None:
    assert Quantity.parse("-" + text).as_decimal() == -Decimal(value)
    assert Quantity.parse("-" + text).format is fmt
    assert Quantity.parse("+" + text) == Quantity.parse(text)
    assert Quantity.parse("+" + text).format is fmt


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", FORMAT_WRONG),
        ("1.1.M", FORMAT_WRONG),
        ("1+1.0M", FORMAT_WRONG),
        ("0.1am", FORMAT_WRONG),
        ("aoeu", FORMAT_WRONG),
        (" 1", FORMAT_WRONG),  # whitespace is forbidden
        ("1 ", FORMAT_WRONG),
        ("1 Gi", FORMAT_WRONG),
        ("1Gi ", FORMAT_WRONG),
        ("--1", SUFFIX),  # the second sign starts the suffix "-1"
        ("1,000", FORMAT_WRONG),
        ("1e3.5", FORMAT_WRONG),
        ("\u0661", FORMAT_WRONG),  # only ASCII digits (this is ARABIC-INDIC DIGIT ONE)
        ("0.1mi", SUFFIX),
        (".5i", SUFFIX),
        ("1i", SUFFIX),
        ("-3.01i", SUFFIX),
        ("-3.01e-", SUFFIX),
        ("1e", SUFFIX),
        ("1E+", SUFFIX),
        ("1Kii", SUFFIX),
        ("1KM", SUFFIX),
        ("1kB", FORMAT_WRONG),
        ("1K", SUFFIX),
        ("1mm", SUFFIX),
        ("1e99999999999999999999", SUFFIX),  # the exponent must be an int64
        (".e-20", NUMERIC),
        ("e-20", NUMERIC),
    ],
)
def test_parse_errors(text: str, message: str) -> None:
    with pytest.raises(QuantityError) as err:
        Quantity.parse(text)
    assert str(err.value) == message


def test_quantity_error_is_a_value_error() -> None:
    with pytest.raises(ValueError, match="quantities must match"):
        parse_quantity("x")


@pytest.mark.parametrize(
    ("text", "emitted"),
    [
        # upstream's TestQuantityParseEmit
        ("1Ki", "1Ki"),
        ("1Mi", "1Mi"),
        ("1Gi", "1Gi"),
        ("1024Mi", "1Gi"),
        ("1000M", "1G"),
        (".001Ki", "1024m"),
        (".000001Ki", "1024u"),
        (".000000001Ki", "1024n"),
        (".000000000001Ki", "2n"),
        # upstream's TestQuantityString alternates: non-canonical input, canonical output
        ("1024Mi", "1Gi"),
        ("307200Ki", "300Mi"),
        ("1025024Mi", "1001Gi"),
        ("1024Gi", "1Ti"),
        ("5000m", "5"),
        ("0.5", "500m"),
        ("1000M", "1G"),
        ("0.001T", "1G"),
        ("1000u", "1m"),
        ("1.08", "1080m"),
        ("1080000000n", "1080m"),
        (".001e12", "1e9"),
        ("0.001e0", "1e-3"),
        ("1000e-12", "1e-9"),
        ("00", "0"),
        ("1000m", "1"),
        # canonical input is emitted as written (upstream keeps the string it parsed)
        ("1Gi", "1Gi"),
        ("300Mi", "300Mi"),
        ("6Ki", "6Ki"),
        ("1001Gi", "1001Gi"),
        ("1G", "1G"),
        ("1m", "1m"),
        ("80m", "80m"),
        ("1080m", "1080m"),
        ("300M", "300M"),
        ("1T", "1T"),
        ("1234567M", "1234567M"),
        ("3k", "3k"),
        ("1025", "1025"),
        ("0", "0"),
        ("1e9", "1e9"),
        ("1e-3", "1e-3"),
        ("80e-3", "80e-3"),
        ("300e6", "300e6"),
        ("1n", "1n"),
        ("1080n", "1080n"),
        ("1u", "1u"),
        ("100m", "100m"),
        ("250Mi", "250Mi"),
        # ... quirks included: a sign, leading zeros, three decimals, an upper-case E
        ("+1", "+1"),
        ("01", "01"),
        ("1.500", "1.500"),
        ("100.035k", "100.035k"),
        ("1E3", "1E3"),
        ("1.G", "1.G"),
        ("-1Ki", "-1Ki"),
        ("-100m", "-100m"),
        # the rest is canonicalized
        ("1.5", "1500m"),
        ("1.5Gi", "1536Mi"),
        ("0.5Mi", "512Ki"),
        ("1536Mi", "1536Mi"),
        ("8Ki", "8Ki"),
        ("2048Ki", "2Mi"),
        ("100.035Ki", "102435840m"),
        ("1.2e3", "1200"),
        ("1.3E+6", "1300e3"),
        ("0.5e-1", "50e-3"),
        ("12e6", "12e6"),
        ("3.001n", "4n"),
        ("0.1m", "100u"),
        ("9Ei", "9223372036854775807"),
        ("-1.5", "-1500m"),
        ("-0", "0"),
        ("-", "0"),  # upstream reads a bare sign, a bare point or a bare suffix as zero
        (".", "0"),
        ("Ki", "0"),
        ("m", "0"),
        ("1000E", "1000E"),  # upstream would print "1" here: the mantissa absorbs the excess instead
        ("1e999999999", "1e999999999"),
        ("1e-999999999", "1e-9"),
        ("1e2147483648", "1e-9"),  # Go truncates the exponent to int32
    ],
)
def test_string(text: str, emitted: str) -> None:
    assert str(Quantity.parse(text)) == emitted


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        ("+1", "1"),
        ("01", "1"),
        ("1.500", "1500m"),
        ("100.035k", "100035"),
        ("1E3", "1e3"),
        ("1.G", "1G"),
        ("1Gi", "1Gi"),
        ("-100m", "-100m"),
    ],
)
def test_canonical_ignores_the_parsed_text(text: str, canonical: str) -> None:
    assert Quantity.parse(text).canonical() == canonical


@pytest.mark.parametrize(
    ("quantity", "emitted"),
    [
        (Quantity(1024**3, 0, BSI), "1Gi"),
        (Quantity(300 * MI, 0, BSI), "300Mi"),
        (Quantity(5, 0, BSI), "5"),  # below 1024: decimal
        (Quantity(500, -3, BSI), "500m"),
        (Quantity(1025, 0, BSI), "1025"),
        (Quantity(-2048, 0, BSI), "-2Ki"),
        (Quantity(1234567, -3, BSI), "1234567m"),
        (Quantity(1000, 6, DSI), "1G"),
        (Quantity(108, -2, DSI), "1080m"),
        (Quantity(10800, -4, DSI), "1080m"),
        (Quantity(10800, -10, DSI), "1080n"),
        (Quantity(80, -3, DEX), "80e-3"),
        (Quantity(0, 0, DEX), "0"),
        (Quantity(1, -12, DSI), "1n"),  # rounded up to a nano
        (Quantity(2**70, 0, BSI), "1024Ei"),
        (Quantity.from_milli(1, DSI), "1m"),
        (Quantity.from_milli(1000, DSI), "1"),
        (Quantity.from_milli(1234000, DSI), "1234"),
        (Quantity.from_milli(1024, BSI), "1024m"),
        (Quantity.from_milli(1000000, DEX), "1e3"),
        (Quantity.from_int(1000, DSI), "1k"),
        (Quantity.from_int(1024, BSI), "1Ki"),
        (Quantity.from_int(1000000, DEX), "1e6"),
        (Quantity.from_int(1024 * 1024, BSI), "1Mi"),
    ],
)
def test_constructed_string(quantity: Quantity, emitted: str) -> None:
    assert str(quantity) == emitted


@pytest.mark.parametrize(
    ("text", "value", "milli"),
    [
        ("0", 0, 0),
        ("1", 1, 1000),
        ("500m", 1, 500),
        ("1500m", 2, 1500),
        ("2", 2, 2000),
        ("0.1m", 1, 1),  # rounded up
        ("1n", 1, 1),
        ("-1n", -1, -1),  # away from zero
        ("-1.5", -2, -1500),
        ("-1.5m", -1, -2),
        ("1Ki", 1024, 1024000),
        ("1Gi", GI, 1000 * GI),
        ("100M", 100_000_000, 100_000_000_000),
        ("1E", 10**18, 2**63 - 1),  # past int64: saturates
        ("-1e30", -(2**63), -(2**63)),
        ("9.01", 10, 9010),
    ],
)
def test_value_and_milli_value(text: str, value: int, milli: int) -> None:
    q = Quantity.parse(text)
    assert (q.value(), q.milli_value()) == (value, milli)


@pytest.mark.parametrize(
    ("a", "b", "total", "fmt"),
    [
        ("1", "500m", "1500m", DSI),
        ("1Gi", "512Mi", "1536Mi", BSI),
        ("0", "1Ki", "1Ki", BSI),  # a zero takes the other side's format
        ("0Ki", "1k", "1k", DSI),
        ("1Ki", "1k", "2024", BSI),
        ("100m", "-1", "-900m", DSI),
        ("1Ki", "-1Ki", "0", BSI),
        ("1e3", "1", "1001", DEX),
        ("1E", "1E", "2E", DSI),
        ("9Ei", "9Ei", "18446744073709551614", BSI),
    ],
)
def test_add(a: str, b: str, total: str, fmt: Format) -> None:
    result = Quantity.parse(a) + Quantity.parse(b)
    assert (str(result), result.format) == (total, fmt)


@pytest.mark.parametrize(
    ("a", "b", "difference"),
    [
        ("1", "500m", "500m"),
        ("1Gi", "512Mi", "512Mi"),
        ("500m", "1", "-500m"),
        ("0", "1Ki", "-1Ki"),
    ],
)
def test_sub(a: str, b: str, difference: str) -> None:
    assert str(Quantity.parse(a) - Quantity.parse(b)) == difference


def test_arithmetic_leaves_operands_alone() -> None:
    a, b = Quantity.parse("+1"), Quantity.parse("1")
    assert str(a + b) == "2" and str(a) == "+1" and str(-a) == "-1"


def test_adding_wildly_different_magnitudes_is_refused() -> None:
    with pytest.raises(QuantityError, match="too far apart"):
        Quantity.parse("1e5000") + Quantity.parse("1")


@pytest.mark.parametrize(
    ("a", "b", "order"),
    [
        ("1", "1000m", 0),
        ("1Ki", "1024", 0),
        ("1k", "1e3", 0),
        ("0", "0Ki", 0),
        ("0", "-0", 0),
        ("900m", "1", -1),
        ("1G", "1Gi", -1),
        ("-1", "0", -1),
        ("-2", "-1", -1),
        ("1n", "1u", -1),
        ("999999999999999999", "1E", -1),
        ("1E", "1000000000000000001", -1),
        ("1e999999999", "1E", 1),
        ("-1e999999999", "-1", -1),
        ("1e-999999999", "1n", 0),
    ],
)
def test_compare(a: str, b: str, order: int) -> None:
    x, y = Quantity.parse(a), Quantity.parse(b)
    assert ((x > y) - (x < y), (y > x) - (y < x)) == (order, -order)
    assert (x == y) is (order == 0)
    assert (x <= y) is (order <= 0) and (x >= y) is (order >= 0)
    if order == 0:
        assert hash(x) == hash(y)


def test_sorting_and_containers() -> None:
    items = [Quantity.parse(t) for t in ("1Gi", "500m", "-1", "1e3", "2")]
    assert [str(q) for q in sorted(items)] == ["-1", "500m", "2", "1e3", "1Gi"]
    assert Quantity.parse("1000m") in {Quantity.parse("1")}
    assert max(items) == Quantity.parse("1073741824")


def test_comparison_with_other_types() -> None:
    assert Quantity.parse("1") != 1
    with pytest.raises(TypeError):
        _ = Quantity.parse("1") < 1  # type: ignore[operator]


def test_sign_zero_and_repr() -> None:
    assert [Quantity.parse(t).sign() for t in ("-1m", "0", "5Gi")] == [-1, 0, 1]
    assert Quantity.parse("0Mi").is_zero()
    assert repr(Quantity.parse("1Gi")) == "Quantity('1Gi', BinarySI)"


def test_very_long_numbers_stay_exact() -> None:
    digits = "7" * 5000
    q = Quantity.parse(digits + "E")
    assert str(q) == digits + "E"
    assert q > Quantity.parse("1E")
