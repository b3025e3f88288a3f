"""Label selectors: upstream's grammar, canonical strings, matching, errors and LabelSelector dicts."""

from __future__ import annotations

from typing import Any

import pytest

from minikube_py.api.labels import (
    Operator,
    Requirement,
    Selector,
    SelectorError,
    label_selector_as_selector,
    new_requirement,
    parse_label_selector,
    selector_from_set,
)

VALUE_RULE = (
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and "
    "must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', "
    "regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"
)
NAME_RULE = (
    "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
    "alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is "
    "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"
)
OPERATORS = "in, notin, =, ==, !=, gt, lt"
BAD_REQ = "unable to parse requirement: "
NOT_INT = "for 'Gt', 'Lt' operators, the value must be an integer"


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        ("", ""),
        ("x=a,y=b,z=c", "x=a,y=b,z=c"),
        ("x!=a,y=b", "x!=a,y=b"),
        ("x=", "x="),
        ("x= ", "x="),
        ("x=,z= ", "x=,z="),
        ("x= ,z= ", "x=,z="),
        ("!x", "!x"),
        ("x>1", "x>1"),
        ("x>1,z<5", "x>1,z<5"),
        ("x==a", "x==a"),
        ("x=a,a=x", "a=x,x=a"),  # sorted by key: deterministic
        ("a=x,x=a", "a=x,x=a"),
        ("\rx", "x"),
        ("  x  ", "x"),
        ("a ", "a"),
        ("this-is-a-dns.domain.com/key-with-dash", "this-is-a-dns.domain.com/key-with-dash"),
        (
            "this-is-another-dns.domain.com/key-with-dash in (so,what)",
            "this-is-another-dns.domain.com/key-with-dash in (so,what)",
        ),
        (
            "0.1.2.domain/99 notin (10.10.100.1, tick.tack.clock)",
            "0.1.2.domain/99 notin (10.10.100.1,tick.tack.clock)",
        ),
        ("foo  in\t (abc)", "foo in (abc)"),
        ("x notin\n (abc)", "x notin (abc)"),
        ("x  notin\t\t\t(abc,def)", "x notin (abc,def)"),
        ("x in (abc,def)", "x in (abc,def)"),
        ("x in (def,abc)", "x in (abc,def)"),
        ("x in (abc,)", "x in (,abc)"),
        ("x in (abc,abc)", "x in (abc)"),
        ("x in ()", "x in ()"),
        ("x in (a,,)", "x in (,a)"),
        ("x in (a,,,)", "x in (,a)"),
        ("x in (a,,,,,,)", "x in (,a)"),
        ("x in (a,,a,,a,,a,,)", "x in (,a)"),
        ("x in (,a)", "x in (,a)"),
        ("x in (,)", "x in ()"),
        ("x notin ( )", "x notin ()"),
        ("x notin (, a)", "x notin (,a)"),
        ("x notin (abc,,def),bar,z in (),w", "bar,w,x notin (,abc,def),z in ()"),
        ("x,y in (a)", "x,y in (a)"),
        ("x=a,y!=b,z in (h,i,j)", "x=a,y!=b,z in (h,i,j)"),
        ("a in (x,y,notin, z,in)", "a in (in,notin,x,y,z)"),  # in/notin are values inside ()
        ("notin=in", "notin=in"),
        ("in in (in)", "in in (in)"),
        ("x=a,x!=b", "x=a,x!=b"),  # same key twice: order kept
        ("example.com/Key_1.x=Value_1.x", "example.com/Key_1.x=Value_1.x"),
        ("\x00x", ""),  # upstream's lexer reads a NUL where a token starts as the end of input
        ("a\x00,b", "a,b"),  # and swallows one that ends a token
    ],
)
def test_parse_canonical(text: str, canonical: str) -> None:
    assert str(parse_label_selector(text)) == canonical


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("x=a||y=b", f'{BAD_REQ}values[0][x]: Invalid value: "a||y": {VALUE_RULE}'),
        ("x==a==b", "found '==', expected: ',' or 'end of string'"),
        ("!x=a", "found '=', expected: ',' or 'end of string'"),
        (
            "x<a",
            f'{BAD_REQ}values[0]: Invalid value: "a": {NOT_INT}',
        ),
        (
            "x>99999999999999999999",
            f'{BAD_REQ}values[0]: Invalid value: "99999999999999999999": '
            "for 'Gt', 'Lt' operators, the value must be an integer",
        ),
        (
            "x>1_0",
            f'{BAD_REQ}values[0]: Invalid value: "1_0": {NOT_INT}',
        ),
        (
            "x>",
            f'{BAD_REQ}values[0]: Invalid value: "": {NOT_INT}',
        ),
        ("x,,y", "found ',', expected: identifier after ','"),
        (",x,y", "found ',', expected: !, identifier, or 'end of string'"),
        ("x nott in (y)", f"{BAD_REQ}found 'nott', expected: {OPERATORS}"),
        ("x (a)", f"{BAD_REQ}found '(', expected: {OPERATORS}"),
        ("a in (xyz),", "found '', expected: identifier after ','"),
        ("a in (xyz)b notin ()", "found 'b', expected: ',' or 'end of string'"),
        ("x=a b", "found 'b', expected: ',' or 'end of string'"),
        ("x in (a b)", f"{BAD_REQ}found 'b', expected: ',' or ')'"),
        ("x in a", f"{BAD_REQ}found 'a' expected: '('"),
        ("x in (a", f"{BAD_REQ}found '', expected: ',' or ')'"),
        ("x in ((", f"{BAD_REQ}found '(', expected: ',', ')' or identifier"),
        ("x in (a,=)", f"{BAD_REQ}found '=', expected: ',', or identifier"),
        ("x=(", f"{BAD_REQ}found '(', expected: identifier"),
        ("!", f"{BAD_REQ}found '', expected: identifier"),
        ("!!x", f"{BAD_REQ}found '!', expected: identifier"),
        ("!=x", "found '!=', expected: !, identifier, or 'end of string'"),
        ("=a", "found '=', expected: !, identifier, or 'end of string'"),
        (")", "found ')', expected: !, identifier, or 'end of string'"),
        ("-foo", f'{BAD_REQ}<nil>: Invalid value: "-foo": {NAME_RULE}'),
        ("!-foo", f'{BAD_REQ}<nil>: Invalid value: "-foo": {NAME_RULE}'),
        ("/b", f'{BAD_REQ}<nil>: Invalid value: "/b": prefix part must be non-empty'),
        ("a/", f'{BAD_REQ}<nil>: Invalid value: "a/": name part must be non-empty; {NAME_RULE}'),
        ("k" * 64, f'{BAD_REQ}<nil>: Invalid value: "{"k" * 64}": name part must be no more than 63 bytes'),
        (
            "x=" + "a" * 64,
            f'{BAD_REQ}values[0][x]: Invalid value: "{"a" * 64}": must be no more than 63 bytes',
        ),
        ("x in (-a)", f'{BAD_REQ}values[0][x]: Invalid value: "-a": {VALUE_RULE}'),
        (
            "x in (b,-c,-a)",  # values are sorted before they are checked
            f'{BAD_REQ}[values[0][x]: Invalid value: "-a": {VALUE_RULE}, '
            f'values[1][x]: Invalid value: "-c": {VALUE_RULE}]',
        ),
        ("x>-1", f'{BAD_REQ}values[0][x]: Invalid value: "-1": {VALUE_RULE}'),  # a label value first
        ("x=a\tb", "found 'b', expected: ',' or 'end of string'"),
        ('x="a"', f'{BAD_REQ}values[0][x]: Invalid value: "\\"a\\"": {VALUE_RULE}'),
        ("a,b=-c,=", f'{BAD_REQ}values[0][b]: Invalid value: "-c": {VALUE_RULE}'),  # first error wins
    ],
)
def test_parse_errors(text: str, message: str) -> None:
    with pytest.raises(SelectorError) as err:
        parse_label_selector(text)
    assert str(err.value) == message


def test_selector_error_is_a_value_error() -> None:
    with pytest.raises(ValueError, match="found ','"):
        parse_label_selector(",")


@pytest.mark.parametrize(
    ("text", "labels", "expected"),
    [
        ("", {"x": "y"}, True),
        ("", {}, True),
        ("x=y", {"x": "y"}, True),
        ("x==y", {"x": "y"}, True),
        ("x=y,z=w", {"x": "y", "z": "w"}, True),
        ("x!=y,z!=w", {"x": "z", "z": "a"}, True),
        ("notin=in", {"notin": "in"}, True),
        ("x", {"x": "z"}, True),
        ("x", {"x": ""}, True),
        ("!x", {"y": "z"}, True),
        ("x>1", {"x": "2"}, True),
        ("x<1", {"x": "0"}, True),
        ("x<5", {"x": "-4"}, True),  # label values in the map are not validated
        ("x<5", {"x": "+4"}, True),
        ("x=", {"x": ""}, True),
        ("x!=y", {}, True),  # != matches an absent key
        ("x notin (a)", {}, True),  # so does notin
        ("x notin (a)", {"x": "b"}, True),
        ("x in (a,b)", {"x": "b"}, True),
        ("x in (,a)", {"x": ""}, True),
        ("x=z", {}, False),
        ("x=y", {"x": "z"}, False),
        ("x=y,z=w", {"x": "w", "z": "w"}, False),
        ("x!=y,z!=w", {"x": "z", "z": "w"}, False),
        ("x", {"y": "z"}, False),
        ("!x", {"x": "z"}, False),
        ("x>1", {"x": "0"}, False),
        ("x<1", {"x": "2"}, False),
        ("x>1", {"x": "1"}, False),
        ("x>1", {}, False),  # gt needs the key
        ("x>1", {"x": "v2"}, False),  # and an integer value
        ("x=", {}, False),
        ("x in (a,b)", {"x": "c"}, False),
        ("x in (a,b)", {}, False),
        ("x notin (a)", {"x": "a"}, False),
        ("foo=bar,baz=blah", {"foo": "bar", "baz": "blah"}, True),
        ("foo=bar,foobar=bar,baz=blah", {"foo": "bar", "baz": "blah"}, False),
    ],
)
def test_matches(text: str, labels: dict[str, str], expected: bool) -> None:
    assert parse_label_selector(text).matches(labels) is expected


@pytest.mark.parametrize(
    ("text", "label", "value"),
    [
        ("x=y", "x", "y"),
        ("x==y", "x", "y"),
        ("x in (y)", "x", "y"),
        ("a=b,x=y", "x", "y"),
        ("x in (y,z)", "x", None),
        ("x!=y", "x", None),
        ("x", "x", None),
        ("x=y", "z", None),
        ("", "x", None),
    ],
)
def test_requires_exact_match(text: str, label: str, value: str | None) -> None:
    assert parse_label_selector(text).requires_exact_match(label) == value


def test_everything_nothing_and_empty() -> None:
    assert parse_label_selector("").empty
    assert parse_label_selector("") == Selector.everything()
    assert not parse_label_selector("x").empty
    nothing = Selector.nothing()
    assert not nothing.empty and not nothing.matches({}) and str(nothing) == ""
    assert nothing.add(Requirement("x", Operator.EXISTS)) == nothing


def test_add_keeps_requirements_sorted() -> None:
    selector = parse_label_selector("b=1").add(new_requirement("a", "in", ["z", "y"]))
    assert str(selector) == "a in (y,z),b=1"
    assert [r.key for r in selector.requirements] == ["a", "b"]


def test_requirements_expose_key_operator_values() -> None:
    [req] = parse_label_selector("x notin (b,a)").requirements
    assert (req.key, req.operator, req.values) == ("x", Operator.NOT_IN, ("a", "b"))


@pytest.mark.parametrize(
    ("key", "op", "values", "message"),
    [
        (
            "x1",
            "in",
            [],
            "values: Invalid value: null: for 'in', 'notin' operators, values set can't be empty",
        ),
        (
            "x2",
            "notin",
            [],
            "values: Invalid value: null: for 'in', 'notin' operators, values set can't be empty",
        ),
        (
            "x5",
            "=",
            ["bar", "foo"],
            'values: Invalid value: ["bar","foo"]: exact-match compatibility requires one single value',
        ),
        (
            "x8",
            "exists",
            ["foo"],
            'values: Invalid value: ["foo"]: values set must be empty for exists and does not exist',
        ),
        (
            "x13",
            "gt",
            [],
            "values: Invalid value: null: for 'Gt', 'Lt' operators, exactly one value is required",
        ),
        (
            "x14",
            "gt",
            ["bar"],
            "values[0]: Invalid value: \"bar\": for 'Gt', 'Lt' operators, the value must be an integer",
        ),
        (
            "x16",
            "=",
            ["a" * 254],
            f'values[0][x16]: Invalid value: "{"a" * 254}": must be no more than 63 bytes',
        ),
        ("x17", "=", ["a b"], f'values[0][x17]: Invalid value: "a b": {VALUE_RULE}'),
        (
            "x18",
            "unsupportedOp",
            [],
            'operator: Unsupported value: "unsupportedOp": supported values: '
            '"in", "notin", "=", "==", "!=", "gt", "lt", "exists", "!"',
        ),
        (
            "a" * 254,
            "exists",
            [],
            f'key: Invalid value: "{"a" * 254}": name part must be no more than 63 bytes',
        ),
    ],
)
def test_new_requirement_errors(key: str, op: str, values: list[str], message: str) -> None:
    with pytest.raises(SelectorError) as err:
        new_requirement(key, op, values)
    assert str(err.value) == message


@pytest.mark.parametrize(
    ("key", "op", "values", "text"),
    [
        ("x3", "in", ["foo"], "x3 in (foo)"),
        ("x4", "notin", ["foo"], "x4 notin (foo)"),
        ("x6", "exists", [], "x6"),
        ("x7", "!", [], "!x7"),
        ("x11", "gt", ["1"], "x11>1"),
        ("x12", "lt", ["6"], "x12<6"),
        ("x", "in", ["b", "a"], "x in (a,b)"),
        ("x", "==", ["a"], "x==a"),
        ("x", "!=", [""], "x!="),
    ],
)
def test_new_requirement_strings(key: str, op: str, values: list[str], text: str) -> None:
    assert str(new_requirement(key, op, values)) == text


@pytest.mark.parametrize(
    ("label_selector", "canonical"),
    [
        ({}, ""),
        ({"matchLabels": None, "matchExpressions": None}, ""),
        ({"matchLabels": {"b": "1", "a": "2"}}, "a=2,b=1"),
        ({"matchExpressions": [{"key": "c", "operator": "In", "values": ["y", "x"]}]}, "c in (x,y)"),
        ({"matchExpressions": [{"key": "c", "operator": "NotIn", "values": ["x"]}]}, "c notin (x)"),
        ({"matchExpressions": [{"key": "c", "operator": "Exists"}]}, "c"),
        ({"matchExpressions": [{"key": "c", "operator": "DoesNotExist", "values": []}]}, "!c"),
        (
            {
                "matchLabels": {"tier": "web"},
                "matchExpressions": [
                    {"key": "env", "operator": "In", "values": ["prod", "qa"]},
                    {"key": "app", "operator": "Exists"},
                ],
            },
            "app,env in (prod,qa),tier=web",
        ),
    ],
)
def test_label_selector_as_selector(label_selector: dict[str, Any], canonical: str) -> None:
    assert str(label_selector_as_selector(label_selector)) == canonical


def test_label_selector_none_selects_nothing_and_empty_selects_everything() -> None:
    assert not label_selector_as_selector(None).matches({})
    assert label_selector_as_selector({}).matches({"any": "thing"})
    assert label_selector_as_selector({}).empty


@pytest.mark.parametrize(
    ("label_selector", "labels", "expected"),
    [
        ({"matchLabels": {"app": "web"}}, {"app": "web", "x": "y"}, True),
        ({"matchLabels": {"app": "web"}}, {"app": "db"}, False),
        ({"matchExpressions": [{"key": "env", "operator": "In", "values": ["a", "b"]}]}, {"env": "b"}, True),
        ({"matchExpressions": [{"key": "env", "operator": "NotIn", "values": ["a"]}]}, {}, True),
        ({"matchExpressions": [{"key": "env", "operator": "DoesNotExist"}]}, {"env": ""}, False),
    ],
)
def test_label_selector_matches(
    label_selector: dict[str, Any], labels: dict[str, str], expected: bool
) -> None:
    assert label_selector_as_selector(label_selector).matches(labels) is expected


@pytest.mark.parametrize(
    ("label_selector", "message"),
    [
        (
            {"matchExpressions": [{"key": "c", "operator": "Foo"}]},
            '"Foo" is not a valid label selector operator',
        ),
        (
            {"matchExpressions": [{"key": "c", "operator": "in", "values": ["a"]}]},
            '"in" is not a valid label selector operator',
        ),
        ({"matchExpressions": [{"key": "c"}]}, '"" is not a valid label selector operator'),
        (
            {"matchExpressions": [{"key": "c", "operator": "In"}]},
            "values: Invalid value: null: for 'in', 'notin' operators, values set can't be empty",
        ),
        (
            {"matchExpressions": [{"key": "c", "operator": "Exists", "values": ["a"]}]},
            'values: Invalid value: ["a"]: values set must be empty for exists and does not exist',
        ),
        ({"matchLabels": {"a": "b c"}}, f'values[0][a]: Invalid value: "b c": {VALUE_RULE}'),
        ({"matchLabels": {"-a": "b"}}, f'key: Invalid value: "-a": {NAME_RULE}'),
        ({"matchLabels": ["a"]}, "matchLabels must be an object"),
        ({"matchExpressions": {"key": "a"}}, "matchExpressions must be a list"),
        ({"matchExpressions": [{"key": "a", "operator": "In", "values": [1]}]}, "expected a string, got int"),
    ],
)
def test_label_selector_errors(label_selector: dict[str, Any], message: str) -> None:
    with pytest.raises(SelectorError) as err:
        label_selector_as_selector(label_selector)
    assert str(err.value) == message


def test_selector_from_set() -> None:
    selector = selector_from_set({"b": "2", "a": "1"})
    assert str(selector) == "a=1,b=2"
    assert selector.matches({"a": "1", "b": "2", "c": "3"})
    assert not selector.matches({"a": "1"})
    assert selector_from_set({}).empty
