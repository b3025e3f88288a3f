"""events.k8s.io/v1 Event <-> core/v1 Event (upstream's ``pkg/apis/events/v1`` conversion), the
events.k8s.io strategy (upstream's field labels, core's Table) and both versions over one storage
in the real ``GenericStore``."""

from __future__ import annotations

import asyncio
import copy
from collections.abc import AsyncIterator
from typing import Any

import pytest

from apiserver.registry.conversion import ConvertedWatch
from apiserver.registry.resources.event import EventStrategy
from apiserver.registry.resources.eventconversion import event_from_core, event_to_core
from apiserver.registry.resources.eventsv1 import EventsV1Strategy
from apiserver.registry.store import DeleteOptions, GenericStore
from apiserver.registry.strategy import Strategy
from apiserver.storage.interface import (
    ADDED,
    DELETED,
    ERROR,
    MODIFIED,
    ListOptions,
    WatchEvent,
    bookmark,
    status_expired,
)
from apiserver.storage.memory import MemoryKV
from apiserver.storage.objects import KVObjectStorage
from minikube_py.api.builtin import builtin_scheme
from tests.registry.helpers import NOW, ago, meta

POD = {"kind": "Pod", "namespace": "default", "name": "web", "uid": "p-1", "apiVersion": "v1"}
NODE = {"kind": "Node", "name": "n1", "uid": "n-1"}
SERIES = {"count": 4, "lastObservedTime": "2024-05-01T11:59:00.000000Z"}
SOURCE = {"component": "kubelet", "host": "n1"}

# (case, events.k8s.io/v1 form, core/v1 form): each converts into the other
CASES: list[tuple[str, dict[str, Any], dict[str, Any]]] = [
    (
        "new-style event with every field",
        {
            "apiVersion": "events.k8s.io/v1",
            "kind": "Event",
            "metadata": meta("web.1"),
            "eventTime": "2024-05-01T11:58:00.000000Z",
            "series": SERIES,
            "reportingController": "default-scheduler",
            "reportingInstance": "default-scheduler-cp",
            "action": "Binding",
            "reason": "Scheduled",
            "regarding": POD,
            "related": NODE,
            "note": "Successfully assigned default/web to n1",
            "type": "Normal",
            "deprecatedSource": SOURCE,
            "deprecatedFirstTimestamp": "2024-05-01T11:00:00Z",
            "deprecatedLastTimestamp": "2024-05-01T11:59:00Z",
            "deprecatedCount": 4,
        },
        {
            "apiVersion": "v1",
            "kind": "Event",
            "metadata": meta("web.1"),
            "eventTime": "2024-05-01T11:58:00.000000Z",
            "series": SERIES,
            "reportingComponent": "default-scheduler",
            "reportingInstance": "default-scheduler-cp",
            "action": "Binding",
            "reason": "Scheduled",
            "involvedObject": POD,
            "related": NODE,
            "message": "Successfully assigned default/web to n1",
            "type": "Normal",
            "source": SOURCE,
            "firstTimestamp": "2024-05-01T11:00:00Z",
            "lastTimestamp": "2024-05-01T11:59:00Z",
            "count": 4,
        },
    ),
    (
        "old-style (core recorder) event",
        {
            "apiVersion": "events.k8s.io/v1",
            "kind": "Event",
            "metadata": meta("web.2"),
            "regarding": {**POD, "fieldPath": "spec.containers{app}"},
            "reason": "Pulled",
            "note": "Container image already present",
            "type": "Normal",
            "deprecatedSource": SOURCE,
            "deprecatedFirstTimestamp": "2024-05-01T11:00:00Z",
            "deprecatedLastTimestamp": "2024-05-01T11:00:00Z",
            "deprecatedCount": 1,
        },
        {
            "apiVersion": "v1",
            "kind": "Event",
            "metadata": meta("web.2"),
            "involvedObject": {**POD, "fieldPath": "spec.containers{app}"},
            "reason": "Pulled",
            "message": "Container image already present",
            "type": "Normal",
            "source": SOURCE,
            "firstTimestamp": "2024-05-01T11:00:00Z",
            "lastTimestamp": "2024-05-01T11:00:00Z",
            "count": 1,
        },
    ),
    (
        "absent fields stay absent; unknown fields are kept",
        {"apiVersion": "events.k8s.io/v1", "kind": "Event", "metadata": meta("bare"), "extra": {"a": 1}},
        {"apiVersion": "v1", "kind": "Event", "metadata": meta("bare"), "extra": {"a": 1}},
    ),
    (
        "a missing apiVersion and kind are set",
        {"apiVersion": "events.k8s.io/v1", "kind": "Event", "metadata": meta("x"), "note": "n"},
        {"apiVersion": "v1", "kind": "Event", "metadata": meta("x"), "message": "n"},
    ),
]
IDS = [case for case, _, _ in CASES]


@pytest.mark.parametrize(("case", "events", "core"), CASES, ids=IDS)
def test_events_to_core(case: str, events: dict[str, Any], core: dict[str, Any]) -> None:
    given = copy.deepcopy(events)
    if case.startswith("a missing"):
        del given["apiVersion"], given["kind"]
    before = copy.deepcopy(given)
    assert event_to_core(given) == core
    assert given == before  # the input is not modified


@pytest.mark.parametrize(("case", "events", "core"), CASES, ids=IDS)
def test_core_to_events(case: str, events: dict[str, Any], core: dict[str, Any]) -> None:
    given = copy.deepcopy(core)
    if case.startswith("a missing"):
        del given["apiVersion"], given["kind"]
    before = copy.deepcopy(given)
    assert event_from_core(given) == events
    assert given == before  # shared (cached) objects are read, never modified


@pytest.mark.parametrize(("case", "events", "core"), CASES, ids=IDS)
def test_round_trips_are_equal(case: str, events: dict[str, Any], core: dict[str, Any]) -> None:
    assert event_from_core(event_to_core(events)) == events
    assert event_to_core(event_from_core(core)) == core


# the other version's field names are unknown fields: dropped, never shadowing the converted field
FOREIGN: list[tuple[str, dict[str, Any], dict[str, Any]]] = [
    (
        "core names in an events.k8s.io Event",
        {"metadata": meta("f"), "note": "new", "message": "stale", "involvedObject": NODE, "count": 9},
        {"apiVersion": "v1", "kind": "Event", "metadata": meta("f"), "message": "new"},
    ),
    (
        "events.k8s.io names in a core Event",
        {"metadata": meta("f"), "message": "new", "note": "stale", "regarding": NODE, "deprecatedCount": 9},
        {"apiVersion": "events.k8s.io/v1", "kind": "Event", "metadata": meta("f"), "note": "new"},
    ),
]


@pytest.mark.parametrize(("case", "given", "expected"), FOREIGN, ids=[c for c, _, _ in FOREIGN])
def test_other_versions_fields_are_dropped(
    case: str, given: dict[str, Any], expected: dict[str, Any]
) -> None:
    convert = event_to_core if case.startswith("core names") else event_from_core
    assert convert(given) == expected


# the strategy


def stored_event(**fields: Any) -> dict[str, Any]:
    """A core/v1 Event as storage holds it."""
    return {"apiVersion": "v1", "kind": "Event", "metadata": meta("web.1"), **fields}


def test_field_labels_are_upstreams() -> None:
    """regarding.*, reportingController, reason, source, type and metadata.*; none of core's
    own names (involvedObject.*, reportingComponent)."""
    obj = stored_event(involvedObject=POD, reason="Scheduled", type="Normal", reportingComponent="sched")
    assert EventsV1Strategy().selectable_fields(obj) == {
        "metadata.name": "web.1",
        "metadata.namespace": "default",
        "regarding.kind": "Pod",
        "regarding.namespace": "default",
        "regarding.name": "web",
        "regarding.uid": "p-1",
        "regarding.apiVersion": "v1",
        "regarding.resourceVersion": "",
        "regarding.fieldPath": "",
        "reason": "Scheduled",
        "reportingController": "sched",
        "source": "sched",  # the source's component, else the reporting controller (as core)
        "type": "Normal",
    }


def test_source_label_prefers_the_deprecated_source() -> None:
    fields = EventsV1Strategy().selectable_fields(stored_event(source=SOURCE, reportingComponent="x"))
    assert (fields["source"], fields["reportingController"]) == ("kubelet", "x")


@pytest.mark.parametrize(("_case", "events", "core"), CASES, ids=IDS)
def test_table_is_cores(_case: str, events: dict[str, Any], core: dict[str, Any]) -> None:
    strategy = EventsV1Strategy()
    assert strategy.table_columns() == EventStrategy().table_columns()
    assert strategy.table_cells(events, NOW) == EventStrategy().table_cells(core, NOW)


def test_table_row_of_a_new_style_event() -> None:
    obj = {"metadata": meta("web.1"), "eventTime": ago(minutes=2), "regarding": POD, "note": "hi "}
    assert EventsV1Strategy().table_cells({**obj, "reportingController": "sched"}, NOW)[:7] == [
        "2m",
        "",
        "",
        "pod/web",
        "",
        "sched",
        "hi",
    ]


# both versions over one storage, in the real GenericStore


@pytest.fixture
async def kv() -> AsyncIterator[MemoryKV]:
    store = MemoryKV()
    yield store
    await store.close()


def store_for(kv: MemoryKV, group: str, strategy: Strategy) -> GenericStore:
    rt = next(rt for rt in builtin_scheme() if rt.resource == "events" and rt.group == group)
    return GenericStore(rt, strategy, KVObjectStorage(kv))


@pytest.fixture
def stores(kv: MemoryKV) -> tuple[GenericStore, GenericStore]:
    """(events.k8s.io/v1, core/v1) stores over the same storage."""
    return store_for(kv, "events.k8s.io", EventsV1Strategy()), store_for(kv, "", EventStrategy())


# what events.k8s.io/v1 requires of a new Event (``eventvalidation``)
REPORTED = {
    "eventTime": "2024-05-01T11:58:00.000000Z",
    "reportingController": "s",
    "reportingInstance": "s-1",
    "action": "Acting",
    "reason": "Because",
    "type": "Normal",
}


def new_event(name: str = "web.1", **fields: Any) -> dict[str, Any]:
    return {"apiVersion": "events.k8s.io/v1", "kind": "Event", "metadata": {"name": name}, **fields}


def reported(name: str = "web.1", **fields: Any) -> dict[str, Any]:
    """A new Event that events.k8s.io/v1 accepts."""
    return new_event(name, **{**REPORTED, **fields})


async def test_created_as_events_stored_and_read_as_core(kv: MemoryKV, stores: Any) -> None:
    events, core = stores
    created = await events.create("default", reported(regarding=POD, note="hi", reportingController="s"))
    assert (created["apiVersion"], created["note"], created["regarding"]) == ("events.k8s.io/v1", "hi", POD)
    raw = await KVObjectStorage(kv).get("/registry/events/default/web.1")
    assert raw["apiVersion"] == "v1" and raw["message"] == "hi" and "note" not in raw
    read = await core.get("default", "web.1")
    assert (read["message"], read["involvedObject"], read["reportingComponent"]) == ("hi", POD, "s")
    assert read["metadata"]["resourceVersion"] == created["metadata"]["resourceVersion"]


async def test_updates_see_and_return_the_served_shape(stores: Any) -> None:
    events, core = stores
    await core.create("default", {"metadata": {"name": "web.1"}, "message": "one", "count": 1})
    seen: list[dict[str, Any]] = []

    def mutate(obj: dict[str, Any]) -> dict[str, Any]:
        seen.append(copy.deepcopy(obj))
        return {**obj, "series": SERIES}  # the note and the count are immutable here

    updated = await events.update("default", "web.1", mutate)
    assert seen[0]["note"] == "one" and "message" not in seen[0]
    assert (updated["note"], updated["deprecatedCount"], updated["series"]) == ("one", 1, SERIES)
    assert (await core.get("default", "web.1"))["series"] == SERIES


async def test_an_unchanged_update_writes_nothing(stores: Any) -> None:
    events, _core = stores
    created = await events.create("default", reported(note="same", regarding=POD))
    again = await events.update("default", "web.1", lambda obj: obj)
    assert again["metadata"]["resourceVersion"] == created["metadata"]["resourceVersion"]


async def test_dry_runs_and_delete_answer_in_the_served_shape(stores: Any) -> None:
    events, core = stores
    preview = await events.create("default", reported(note="n"), dry_run=True)
    assert preview["note"] == "n" and "message" not in preview
    await core.create("default", {"metadata": {"name": "web.1"}, "message": "m"})
    changed = await events.update("default", "web.1", lambda o: {**o, "series": SERIES}, dry_run=True)
    assert changed["note"] == "m" and changed["series"] == SERIES
    assert "series" not in await core.get("default", "web.1")
    deleted = await events.delete("default", "web.1", DeleteOptions())
    assert deleted["note"] == "m" and deleted["apiVersion"] == "events.k8s.io/v1"


async def test_list_items_are_converted(stores: Any) -> None:
    events, core = stores
    await core.create("default", {"metadata": {"name": "a"}, "message": "from core"})
    await events.create("default", reported("b", note="from events"))
    assert [o.get("note") for o in (await events.list("default", ListOptions())).items] == [
        "from core",
        "from events",
    ]
    assert [o.get("message") for o in (await core.list("default", ListOptions())).items] == [
        "from core",
        "from events",
    ]


async def test_watch_events_are_converted(stores: Any) -> None:
    events, core = stores
    start = await core.create("default", {"metadata": {"name": "first"}, "message": "m0"})
    watch = events.watch("default", ListOptions(resource_version=start["metadata"]["resourceVersion"]))
    await core.create("default", {"metadata": {"name": "web.1"}, "message": "m1"})
    await core.update("default", "web.1", lambda o: {**o, "message": "m2"})
    await core.delete("default", "web.1", DeleteOptions())
    got: list[WatchEvent] = []
    async with asyncio.timeout(5):
        async for event in watch:
            got.append(event)
            if len(got) == 3:
                break
    await watch.close()
    assert [(e.type, e.object.get("note"), e.object["apiVersion"]) for e in got] == [
        (ADDED, "m1", "events.k8s.io/v1"),
        (MODIFIED, "m2", "events.k8s.io/v1"),
        (DELETED, "m2", "events.k8s.io/v1"),
    ]
    assert not any("message" in e.object for e in got)


class FakeWatch:
    def __init__(self, events: list[WatchEvent]) -> None:
        self.events, self.closed = events, False

    async def __aiter__(self) -> AsyncIterator[WatchEvent]:
        for event in self.events:
            yield event

    async def close(self) -> None:
        self.closed = True


async def test_converted_watch_leaves_bookmarks_and_errors_alone() -> None:
    mark, error = bookmark(7), WatchEvent(ERROR, status_expired("too old"))
    inner = FakeWatch([WatchEvent(ADDED, stored_event(message="m")), mark, error])
    watch = ConvertedWatch(inner, event_from_core)
    got = [event async for event in watch]
    assert got[0] == WatchEvent(ADDED, {**new_event(note="m"), "metadata": meta("web.1")})
    assert got[1] is mark and got[2] is error
    await watch.close()
    assert inner.closed


def test_core_store_has_no_conversion() -> None:
    """Kinds served in their stored shape keep the hot path: no conversion hook at all."""
    assert EventStrategy.conversion is None and Strategy.conversion is None
