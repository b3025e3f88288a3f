"""events.k8s.io/v1 Event validation, rule by rule (upstream's ``ValidateEventCreate`` and
``ValidateEventUpdate`` for that version), through the events.k8s.io strategy: Events in the
served shape, causes on core's field names. core/v1 Events keep their looser rules."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from apiserver.registry.resources.event import EventStrategy
from apiserver.registry.resources.eventsv1 import EventsV1Strategy
from tests.registry.helpers import causes

STRATEGY = EventsV1Strategy()
POD = {"kind": "Pod", "namespace": "default", "name": "web", "uid": "p-1", "apiVersion": "v1"}
NODE = {"kind": "Node", "name": "n1"}
LAST_SEEN = "2024-05-01T11:59:00.000000Z"
QUALIFIED = (
    "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end "
    "with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for "
    "validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"
)
REQUIRED, INVALID = "FieldValueRequired", "FieldValueInvalid"
ATTEMPTED = "Invalid value: core.ObjectReference{{{}}}: field is immutable"


def event(namespace: str = "default", **fields: Any) -> dict[str, Any]:
    """A valid events.k8s.io/v1 Event; ``None`` drops a field."""
    obj: dict[str, Any] = {
        "apiVersion": "events.k8s.io/v1",
        "kind": "Event",
        "metadata": {"name": "web.1", "namespace": namespace},
        "eventTime": "2024-05-01T11:58:00.000000Z",
        "reportingController": "default-scheduler",
        "reportingInstance": "default-scheduler-cp",
        "action": "Binding",
        "reason": "Scheduled",
        "regarding": POD,
        "note": "Successfully assigned default/web to n1",
        "type": "Normal",
    }
    obj.update(fields)
    return {key: value for key, value in obj.items() if value is not None}


def unset(field: str) -> tuple[str, str, str]:
    return (INVALID, field, 'Invalid value: "": needs to be unset')


def at_most(field: str, limit: int) -> tuple[str, str, str]:
    return (INVALID, field, f'Invalid value: "": can have at most {limit} characters')


MISMATCH = (INVALID, "involvedObject.namespace", 'Invalid value: "": does not match event.namespace')

CREATE_CASES: list[tuple[str, dict[str, Any], list[tuple[str, str, str]]]] = [
    ("valid", event(), []),
    ("qualified controller with a prefix", event(reportingController="example.com/sched"), []),
    ("eventTime missing", event(eventTime=None), [(REQUIRED, "eventTime", "Required value")]),
    ("eventTime zero", event(eventTime="0001-01-01T00:00:00Z"), [(REQUIRED, "eventTime", "Required value")]),
    (
        "reportingController missing",
        event(reportingController=None),
        [
            (REQUIRED, "reportingController", "Required value"),
            (INVALID, "reportingController", 'Invalid value: "": name part must be non-empty'),
            (INVALID, "reportingController", f'Invalid value: "": {QUALIFIED}'),
        ],
    ),
    (
        "reportingController not a qualified name",
        event(reportingController="my scheduler"),
        [(INVALID, "reportingController", f'Invalid value: "my scheduler": {QUALIFIED}')],
    ),
    (
        "reportingInstance missing",
        event(reportingInstance=None),
        [(REQUIRED, "reportingInstance", "Required value")],
    ),
    ("reportingInstance of 128 bytes", event(reportingInstance="i" * 128), []),
    (
        "reportingInstance over 128 bytes",
        event(reportingInstance="é" * 65),
        [at_most("reportingInstance", 128)],
    ),
    ("action missing", event(action=None), [(REQUIRED, "action", "Required value")]),
    ("action too long", event(action="a" * 129), [at_most("action", 128)]),
    ("reason missing", event(reason=None), [(REQUIRED, "reason", "Required value")]),
    ("reason too long", event(reason="r" * 129), [at_most("reason", 128)]),
    ("note of 1024 bytes", event(note="n" * 1024), []),
    ("note too long", event(note="n" * 1025), [at_most("message", 1024)]),
    ("no note", event(note=None), []),
    ("type missing", event(type=None), [(INVALID, "type", 'Invalid value: "": has invalid value: ')]),
    ("type unknown", event(type="Info"), [(INVALID, "type", 'Invalid value: "": has invalid value: Info')]),
    ("Warning type", event(type="Warning"), []),
    ("series", event(series={"count": 2, "lastObservedTime": LAST_SEEN}), []),
    (
        "series of one",
        event(series={"count": 1, "lastObservedTime": LAST_SEEN}),
        [(INVALID, "series.count", 'Invalid value: "": should be at least 2')],
    ),
    (
        "empty series",
        event(series={}),
        [
            (INVALID, "series.count", 'Invalid value: "": should be at least 2'),
            (REQUIRED, "series.lastObservedTime", "Required value"),
        ],
    ),
    (
        "series never observed",
        event(series={"count": 3}),
        [(REQUIRED, "series.lastObservedTime", "Required value")],
    ),
    ("deprecated first timestamp", event(deprecatedFirstTimestamp=LAST_SEEN), [unset("firstTimestamp")]),
    ("deprecated last timestamp", event(deprecatedLastTimestamp=LAST_SEEN), [unset("lastTimestamp")]),
    ("deprecated count", event(deprecatedCount=3), [unset("count")]),
    ("deprecated source component", event(deprecatedSource={"component": "kubelet"}), [unset("source")]),
    ("deprecated source host", event(deprecatedSource={"host": "n1"}), [unset("source")]),
    ("empty deprecated source", event(deprecatedSource={}), []),
    ("cluster-scoped object from default", event(regarding=NODE), []),
    ("cluster-scoped object from kube-system", event("kube-system", regarding=NODE), []),
    ("cluster-scoped object from elsewhere", event("team-a", regarding=NODE), [MISMATCH]),
    ("object in another namespace, with eventTime", event(regarding={**POD, "namespace": "db"}), []),
    (
        "object in another namespace, without eventTime",
        event(eventTime=None, regarding={**POD, "namespace": "db"}),
        [
            (INVALID, "involvedObject.namespace", 'Invalid value: "db": does not match event.namespace'),
            (REQUIRED, "eventTime", "Required value"),
        ],
    ),
    (
        "without eventTime only the namespace is checked",
        event(eventTime=None, reportingController=None, action=None, reason=None, note="n" * 2000),
        [(REQUIRED, "eventTime", "Required value")],
    ),
]


@pytest.mark.parametrize(("obj", "expected"), [c[1:] for c in CREATE_CASES], ids=[c[0] for c in CREATE_CASES])
def test_create(obj: dict[str, Any], expected: list[tuple[str, str, str]]) -> None:
    assert causes(STRATEGY.validate(copy.deepcopy(obj))) == expected


def immutable(field: str, shown: str) -> tuple[str, str, str]:
    return (INVALID, field, f"Invalid value: {shown}: field is immutable")


REFERENCE = (
    'Kind:"Pod", Namespace:"default", Name:"{}", UID:"p-1", APIVersion:"v1", ResourceVersion:"", FieldPath:""'
)
UPDATE_CASES: list[tuple[str, dict[str, Any], list[tuple[str, str, str]]]] = [
    ("labels only", {"metadata": {"name": "web.1", "namespace": "default", "labels": {"a": "b"}}}, []),
    ("same eventTime, other spelling", {"eventTime": "2024-05-01T11:58:00Z"}, []),
    ("a valid series", {"series": {"count": 2, "lastObservedTime": LAST_SEEN}}, []),
    (
        "an invalid series",
        {"series": {"count": 1, "lastObservedTime": LAST_SEEN}},
        [(INVALID, "series.count", 'Invalid value: "": should be at least 2')],
    ),
    (
        "regarding",
        {"regarding": {**POD, "name": "db"}},
        [(INVALID, "involvedObject", ATTEMPTED.format(REFERENCE.format("db")))],
    ),
    ("reason (listed twice upstream, one message)", {"reason": "Moved"}, [immutable("reason", '"Moved"')]),
    ("note", {"note": "changed"}, [immutable("message", '"changed"')]),
    ("note removed", {"note": None}, [immutable("message", '""')]),
    (
        "deprecated source",
        {"deprecatedSource": {"component": "kubelet"}},
        [immutable("source", 'core.EventSource{Component:"kubelet", Host:""}')],
    ),
    (
        "deprecated first timestamp",
        {"deprecatedFirstTimestamp": "2024-05-01T11:00:00Z"},
        [immutable("firstTimestamp", "2024-05-01 11:00:00 +0000 UTC")],
    ),
    (
        "deprecated last timestamp",
        {"deprecatedLastTimestamp": "2024-05-01T11:00:00Z"},
        [immutable("lastTimestamp", "2024-05-01 11:00:00 +0000 UTC")],
    ),
    ("deprecated count", {"deprecatedCount": 2}, [immutable("count", "2")]),
    ("type", {"type": "Warning"}, [immutable("type", '"Warning"')]),
    (
        "eventTime",
        {"eventTime": "2024-05-01T11:59:00.500000Z"},
        [immutable("eventTime", "2024-05-01 11:59:00.5 +0000 UTC")],
    ),
    ("action", {"action": "Preempting"}, [immutable("action", '"Preempting"')]),
    (
        "related added",
        {"related": {**POD, "name": "owner"}},
        [(INVALID, "related", ATTEMPTED.format(REFERENCE.format("owner")))],
    ),
    (
        "reportingController",
        {"reportingController": "kubelet"},
        [immutable("reportingController", '"kubelet"')],
    ),
    ("reportingInstance", {"reportingInstance": "other"}, [immutable("reportingInstance", '"other"')]),
    (
        "the new event still passes the legacy checks",
        {"reportingInstance": None},
        [(REQUIRED, "reportingInstance", "Required value"), immutable("reportingInstance", '""')],
    ),
]


@pytest.mark.parametrize(
    ("change", "expected"), [c[1:] for c in UPDATE_CASES], ids=[c[0] for c in UPDATE_CASES]
)
def test_update(change: dict[str, Any], expected: list[tuple[str, str, str]]) -> None:
    old = event()
    new = {k: v for k, v in {**copy.deepcopy(old), **change}.items() if v is not None}
    assert causes(STRATEGY.validate_update(new, old)) == expected


def test_related_removed_shows_null() -> None:
    old = event(related={**POD, "name": "owner"})
    new = event()
    assert causes(STRATEGY.validate_update(new, old)) == [immutable("related", "null")]


def test_an_invalid_series_that_did_not_change_passes() -> None:
    old = event(series={"count": 1})
    assert causes(STRATEGY.validate_update(copy.deepcopy(old), old)) == []


def test_a_core_event_updated_through_events_keeps_its_fields() -> None:
    old = event(
        eventTime=None,
        reportingController=None,
        reportingInstance=None,
        action=None,
        deprecatedSource={"component": "kubelet", "host": "n1"},
        deprecatedCount=3,
    )
    new = copy.deepcopy(old)
    new["metadata"]["labels"] = {"seen": "yes"}
    assert causes(STRATEGY.validate_update(new, old)) == []


def test_core_events_keep_their_own_rules() -> None:
    core = {
        "apiVersion": "v1",
        "kind": "Event",
        "metadata": {"name": "web.1", "namespace": "default"},
        "involvedObject": POD,
        "reason": "Pulled",
        "count": 2,
        "source": {"component": "kubelet"},
    }
    assert EventStrategy().validate(core) == []
    assert EventStrategy().validate_update({**core, "message": "changed"}, core) == []
