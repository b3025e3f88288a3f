"""Field selectors: upstream's parsing, escaping, canonical strings, matching and errors."""

from __future__ import annotations

import pytest

from minikube_py.api.fields import (
    FieldRequirement,
    FieldSelector,
    SelectorError,
    escape_value,
    parse_field_selector,
    unescape_value,
)
from minikube_py.api.labels import SelectorError as LabelSelectorError


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        ("", ""),
        ("a=b", "a=b"),
        ("a==b", "a=b"),
        ("a!=b", "a!=b"),
        ("x=a,y=b,z=c", "x=a,y=b,z=c"),
        ("z=c,y=b,x=a", "x=a,y=b,z=c"),  # terms are sorted as written
        ("x!=a,y=b", "x!=a,y=b"),
        ("metadata.name=web", "metadata.name=web"),
        ("spec.nodeName=", "spec.nodeName="),
        ("x==", "x="),
        ("a=b,,c=d", "a=b,c=d"),  # empty terms are skipped
        (",a=b,", "a=b"),
        ("=", ""),  # no field and no value: dropped
        ("!=", ""),
        ("=b", "=b"),
        ("a= b", "a= b"),  # no whitespace trimming
        (r"x=a\,b", r"x=a\,b"),
        (r"x=a\=b", r"x=a\=b"),
        (r"x=a\\b", r"x=a\\b"),
        (r"x=\\\,\=", r"x=\\\,\="),
        (r"a\,b=c", r"a\,b=c"),  # field names are not unescaped
        ("a=b=", None),
        ("x==y", "x=y"),
        ("a!b!=c", "a!b!=c"),
    ],
)
def test_parse_canonical(text: str, canonical: str | None) -> None:
    if canonical is None:
        with pytest.raises(SelectorError):
            parse_field_selector(text)
        return
    assert str(parse_field_selector(text)) == canonical


@pytest.mark.parametrize(
    ("text", "requirements"),
    [
        ("", []),
        ("a=b", [("a", "=", "b")]),
        ("a==b", [("a", "=", "b")]),
        ("a!=b", [("a", "!=", "b")]),
        ("b=1,a!=2", [("a", "!=", "2"), ("b", "=", "1")]),
        (r"x=a\,b\=c\\d", [("x", "=", "a,b=c\\d")]),
        ("spec.nodeName=", [("spec.nodeName", "=", "")]),
        ("=v", [("", "=", "v")]),
        ("x=!=", None),
    ],
)
def test_requirements(text: str, requirements: list[tuple[str, str, str]] | None) -> None:
    if requirements is None:
        with pytest.raises(SelectorError):
            parse_field_selector(text)
        return
    selector = parse_field_selector(text)
    assert [tuple(r) for r in selector.requirements] == requirements
    for field, op, value in selector.requirements:  # a caller can unpack them
        assert (field, op, value) in requirements


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("a", "invalid selector: 'a'; can't understand 'a'"),
        ("a=b,c", "invalid selector: 'a=b,c'; can't understand 'c'"),
        ("x<1", "invalid selector: 'x<1'; can't understand 'x<1'"),
        ("x in (a)", "invalid selector: 'x in (a)'; can't understand 'x in (a)'"),
        ("a!b", "invalid selector: 'a!b'; can't understand 'a!b'"),
        ("b,a", "invalid selector: 'b,a'; can't understand 'a'"),  # the first term after sorting
        ("x=a=b", "invalid field selector: unescaped character in value: 61"),
        ("x==a=b", "invalid field selector: unescaped character in value: 61"),
        ("x=!=b", "invalid field selector: unescaped character in value: 61"),
        ("x!==b", "invalid field selector: unescaped character in value: 61"),
        (r"x=a\b", r"invalid field selector: invalid escape sequence: \b"),
        (r"x=a\n", r"invalid field selector: invalid escape sequence: \n"),
        ("x=a\\", "invalid field selector: invalid escape sequence: \\"),
        ("x=\\", "invalid field selector: invalid escape sequence: \\"),
        (r"x=a\\\b", r"invalid field selector: invalid escape sequence: \b"),
    ],
)
def test_parse_errors(text: str, message: str) -> None:
    with pytest.raises(SelectorError) as err:
        parse_field_selector(text)
    assert str(err.value) == message


def test_field_and_label_selectors_share_the_error_type() -> None:
    assert SelectorError is LabelSelectorError
    assert issubclass(SelectorError, ValueError)


@pytest.mark.parametrize(
    ("text", "fields", "expected"),
    [
        ("", {"a": "b"}, True),
        ("a=b", {"a": "b"}, True),
        ("a==b", {"a": "b"}, True),
        ("a=b", {"a": "c"}, False),
        ("a=b", {}, False),
        ("a!=b", {}, True),  # a missing field reads as ""
        ("a=", {}, True),
        ("a!=", {}, False),
        ("a!=", {"a": "x"}, True),
        ("a!=b", {"a": "b"}, False),
        ("a=b,c=d", {"a": "b", "c": "d"}, True),
        ("a=b,c=d", {"a": "b", "c": "x"}, False),
        (
            "metadata.name=web,metadata.namespace=default",
            {"metadata.name": "web", "metadata.namespace": "default"},
            True,
        ),
        ("status.phase!=Running", {"status.phase": "Pending"}, True),
        ("status.phase!=Running", {"status.phase": "Running"}, False),
        (r"x=a\,b", {"x": "a,b"}, True),
        (r"x=a\=b", {"x": "a=b"}, True),
        (r"x=a\\b", {"x": "a\\b"}, True),
    ],
)
def test_matches(text: str, fields: dict[str, str], expected: bool) -> None:
    assert parse_field_selector(text).matches(fields) is expected


@pytest.mark.parametrize(
    ("text", "field", "value"),
    [
        ("metadata.name=web", "metadata.name", "web"),
        ("metadata.name==web", "metadata.name", "web"),
        ("a=1,metadata.name=web", "metadata.name", "web"),
        ("metadata.name!=web", "metadata.name", None),
        ("metadata.name=web", "spec.nodeName", None),
        ("spec.nodeName=", "spec.nodeName", ""),
        (r"x=a\,b", "x", "a,b"),
        ("", "x", None),
        ("x!=a,x=b", "x", "b"),
    ],
)
def test_exact_match(text: str, field: str, value: str | None) -> None:
    assert parse_field_selector(text).exact_match(field) == value


def test_empty() -> None:
    assert parse_field_selector("").empty
    assert parse_field_selector(",,").empty
    assert parse_field_selector("=").empty
    assert not parse_field_selector("a=b").empty
    assert FieldSelector().empty


@pytest.mark.parametrize(
    ("raw", "escaped"),
    [
        ("", ""),
        ("plain", "plain"),
        ("a,b", r"a\,b"),
        ("a=b", r"a\=b"),
        ("a\\b", r"a\\b"),
        ("\\,=", r"\\\,\="),
        ("=,\\", r"\=\,\\"),
    ],
)
def test_escape_round_trip(raw: str, escaped: str) -> None:
    assert escape_value(raw) == escaped
    assert unescape_value(escaped) == raw
    selector = parse_field_selector("f=" + escaped)
    assert selector.requirements == (FieldRequirement("f", "=", raw),)
    assert str(selector) == "f=" + escaped
