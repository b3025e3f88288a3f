"""Name, label and annotation validation: upstream's rules and exact messages."""

from __future__ import annotations

import pytest

from minikube_py.api.field_errors import FieldError, aggregate_message, go_quote, invalid, not_supported
from minikube_py.api.validation import (
    is_dns1035_label,
    is_dns1123_label,
    is_dns1123_subdomain,
    is_path_segment_name,
    is_path_segment_prefix,
    is_qualified_name,
    is_valid_label_value,
    namespace_errors,
    validate_annotations,
    validate_labels,
    validate_object_meta_name,
    validate_object_meta_names,
)

SUBDOMAIN = (
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', "
    "and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation "
    r"is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
)
LABEL = (
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start "
    "and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is "
    "'[a-z0-9]([-a-z0-9]*[a-z0-9])?')"
)
DNS1035 = (
    "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic "
    "character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for "
    "validation is '[a-z]([-a-z0-9]*[a-z0-9])?')"
)
KEY_NAME = (
    "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
    "alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is "
    "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"
)
KEY_SLASHES = (
    "a valid label key must consist of alphanumeric characters, '-', '_' or '.', and must start and end "
    "with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for "
    "validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and "
    "'/' (e.g. 'example.com/MyName')"
)
VALUE = (
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and "
    "must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', "
    "regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"
)


@pytest.mark.parametrize(
    ("value", "errors"),
    [
        ("a", []),
        ("ab", []),
        ("abc", []),
        ("a1", []),
        ("a-1", []),
        ("a--1--2--b", []),
        ("0", []),
        ("01", []),
        ("012", []),
        ("1a", []),
        ("1-a", []),
        ("1--a--b--2", []),
        ("a.a", []),
        ("ab.a", []),
        ("a1.a", []),
        ("a-1.a", []),
        ("0.a", []),
        ("1-a.a", []),
        ("a.b.c.d.e", []),
        ("aa.bb.cc.dd.ee", []),
        ("1.2.3.4.5", []),
        ("11.22.33.44.55", []),
        ("a" * 253, []),
        ("", [SUBDOMAIN]),
        ("A", [SUBDOMAIN]),
        ("ABC", [SUBDOMAIN]),
        ("aBc", [SUBDOMAIN]),
        ("A1", [SUBDOMAIN]),
        ("A-1", [SUBDOMAIN]),
        ("1-A", [SUBDOMAIN]),
        ("-", [SUBDOMAIN]),
        ("a-", [SUBDOMAIN]),
        ("-a", [SUBDOMAIN]),
        ("1-", [SUBDOMAIN]),
        ("-1", [SUBDOMAIN]),
        ("_", [SUBDOMAIN]),
        ("a_", [SUBDOMAIN]),
        ("_a", [SUBDOMAIN]),
        ("a_b", [SUBDOMAIN]),
        ("1_", [SUBDOMAIN]),
        ("_1", [SUBDOMAIN]),
        ("1_2", [SUBDOMAIN]),
        (".", [SUBDOMAIN]),
        ("a.", [SUBDOMAIN]),
        (".a", [SUBDOMAIN]),
        ("a..b", [SUBDOMAIN]),
        ("1.", [SUBDOMAIN]),
        (".1", [SUBDOMAIN]),
        ("1..2", [SUBDOMAIN]),
        (" ", [SUBDOMAIN]),
        ("a ", [SUBDOMAIN]),
        (" a", [SUBDOMAIN]),
        ("a b", [SUBDOMAIN]),
        ("A.a", [SUBDOMAIN]),
        ("aB.a", [SUBDOMAIN]),
        ("ab.A", [SUBDOMAIN]),
        ("A1.a", [SUBDOMAIN]),
        ("a1.A", [SUBDOMAIN]),
        ("A.1", [SUBDOMAIN]),
        ("aB.1", [SUBDOMAIN]),
        ("A1.1", [SUBDOMAIN]),
        ("1A.1", [SUBDOMAIN]),
        ("0.A", [SUBDOMAIN]),
        ("01.A", [SUBDOMAIN]),
        ("012.A", [SUBDOMAIN]),
        ("1A.a", [SUBDOMAIN]),
        ("1a.A", [SUBDOMAIN]),
        ("A.B.C.D.E", [SUBDOMAIN]),
        ("AA.BB.CC.DD.EE", [SUBDOMAIN]),
        ("a.B.c.d.e", [SUBDOMAIN]),
        ("aa.bB.cc.dd.ee", [SUBDOMAIN]),
        ("a@b", [SUBDOMAIN]),
        ("a,b", [SUBDOMAIN]),
        ("a;b", [SUBDOMAIN]),
        ("a:b", [SUBDOMAIN]),
        ("a%b", [SUBDOMAIN]),
        ("a?b", [SUBDOMAIN]),
        ("a$b", [SUBDOMAIN]),
        ("a\n", [SUBDOMAIN]),  # Go's $ never matches before a trailing newline
        ("a" * 254, ["must be no more than 253 characters"]),
        ("A" * 254, ["must be no more than 253 characters", SUBDOMAIN]),
    ],
)
def test_is_dns1123_subdomain(value: str, errors: list[str]) -> None:
    assert is_dns1123_subdomain(value) == errors


@pytest.mark.parametrize(
    ("value", "errors"),
    [
        ("a", []),
        ("ab", []),
        ("abc", []),
        ("a1", []),
        ("a-1", []),
        ("a--1--2--b", []),
        ("0", []),
        ("01", []),
        ("012", []),
        ("1a", []),
        ("1-a", []),
        ("1--a--b--2", []),
        ("a" * 63, []),
        ("", [LABEL]),
        ("A", [LABEL]),
        ("ABC", [LABEL]),
        ("aBc", [LABEL]),
        ("A1", [LABEL]),
        ("A-1", [LABEL]),
        ("1-A", [LABEL]),
        ("-", [LABEL]),
        ("a-", [LABEL]),
        ("-a", [LABEL]),
        ("1-", [LABEL]),
        ("-1", [LABEL]),
        ("_", [LABEL]),
        ("a_", [LABEL]),
        ("_a", [LABEL]),
        ("a_b", [LABEL]),
        ("1_", [LABEL]),
        ("_1", [LABEL]),
        ("1_2", [LABEL]),
        (".", [LABEL]),
        ("a.", [LABEL]),
        (".a", [LABEL]),
        ("a..b", [LABEL]),
        (" ", [LABEL]),
        ("a b", [LABEL]),
        ("a@b", [LABEL]),
        ("a.b", ["must not contain dots"]),
        ("1.2.3", ["must not contain dots"]),
        ("a" * 64, ["must be no more than 63 characters"]),
        ("a." + "a" * 62, ["must be no more than 63 characters", "must not contain dots"]),
        ("A" * 64, ["must be no more than 63 characters", LABEL]),
    ],
)
def test_is_dns1123_label(value: str, errors: list[str]) -> None:
    assert is_dns1123_label(value) == errors


@pytest.mark.parametrize(
    ("value", "errors"),
    [
        ("a", []),
        ("ab", []),
        ("abc", []),
        ("a1", []),
        ("a-1", []),
        ("a--1--2--b", []),
        ("a" * 63, []),
        ("", [DNS1035]),
        ("0", [DNS1035]),
        ("01", [DNS1035]),
        ("1a", [DNS1035]),
        ("1-a", [DNS1035]),
        ("A", [DNS1035]),
        ("a-", [DNS1035]),
        ("-a", [DNS1035]),
        ("a.b", [DNS1035]),
        ("a_b", [DNS1035]),
        ("a" * 64, ["must be no more than 63 characters"]),
    ],
)
def test_is_dns1035_label(value: str, errors: list[str]) -> None:
    assert is_dns1035_label(value) == errors


@pytest.mark.parametrize(
    ("value", "errors"),
    [
        ("simple", []),
        ("now-with-dashes", []),
        ("1-starts-with-num", []),
        ("1234", []),
        ("simple/simple", []),
        ("now-with-dashes/simple", []),
        ("now-with-dashes/now-with-dashes", []),
        ("now.with.dots/simple", []),
        ("now-with.dashes-and.dots/simple", []),
        ("1-num.2-num/3-num", []),
        ("1234/5678", []),
        ("1.2.3.4/5678", []),
        ("Uppercase_Is_OK_123", []),
        ("example.com/Uppercase_Is_OK_123", []),
        ("requests.storage-foo", []),
        ("a" * 63, []),
        ("a" * 253 + "/" + "b" * 63, []),
        ("", ["name part must be non-empty", KEY_NAME]),
        ("/simple", ["prefix part must be non-empty"]),
        ("nospecialchars%^=@", [KEY_NAME]),
        ("cantendwithadash-", [KEY_NAME]),
        ("-cantstartwithadash-", [KEY_NAME]),
        ("only/one/slash", [KEY_SLASHES]),
        ("Example.com/abc", ["prefix part " + SUBDOMAIN]),
        ("example_com/abc", ["prefix part " + SUBDOMAIN]),
        ("example.com/", ["name part must be non-empty", KEY_NAME]),
        ("/", ["prefix part must be non-empty", "name part must be non-empty", KEY_NAME]),
        ("a" * 64, ["name part must be no more than 63 bytes"]),
        ("a" * 254 + "/abc", ["prefix part must be no more than 253 bytes"]),
        ("é", [KEY_NAME]),
        ("é" * 32, ["name part must be no more than 63 bytes", KEY_NAME]),  # 64 bytes, 32 characters
    ],
)
def test_is_qualified_name(value: str, errors: list[str]) -> None:
    assert is_qualified_name(value) == errors


@pytest.mark.parametrize(
    ("value", "errors"),
    [
        ("simple", []),
        ("now-with-dashes", []),
        ("1-starts-with-num", []),
        ("end-with-num-1", []),
        ("1234", []),
        ("a" * 63, []),
        ("", []),
        ("Mixed_Case.value-1", []),
        ("nospecialchars%^=@", [VALUE]),
        ("Tama-nui-te-rā.is.Māori.sun", [VALUE]),
        ("\\backslashes\\are\\bad", [VALUE]),
        ("-starts-with-dash", [VALUE]),
        ("ends-with-dash-", [VALUE]),
        (".starts.with.dot", [VALUE]),
        ("ends.with.dot.", [VALUE]),
        ("a b", [VALUE]),
        ("a/b", [VALUE]),
        ("a" * 64, ["must be no more than 63 bytes"]),
        ("-" * 64, ["must be no more than 63 bytes", VALUE]),
    ],
)
def test_is_valid_label_value(value: str, errors: list[str]) -> None:
    assert is_valid_label_value(value) == errors


@pytest.mark.parametrize(
    ("name", "errors", "prefix_errors"),
    [
        ("a", [], []),
        ("Any Thing:Goes", [], []),
        ("..a", [], []),
        (".", ["may not be '.'"], []),
        ("..", ["may not be '..'"], []),
        ("a/b", ["may not contain '/'"], ["may not contain '/'"]),
        ("a%b", ["may not contain '%'"], ["may not contain '%'"]),
        (
            "/%",
            ["may not contain '/'", "may not contain '%'"],
            ["may not contain '/'", "may not contain '%'"],
        ),
    ],
)
def test_path_segment_names(name: str, errors: list[str], prefix_errors: list[str]) -> None:
    assert is_path_segment_name(name) == errors
    assert is_path_segment_prefix(name) == prefix_errors
    assert validate_object_meta_name(name, namespaced_kind_rule="path-segment") == errors
    assert validate_object_meta_name(name, namespaced_kind_rule="path-segment", prefix=True) == prefix_errors


@pytest.mark.parametrize(
    ("name", "rule", "prefix", "errors"),
    [
        ("my-config", "subdomain", False, []),
        ("my.config", "subdomain", False, []),
        ("My-Config", "subdomain", False, [SUBDOMAIN]),
        ("", "subdomain", False, [SUBDOMAIN]),
        ("gen-", "subdomain", True, []),  # generateName may end with a dash
        ("gen-", "subdomain", False, [SUBDOMAIN]),
        ("-", "subdomain", True, [SUBDOMAIN]),  # a lone dash is not masked
        ("Gen-", "subdomain", True, [SUBDOMAIN]),
        ("kube-system", "label", False, []),
        ("kube.system", "label", False, ["must not contain dots"]),
        ("ns-", "label", True, []),
        ("my-service", "dns1035-label", False, []),
        ("1service", "dns1035-label", False, [DNS1035]),
        ("svc-", "dns1035-label", True, []),
        ("system:masters", "path-segment", False, []),
    ],
)
def test_validate_object_meta_name(name: str, rule: str, prefix: bool, errors: list[str]) -> None:
    assert validate_object_meta_name(name, namespaced_kind_rule=rule, prefix=prefix) == errors  # type: ignore[arg-type]


def test_validate_object_meta_name_rejects_unknown_rule() -> None:
    with pytest.raises(ValueError, match="unknown name rule"):
        validate_object_meta_name("x", namespaced_kind_rule="nope")  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("name", "generate_name", "rule", "messages"),
    [
        ("ok", "", "subdomain", []),
        ("", "", "subdomain", ["metadata.name: Required value: name or generateName is required"]),
        ("", "gen-", "subdomain", ["metadata.name: Required value: name or generateName is required"]),
        ("Bad", "", "subdomain", [f'metadata.name: Invalid value: "Bad": {SUBDOMAIN}']),
        ("a.b", "", "label", ['metadata.name: Invalid value: "a.b": must not contain dots']),
        (
            "x",
            "Gen-",
            "label",
            [f'metadata.generateName: Invalid value: "Gen-": {LABEL}'],
        ),
        ("..", "", "path-segment", ["metadata.name: Invalid value: \"..\": may not be '..'"]),
    ],
)
def test_validate_object_meta_names(name: str, generate_name: str, rule: str, messages: list[str]) -> None:
    errors = validate_object_meta_names(name, generate_name, rule=rule)  # type: ignore[arg-type]
    assert [str(e) for e in errors] == messages


def test_object_meta_errors_carry_reason_field_and_body() -> None:
    [error] = validate_object_meta_names("", "")
    assert (error.reason, error.field) == ("FieldValueRequired", "metadata.name")
    assert error.body() == "Required value: name or generateName is required"


@pytest.mark.parametrize(
    ("labels", "messages"),
    [
        ({}, []),
        ({"app": "web", "example.com/tier": "", "Uppercase_OK": "V.1"}, []),
        ({"-bad": "ok"}, [f'metadata.labels: Invalid value: "-bad": {KEY_NAME}']),
        ({"ok": "bad value"}, [f'metadata.labels: Invalid value: "bad value": {VALUE}']),
        ({"a/b/c": "x"}, [f'metadata.labels: Invalid value: "a/b/c": {KEY_SLASHES}']),
    ],
)
def test_validate_labels(labels: dict[str, str], messages: list[str]) -> None:
    assert [str(e) for e in validate_labels(labels)] == messages


@pytest.mark.parametrize(
    ("annotations", "messages"),
    [
        ({}, []),
        ({"Kubectl.Kubernetes.IO/Last-Applied": "{}"}, []),  # annotation keys are case-insensitive
        ({"a b": "x"}, [f'metadata.annotations: Invalid value: "a b": {KEY_NAME}']),
        ({"big": "x" * (256 * 1024 - 3)}, []),
        (
            {"big": "x" * (256 * 1024 - 2)},
            ["metadata.annotations: Too long: may not be more than 262144 bytes"],
        ),
    ],
)
def test_validate_annotations(annotations: dict[str, str], messages: list[str]) -> None:
    assert [str(e) for e in validate_annotations(annotations)] == messages


@pytest.mark.parametrize(
    ("namespace", "namespaced", "messages"),
    [
        ("default", True, []),
        ("", False, []),
        ("", True, ["metadata.namespace: Required value"]),
        ("a.b", True, ['metadata.namespace: Invalid value: "a.b": must not contain dots']),
        ("default", False, ["metadata.namespace: Forbidden: not allowed on this type"]),
    ],
)
def test_namespace_errors(namespace: str, namespaced: bool, messages: list[str]) -> None:
    assert [str(e) for e in namespace_errors(namespace, namespaced=namespaced)] == messages


@pytest.mark.parametrize(
    ("text", "quoted"),
    [
        ("plain", '"plain"'),
        ('say "hi"', r'"say \"hi\""'),
        ("back\\slash", r'"back\\slash"'),
        ("tab\tnew\nline", r'"tab\tnew\nline"'),
        ("\x00\x7f", r'"\x00\x7f"'),
        ("rā", '"rā"'),
        ("\u200b", r'"\u200b"'),
    ],
)
def test_go_quote(text: str, quoted: str) -> None:
    assert go_quote(text) == quoted


@pytest.mark.parametrize(
    ("error", "message"),
    [
        (invalid("spec.x", "v", "bad"), 'spec.x: Invalid value: "v": bad'),
        (invalid("spec.x", 3, "bad"), "spec.x: Invalid value: 3: bad"),
        (invalid("spec.x", True, "bad"), "spec.x: Invalid value: true: bad"),
        (invalid("values", ["a", "<b>"], "bad"), r'values: Invalid value: ["a","\u003cb\u003e"]: bad'),
        (invalid("values", None, "bad"), "values: Invalid value: null: bad"),
        (not_supported("op", "x", ["a", "b"]), 'op: Unsupported value: "x": supported values: "a", "b"'),
    ],
)
def test_field_error_rendering(error: FieldError, message: str) -> None:
    assert str(error) == message


@pytest.mark.parametrize(
    ("messages", "aggregate"),
    [
        (["one"], "one"),
        (["one", "two"], "[one, two]"),
        (["one", "one"], "one"),
        (["one", "two", "one"], "[one, two]"),
    ],
)
def test_aggregate_message(messages: list[str], aggregate: str) -> None:
    assert aggregate_message(messages) == aggregate
