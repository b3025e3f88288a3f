"""Go's encoding/json syntax error messages (its scanner's wording), as upstream quotes them."""

from __future__ import annotations

import pytest

from minikube_py.api.gojson_syntax import syntax_error


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "unexpected end of JSON input"),
        ("   ", "unexpected end of JSON input"),
        ("not json", "invalid character 'o' in literal null (expecting 'u')"),
        ("tru", "unexpected end of JSON input"),
        ("{", "unexpected end of JSON input"),
        ("{]", "invalid character ']' looking for beginning of object key string"),
        ('{"a" 1}', "invalid character '1' after object key"),
        ('{"a":1 "b":2}', "invalid character '\"' after object key:value pair"),
        ('{"a":1,}', "invalid character '}' looking for beginning of object key string"),
        ('{"a":}', "invalid character '}' looking for beginning of value"),
        ("[1 2]", "invalid character '2' after array element"),
        ("[1,]", "invalid character ']' looking for beginning of value"),
        ("01", "invalid character '1' after top-level value"),
        ("{} x", "invalid character 'x' after top-level value"),
        ("-x", "invalid character 'x' in numeric literal"),
        ("1.x", "invalid character 'x' after decimal point in numeric literal"),
        ("1ex", "invalid character 'x' in exponent of numeric literal"),
        ('"\\x"', "invalid character 'x' in string escape code"),
        ('"\\u12g4"', "invalid character 'g' in \\u hexadecimal character escape"),
        ('"a\tb"', "invalid character '\\t' in string literal"),
        ("'a'", "invalid character '\\'' looking for beginning of value"),
    ],
)
def test_messages(text: str, message: str) -> None:
    assert syntax_error(text) == message


@pytest.mark.parametrize(
    "text", ["{}", ' [1, 2.5e-3, -0, 0.5E+2, true, false, null, "x\\u00e9\\n"] ', '{"a":{"b":[]}}']
)
def test_valid_json(text: str) -> None:
    assert syntax_error(text) is None
