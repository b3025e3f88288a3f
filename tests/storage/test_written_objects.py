"""``KVObjectStorage`` hands a write's own object to the decoder of that write's event (the
watch cache) and never to another event, even one carrying equal bytes."""

from __future__ import annotations

from apiserver.storage.kv import Event, EventType, KeyValue
from apiserver.storage.memory import MemoryKV
from apiserver.storage.objects import KVObjectStorage, encode
from minikube_py.api.unstructured import Object

KEY = "/registry/configmaps/default/c"


def cm(value: str) -> Object:
    return {"metadata": {"name": "c", "namespace": "default", "uid": "u-1"}, "data": {"k": value}}


async def collect_events(kv: MemoryKV, start: int, count: int) -> list[Event]:
    events: list[Event] = []
    watch = kv.watch("/registry/configmaps/", start)
    try:
        async for batch in watch:
            events += batch.events
            if len(events) >= count:
                break
    finally:
        await watch.close()
    return events


async def test_the_cache_shares_a_created_object_and_sees_its_resource_version() -> None:
    kv = MemoryKV()
    storage = KVObjectStorage(kv)
    created = await storage.create(KEY, cm("a"))
    (event,) = await collect_events(kv, 1, 1)
    cached = storage.decode_event(event)
    assert cached is created
    assert (
        cached["metadata"]["resourceVersion"] == str(event.revision) == created["metadata"]["resourceVersion"]
    )


async def test_an_update_back_to_earlier_bytes_never_lends_its_object_to_the_earlier_event() -> None:
    kv = MemoryKV()
    storage = KVObjectStorage(kv)
    await storage.create(KEY, cm("a"))

    def to(value: str):  # type: ignore[no-untyped-def]
        async def update(current: Object) -> Object:
            current["data"]["k"] = value
            return current

        return update

    await storage.guaranteed_update(KEY, to("b"))
    third = await storage.guaranteed_update(KEY, to("a"))  # the same bytes as the create
    first, second, last = await collect_events(kv, 1, 3)
    assert first.kv.value == last.kv.value
    decoded_first = storage.decode_event(first)  # the memo holds the third write: not its event
    assert decoded_first is not third
    assert decoded_first["metadata"]["resourceVersion"] == str(first.revision)
    assert third["metadata"]["resourceVersion"] == str(last.revision)
    assert storage.decode_event(second)["data"] == {"k": "b"}
    assert storage.decode_event(last) is third


async def test_a_failed_write_leaves_nothing_behind() -> None:
    kv = MemoryKV()
    storage = KVObjectStorage(kv)
    await storage.create(KEY, cm("a"))
    (event,) = await collect_events(kv, 1, 1)
    storage.decode_event(event)
    try:
        await storage.create(KEY, cm("a"))
    except Exception:
        pass
    else:
        raise AssertionError("a second create of the same key must fail")
    fresh = storage.decode_event(Event(EventType.PUT, KeyValue(KEY, encode(cm("a")), 1, 1), None))
    assert fresh["metadata"]["resourceVersion"] == "1"
    assert fresh == {**cm("a"), "metadata": {**cm("a")["metadata"], "resourceVersion": "1"}}
