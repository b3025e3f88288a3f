"""List and watch query parameters -> storage ``ListOptions`` with a selector predicate."""

from __future__ import annotations

import contextlib
from collections.abc import Callable

from apiserver.registry.strategy import Strategy
from apiserver.request.queryparams import ConversionError, to_bool, to_int64, to_uint64
from apiserver.storage.interface import ListOptions, Predicate
from minikube_py.api import errors
from minikube_py.api.field_errors import FieldError, invalid
from minikube_py.api.fields import parse_field_selector
from minikube_py.api.labels import SelectorError, parse_label_selector
from minikube_py.api.unstructured import Object

MATCHES = ("", "NotOlderThan", "Exact")


def list_options(query: dict[str, str], strategy: Strategy) -> ListOptions:
    """Upstream's list/watch parameters, validated like upstream (400 on nonsense)."""
    rv, match, token = (
        query.get("resourceVersion", ""),
        query.get("resourceVersionMatch", ""),
        query.get("continue", ""),
    )
    if match not in MATCHES:
        raise errors.bad_request(f'resourceVersionMatch: Unsupported value: "{match}"')
    if match and not rv:
        raise errors.bad_request("resourceVersionMatch is forbidden unless resourceVersion is provided")
    if token and rv not in ("", "0"):
        raise errors.bad_request("specifying resource version is not allowed when using continue")
    problem = resource_version_error(rv)
    if problem is not None:  # upstream's storage.ValidateListOptions (a watch checks first)
        raise errors.bad_request(f"invalid resource version: {problem}")
    return ListOptions(
        resource_version=rv,
        resource_version_match=match,
        limit=_limit(query.get("limit")),
        continue_token=token,
        predicate=selector_predicate(query, strategy),
        exact_match=_exact_match(query),
        allow_bookmarks=_optional_bool(query.get("allowWatchBookmarks")) or False,
        send_initial_events=_optional_bool(query.get("sendInitialEvents")),
    )


def check_watch_resource_version(query: dict[str, str], resource: str, group: str) -> None:
    """A watch's unparsable ``resourceVersion``: upstream's cacher refuses it and the registry
    reports it as 422 Invalid on the resource (``InterpretWatchError``), named by a
    ``metadata.name`` field selector when there is one."""
    problem = resource_version_error(query.get("resourceVersion", ""))
    if problem is None:
        return
    name = ""
    with contextlib.suppress(SelectorError):  # a bad selector gets its own 400 later
        name = parse_field_selector(query.get("fieldSelector", "")).exact_match("metadata.name") or ""
    cause = errors.Cause(problem.reason, problem.body(), problem.field)
    raise errors.invalid(resource, name, group, [cause])


def selector_predicate(query: dict[str, str], strategy: Strategy) -> Predicate | None:
    try:
        labels = parse_label_selector(query.get("labelSelector", ""))
        fields = parse_field_selector(query.get("fieldSelector", ""))
    except SelectorError as err:
        raise errors.bad_request(str(err)) from None
    allowed = set(strategy.selectable_fields({"metadata": {"name": "", "namespace": ""}}))
    for field, _op, _value in fields.requirements:
        if field not in allowed:
            raise errors.bad_request(f"field label not supported: {field}")
    if labels.empty and not fields.requirements:
        return None

    def matches(obj: Object) -> bool:
        if not labels.empty and not labels.matches(obj.get("metadata", {}).get("labels") or {}):
            return False
        return not fields.requirements or fields.matches(strategy.selectable_fields(obj))

    return matches


def _exact_match(query: dict[str, str]) -> Callable[[str], str | None] | None:
    """The field selector's ``exact_match`` (``selector_predicate`` has validated it)."""
    if not query.get("fieldSelector"):
        return None
    return parse_field_selector(query["fieldSelector"]).exact_match


def resource_version_error(rv: str) -> FieldError | None:
    """Upstream's ``APIObjectVersioner.ParseResourceVersion``: unset ("" or "0") or a uint64;
    anything else is this ``resourceVersion`` field error (``strconv.ParseUint``'s words)."""
    if rv in ("", "0"):
        return None
    try:
        to_uint64(rv)
    except ConversionError as err:
        return invalid("resourceVersion", rv, str(err))
    return None


def _limit(value: str | None) -> int:
    """``limit`` as upstream's conversion reads it (``strconv.ParseInt``, a 400 when it fails);
    zero or negative means no paging, as upstream's storage takes only a positive limit."""
    if value is None:
        return 0
    try:
        return max(to_int64(value), 0)
    except ConversionError as err:
        raise errors.bad_request(str(err)) from None


def _optional_bool(value: str | None) -> bool | None:
    """A boolean parameter as upstream's ``Convert_Slice_string_To_Pointer_bool``: None when
    absent, else true unless ``0`` or ``false`` (any case); ``True`` and the empty string are true."""
    return None if value is None else to_bool(value)
