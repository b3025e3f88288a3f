"""Name, label and annotation validators with upstream's exact messages.

The ``is_*`` functions follow ``k8s.io/apimachinery/pkg/util/validation`` (and its ``api/validate/content``
package, which since 1.35 counts label key/value lengths in bytes): each returns a list of problem
descriptions, empty when the value is valid. ``validate_*`` build ``FieldError`` lists like
``ValidateObjectMeta``, ``ValidateLabels`` and ``ValidateAnnotations``.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Mapping
from typing import Literal

from minikube_py.api.field_errors import FieldError, forbidden, invalid, required, too_long

NameRule = Literal["subdomain", "label", "dns1035-label", "path-segment"]

DNS1123_LABEL_MAX_LENGTH = 63
DNS1123_SUBDOMAIN_MAX_LENGTH = 253
DNS1035_LABEL_MAX_LENGTH = 63
LABEL_KEY_NAME_MAX_LENGTH = 63
LABEL_VALUE_MAX_LENGTH = 63
TOTAL_ANNOTATION_SIZE_LIMIT_BYTES = 256 * 1024

_DNS1123_LABEL_FMT = "[a-z0-9]([-a-z0-9]*[a-z0-9])?"
_DNS1123_SUBDOMAIN_FMT = _DNS1123_LABEL_FMT + "(\\." + _DNS1123_LABEL_FMT + ")*"
_DNS1035_LABEL_FMT = "[a-z]([-a-z0-9]*[a-z0-9])?"
_LABEL_KEY_FMT = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]"
_LABEL_VALUE_FMT = "(" + _LABEL_KEY_FMT + ")?"

_DNS1123_LABEL_MSG = (
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', "
    "and must start and end with an alphanumeric character"
)
_DNS1123_SUBDOMAIN_MSG = (
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', "
    "and must start and end with an alphanumeric character"
)
_DNS1035_LABEL_MSG = (
    "a DNS-1035 label must consist of lower case alphanumeric characters or '-', "
    "start with an alphabetic character, and end with an alphanumeric character"
)
_LABEL_KEY_MSG = (
    "must consist of alphanumeric characters, '-', '_' or '.', "
    "and must start and end with an alphanumeric character"
)
_LABEL_VALUE_MSG = (
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', "
    "and must start and end with an alphanumeric character"
)

_DNS1123_LABEL_RE = re.compile(_DNS1123_LABEL_FMT)
_DNS1123_SUBDOMAIN_RE = re.compile(_DNS1123_SUBDOMAIN_FMT)
_DNS1035_LABEL_RE = re.compile(_DNS1035_LABEL_FMT)
_LABEL_KEY_RE = re.compile(_LABEL_KEY_FMT)
_LABEL_VALUE_RE = re.compile(_LABEL_VALUE_FMT)


def regex_error(message: str, pattern: str, *examples: str) -> str:
    """Upstream's ``RegexError``: the rule, some examples, and the regex itself."""
    if not examples:
        return f"{message} (regex used for validation is '{pattern}')"
    shown = " or ".join(f"'{e}', " for e in examples)
    return f"{message} (e.g. {shown}regex used for validation is '{pattern}')"


def max_len_error(length: int, unit: str = "characters") -> str:
    """Upstream's ``MaxLenError`` (``util/validation`` says characters, ``content`` says bytes)."""
    return f"must be no more than {length} {unit}"


def _size(value: str) -> int:
    """Go's ``len``: the UTF-8 byte count."""
    return len(value.encode("utf-8", "surrogatepass"))


def _matches(pattern: re.Pattern[str], value: str) -> bool:
    return pattern.fullmatch(value) is not None


def _subdomain(value: str, unit: str) -> list[str]:
    errs = []
    if _size(value) > DNS1123_SUBDOMAIN_MAX_LENGTH:
        errs.append(max_len_error(DNS1123_SUBDOMAIN_MAX_LENGTH, unit))
    if not _matches(_DNS1123_SUBDOMAIN_RE, value):
        errs.append(regex_error(_DNS1123_SUBDOMAIN_MSG, _DNS1123_SUBDOMAIN_FMT, "example.com"))
    return errs


def is_dns1123_subdomain(value: str) -> list[str]:
    """A lowercase RFC 1123 subdomain of at most 253 characters (most object names)."""
    return _subdomain(value, "characters")


def is_dns1123_label(value: str) -> list[str]:
    """A lowercase RFC 1123 label of at most 63 characters (namespace names)."""
    errs = []
    if _size(value) > DNS1123_LABEL_MAX_LENGTH:
        errs.append(max_len_error(DNS1123_LABEL_MAX_LENGTH))
    if not _matches(_DNS1123_LABEL_RE, value):
        if _matches(_DNS1123_SUBDOMAIN_RE, value):
            errs.append("must not contain dots")
        else:
            errs.append(regex_error(_DNS1123_LABEL_MSG, _DNS1123_LABEL_FMT, "my-name", "123-abc"))
    return errs


def is_dns1035_label(value: str) -> list[str]:
    """A DNS-1035 label of at most 63 characters: starts with a letter (service names)."""
    errs = []
    if _size(value) > DNS1035_LABEL_MAX_LENGTH:
        errs.append(max_len_error(DNS1035_LABEL_MAX_LENGTH))
    if not _matches(_DNS1035_LABEL_RE, value):
        errs.append(regex_error(_DNS1035_LABEL_MSG, _DNS1035_LABEL_FMT, "my-name", "abc-123"))
    return errs


def is_qualified_name(value: str) -> list[str]:
    """A label key (also annotation keys): ``[prefix/]name``, prefix a DNS subdomain, name ≤ 63 bytes."""
    return list(_qualified_name_errors(value))


# Keys and values repeat across objects (``app``, ``kubernetes.io/...``): checked once each.
@functools.lru_cache(maxsize=4096)
def _qualified_name_errors(value: str) -> tuple[str, ...]:
    return tuple(_check_qualified_name(value))


def _check_qualified_name(value: str) -> list[str]:
    parts = value.split("/")
    if len(parts) > 2:
        return [
            "a valid label key "
            + regex_error(_LABEL_KEY_MSG, _LABEL_KEY_FMT, "MyName", "my.name", "123-abc")
            + " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"
        ]
    errs: list[str] = []
    if len(parts) == 2:
        prefix = parts[0]
        if not prefix:
            errs.append("prefix part must be non-empty")
        else:
            errs += ["prefix part " + m for m in _subdomain(prefix, "bytes")]
    name = parts[-1]
    if not name:
        errs.append("name part must be non-empty")
    elif _size(name) > LABEL_KEY_NAME_MAX_LENGTH:
        errs.append("name part " + max_len_error(LABEL_KEY_NAME_MAX_LENGTH, "bytes"))
    if not _matches(_LABEL_KEY_RE, name):
        errs.append(
            "name part " + regex_error(_LABEL_KEY_MSG, _LABEL_KEY_FMT, "MyName", "my.name", "123-abc")
        )
    return errs


def is_valid_label_value(value: str) -> list[str]:
    """A label value: empty, or ≤ 63 bytes of alphanumerics, ``-``, ``_``, ``.`` (alphanumeric ends)."""
    return list(_label_value_errors(value))


@functools.lru_cache(maxsize=4096)
def _label_value_errors(value: str) -> tuple[str, ...]:
    errs = []
    if _size(value) > LABEL_VALUE_MAX_LENGTH:
        errs.append(max_len_error(LABEL_VALUE_MAX_LENGTH, "bytes"))
    if not _matches(_LABEL_VALUE_RE, value):
        errs.append(regex_error(_LABEL_VALUE_MSG, _LABEL_VALUE_FMT, "MyValue", "my_value", "12345"))
    return tuple(errs)


def is_path_segment_prefix(name: str) -> list[str]:
    """A name prefix that can be encoded as a URL path segment: no ``/`` or ``%``."""
    return [f"may not contain '{bad}'" for bad in ("/", "%") if bad in name]


def is_path_segment_name(name: str) -> list[str]:
    """A name usable as a URL path segment: not ``.`` or ``..``, no ``/`` or ``%`` (e.g. RBAC objects)."""
    if name in (".", ".."):
        return [f"may not be '{name}'"]
    return is_path_segment_prefix(name)


def _mask_trailing_dash(name: str) -> str:
    # upstream's maskTrailingDash, quirk included: it drops the last two characters, then appends "a"
    if len(name) > 1 and name.endswith("-"):
        return name[:-2] + "a"
    return name


# rule -> (check for a name, check for a generateName prefix)
_NAME_RULES: dict[str, tuple[Callable[[str], list[str]], Callable[[str], list[str]]]] = {
    "subdomain": (is_dns1123_subdomain, lambda n: is_dns1123_subdomain(_mask_trailing_dash(n))),
    "label": (is_dns1123_label, lambda n: is_dns1123_label(_mask_trailing_dash(n))),
    "dns1035-label": (is_dns1035_label, lambda n: is_dns1035_label(_mask_trailing_dash(n))),
    "path-segment": (is_path_segment_name, is_path_segment_prefix),
}


def validate_object_meta_name(
    name: str, *, namespaced_kind_rule: NameRule = "subdomain", prefix: bool = False
) -> list[str]:
    """Upstream's ``ValidateNameFunc`` for a kind: ``subdomain`` (most kinds), ``label`` (namespaces),
    ``dns1035-label`` (services), ``path-segment`` (RBAC and other path-segment names).

    ``prefix=True`` checks a ``generateName`` (a trailing ``-`` is allowed).
    """
    try:
        check_name, check_prefix = _NAME_RULES[namespaced_kind_rule]
    except KeyError:
        raise ValueError(f"unknown name rule {namespaced_kind_rule!r}") from None
    return check_prefix(name) if prefix else check_name(name)


def validate_object_meta_names(
    name: str, generate_name: str = "", *, rule: NameRule = "subdomain", path: str = "metadata"
) -> list[FieldError]:
    """The name part of upstream's ``ValidateObjectMeta``: generateName, then name (required)."""
    errs: list[FieldError] = []
    if generate_name:
        msgs = validate_object_meta_name(generate_name, namespaced_kind_rule=rule, prefix=True)
        errs = [invalid(f"{path}.generateName", generate_name, msg) for msg in msgs]
    if not name:
        return [*errs, required(f"{path}.name", "name or generateName is required")]
    msgs = validate_object_meta_name(name, namespaced_kind_rule=rule)
    return errs + [invalid(f"{path}.name", name, msg) for msg in msgs]


def validate_labels(labels: Mapping[str, str], path: str = "metadata.labels") -> list[FieldError]:
    """Upstream's ``ValidateLabels``: every key a qualified name, every value a label value."""
    errs: list[FieldError] = []
    for key, value in labels.items():
        errs += [invalid(path, key, msg) for msg in is_qualified_name(key)]
        errs += [invalid(path, value, msg) for msg in is_valid_label_value(value)]
    return errs


def validate_annotations(
    annotations: Mapping[str, str], path: str = "metadata.annotations"
) -> list[FieldError]:
    """Upstream's ``ValidateAnnotations``: keys are case-insensitive qualified names; ≤ 256 KiB in all."""
    errs: list[FieldError] = []
    for key in annotations:
        errs += [invalid(path, key, msg) for msg in is_qualified_name(key.lower())]
    total = sum(_size(k) + _size(v) for k, v in annotations.items())
    if total > TOTAL_ANNOTATION_SIZE_LIMIT_BYTES:
        errs.append(too_long(path, TOTAL_ANNOTATION_SIZE_LIMIT_BYTES))
    return errs


def namespace_errors(
    namespace: str, *, namespaced: bool, path: str = "metadata.namespace"
) -> list[FieldError]:
    """Upstream's namespace checks: required (and a DNS label) when namespaced, forbidden otherwise."""
    if not namespaced:
        return [forbidden(path, "not allowed on this type")] if namespace else []
    if not namespace:
        return [required(path, "")]
    return [invalid(path, namespace, msg) for msg in is_dns1123_label(namespace)]
