"""Validation of events.k8s.io/v1 Events, as upstream's ``ValidateEventCreate`` and
``ValidateEventUpdate`` (``pkg/apis/core/validation/events.go``) judge requests of that version.

Upstream validates the internal Event, so field paths are core's names: ``message`` (the note),
``involvedObject`` (regarding), ``reportingController`` (stored as ``reportingComponent``),
``source``, ``firstTimestamp``, ``lastTimestamp`` and ``count``; both functions take the Event
in the core/v1 shape. Every event first passes the legacy checks (``_legacy``): the namespace of
the involved object, and for events with an ``eventTime`` the reporting controller (a qualified
name), instance, action and reason, required and at most 128 bytes, with a note of at most 1024.

- create: also an ``eventTime``, a ``Normal`` or ``Warning`` type, a series of at least 2 with a
  ``lastObservedTime``, and none of the deprecated fields (timestamps, count, source).
- update: also the series (when it changed), and the fields in ``IMMUTABLE`` unchanged. Upstream
  lists ``reason`` twice; its message names it once (``ToAggregate`` drops repeats), so here it is
  one cause.

Zero values count as unset, as in Go: an absent string is ``""``, an absent timestamp is zero.
core/v1 requests skip all of this: their strategy keeps its own, looser rules.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from apiserver.registry.resources.podvalidation import IMMUTABLE as IMMUTABLE_MESSAGE
from apiserver.registry.resources.podvalidation import to_causes
from minikube_py.api.errors import Cause
from minikube_py.api.field_errors import FieldError, go_quote, invalid, required
from minikube_py.api.unstructured import Object
from minikube_py.api.validation import is_dns1123_subdomain, is_qualified_name

REPORTING_INSTANCE_LENGTH_LIMIT = 128
ACTION_LENGTH_LIMIT = 128
REASON_LENGTH_LIMIT = 128
NOTE_LENGTH_LIMIT = 1024
EVENT_TYPES = ("Normal", "Warning")
MISMATCH = "does not match event.namespace"
UNSET = "needs to be unset"
ZERO_TIME = datetime(1, 1, 1, tzinfo=UTC)
REFERENCE_FIELDS = (
    ("Kind", "kind"),
    ("Namespace", "namespace"),
    ("Name", "name"),
    ("UID", "uid"),
    ("APIVersion", "apiVersion"),
    ("ResourceVersion", "resourceVersion"),
    ("FieldPath", "fieldPath"),
)
SOURCE_FIELDS = (("Component", "component"), ("Host", "host"))
# the Go types of the immutable fields, as far as comparing and printing them goes
STRING, COUNT, TIME, SOURCE = "string", "int32", "time", "source"
REFERENCE, OPTIONAL_REFERENCE = "reference", "*reference"
STRUCTS: dict[str, tuple[str, tuple[tuple[str, str], ...]]] = {
    REFERENCE: ("core.ObjectReference", REFERENCE_FIELDS),
    OPTIONAL_REFERENCE: ("core.ObjectReference", REFERENCE_FIELDS),
    SOURCE: ("core.EventSource", SOURCE_FIELDS),
}
# (core/v1 field, upstream's path, its type), in upstream's order
IMMUTABLE = (
    ("involvedObject", "involvedObject", REFERENCE),
    ("reason", "reason", STRING),
    ("message", "message", STRING),
    ("source", "source", SOURCE),
    ("firstTimestamp", "firstTimestamp", TIME),
    ("lastTimestamp", "lastTimestamp", TIME),
    ("count", "count", COUNT),
    ("type", "type", STRING),
    ("eventTime", "eventTime", TIME),
    ("action", "action", STRING),
    ("related", "related", OPTIONAL_REFERENCE),
    ("reportingComponent", "reportingController", STRING),
    ("reportingInstance", "reportingInstance", STRING),
)


def validate_event_create(event: Object) -> list[Cause]:
    """Errors of an events.k8s.io/v1 Event to create (``event`` in the core/v1 shape)."""
    errs = _legacy(event) + _series(event)
    if _is_zero_time(event.get("eventTime")):
        errs.append(required("eventTime"))
    kind = _text(event, "type")
    if kind not in EVENT_TYPES:
        errs.append(invalid("type", "", f"has invalid value: {kind}"))
    for name in ("firstTimestamp", "lastTimestamp"):
        if not _is_zero_time(event.get(name)):
            errs.append(invalid(name, "", UNSET))
    if event.get("count") not in (None, 0):
        errs.append(invalid("count", "", UNSET))
    source = _object(event, "source")
    if source.get("component") or source.get("host"):
        errs.append(invalid("source", "", UNSET))
    return to_causes(errs)


def validate_event_update(new: Object, old: Object) -> list[Cause]:
    """Errors of an update of an events.k8s.io/v1 Event (both in the core/v1 shape)."""
    errs = _legacy(new)
    if _series_value(new) != _series_value(old):
        errs += _series(new)
    causes = to_causes(errs)
    for name, path, kind in IMMUTABLE:
        if _go_value(kind, new.get(name)) != _go_value(kind, old.get(name)):
            message = f"Invalid value: {_go_render(kind, new.get(name))}: {IMMUTABLE_MESSAGE}"
            causes.append(Cause("FieldValueInvalid", message, path))
    return causes


def _legacy(event: Object) -> list[FieldError]:
    """Upstream's ``legacyValidateEvent``: what every Event must satisfy."""
    errs: list[FieldError] = []
    namespace = str(_object(event, "metadata").get("namespace") or "")
    involved = str(_object(event, "involvedObject").get("namespace") or "")
    if _is_zero_time(event.get("eventTime")):
        if (not involved and namespace not in ("", "default")) or (involved and namespace != involved):
            errs.append(invalid("involvedObject.namespace", involved, MISMATCH))
    else:
        if not involved and namespace not in ("default", "kube-system"):
            errs.append(invalid("involvedObject.namespace", involved, MISMATCH))
        controller = _text(event, "reportingComponent")
        if not controller:
            errs.append(required("reportingController"))
        errs += [invalid("reportingController", controller, m) for m in is_qualified_name(controller)]
        errs += _bounded(
            "reportingInstance", _text(event, "reportingInstance"), REPORTING_INSTANCE_LENGTH_LIMIT
        )
        errs += _bounded("action", _text(event, "action"), ACTION_LENGTH_LIMIT)
        errs += _bounded("reason", _text(event, "reason"), REASON_LENGTH_LIMIT)
        if len(_text(event, "message").encode()) > NOTE_LENGTH_LIMIT:
            errs.append(invalid("message", "", _at_most(NOTE_LENGTH_LIMIT)))
    errs += [invalid("namespace", namespace, m) for m in is_dns1123_subdomain(namespace)]
    return errs


def _bounded(field: str, value: str, limit: int) -> list[FieldError]:
    """A required string of at most ``limit`` bytes (Go's ``len``)."""
    errs = [required(field)] if not value else []
    if len(value.encode()) > limit:
        errs.append(invalid(field, "", _at_most(limit)))
    return errs


def _at_most(limit: int) -> str:
    return f"can have at most {limit} characters"


def _series(event: Object) -> list[FieldError]:
    """Upstream's ``validateV1EventSeries``: a series counts at least 2 and was last observed."""
    series = event.get("series")
    if not isinstance(series, dict):
        return []
    errs = []
    count = series.get("count")
    if not isinstance(count, int) or count < 2:
        errs.append(invalid("series.count", "", "should be at least 2"))
    if _is_zero_time(series.get("lastObservedTime")):
        errs.append(required("series.lastObservedTime"))
    return errs


def _series_value(event: Object) -> tuple[Any, Any] | None:
    series = event.get("series")
    if not isinstance(series, dict):
        return None
    return series.get("count") or 0, _instant(series.get("lastObservedTime"))


# Go's zero values, and Go's rendering of a bad value (``field.Error``: strings quoted, numbers
# plain, timestamps by ``time.Time.String``, structs with ``%#v``, a nil pointer as ``null``).


def _text(event: Object, name: str) -> str:
    return str(event.get(name) or "")


def _object(event: Object, name: str) -> dict[str, Any]:
    value = event.get(name)
    return value if isinstance(value, dict) else {}


def _instant(value: Any) -> datetime | str:
    """A timestamp as an instant (the zero time when unset); unreadable text as itself."""
    if not value:
        return ZERO_TIME
    try:
        return datetime.fromisoformat(str(value).replace("Z", "+00:00")).astimezone(UTC)
    except ValueError:
        return str(value)


def _is_zero_time(value: Any) -> bool:
    return _instant(value) == ZERO_TIME


def _go_value(kind: str, value: Any) -> Any:
    """``value`` (a field of type ``kind``) as Go holds it, for ``reflect.DeepEqual``."""
    if kind == TIME:
        return _instant(value)
    if kind == COUNT:
        return value or 0
    if kind in STRUCTS:
        if value is None and kind == OPTIONAL_REFERENCE:
            return None
        obj = value if isinstance(value, dict) else {}
        return tuple(str(obj.get(name) or "") for _, name in STRUCTS[kind][1])
    return str(value or "")


def _go_render(kind: str, value: Any) -> str:
    """``value`` (a field of type ``kind``) as ``field.Invalid`` prints it."""
    held = _go_value(kind, value)
    if kind == TIME:
        return held if isinstance(held, str) else _go_time(held)
    if kind == COUNT:
        return str(held)
    if kind in STRUCTS:
        if held is None:
            return "null"
        type_name, fields = STRUCTS[kind]
        inner = ", ".join(f"{go}:{go_quote(v)}" for (go, _), v in zip(fields, held, strict=True))
        return f"{type_name}{{{inner}}}"
    return go_quote(held)


def _go_time(moment: datetime) -> str:
    fraction = f"{moment.microsecond:06d}".rstrip("0")
    return (
        f"{moment.year:04d}-{moment.month:02d}-{moment.day:02d} "
        f"{moment.hour:02d}:{moment.minute:02d}:{moment.second:02d}"
        f"{'.' + fraction if fraction else ''} +0000 UTC"
    )
