"""Recording core/v1 Events about objects (client-go ``tools/record``), best effort.

``EventRecorder.event`` never blocks and never raises: it stamps the Event and puts it in a
bounded buffer (``BUFFER_SIZE``; when full the event is dropped and one line is logged).
``run`` drains the buffer and writes, in the owner's TaskGroup. Write failures are logged and
the event dropped: events are informational and must never slow or break a controller.

Before an Event is queued it passes upstream's ``EventCorrelator`` steps:

1. **spam filter**: a token bucket per (source, involved object, type, reason) holds
   ``SPAM_BURST`` (25) events and refills one every ``1 / SPAM_QPS`` (300) seconds; events
   beyond it are dropped (a controller creating 1,000 pods records 25 ``SuccessfulCreate``);
2. **aggregation of similar events**: once ``MAX_SIMILAR`` (10) events with the same
   (source, involved object, type, reason) but different messages arrive within
   ``AGGREGATE_WINDOW`` seconds, later ones become one Event whose message is
   ``(combined from similar events): <latest message>``;
3. **deduplication**: a repeat of the same Event (same correlation key) within
   ``AGGREGATE_WINDOW`` PATCHes the existing one (``count`` + 1, ``lastTimestamp``,
   ``message``) instead of creating another. If that Event is gone (404) a fresh one is created.

The caches are LRUs of ``CACHE_SIZE`` entries.
"""

from __future__ import annotations

import asyncio
import logging
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any, Protocol

from minikube_py.api.errors import ApiError
from minikube_py.api.timestamps import format_rfc3339
from minikube_py.api.unstructured import Object
from minikube_py.client.interfaces import MERGE_PATCH, Client
from minikube_py.client.resourcetypes import EVENTS
from minikube_py.clock import Clock, RealClock

NORMAL = "Normal"
WARNING = "Warning"
BUFFER_SIZE = 1000
AGGREGATE_WINDOW = 600.0  # seconds
CACHE_SIZE = 4096
SPAM_BURST = 25
SPAM_QPS = 1.0 / 300.0
MAX_SIMILAR = 10
COMBINED = "(combined from similar events): "

log = logging.getLogger("events")

CorrelationKey = tuple[str, ...]


@dataclass
class _Pending:
    event: Object
    at: float  # clock.now() when recorded
    key: CorrelationKey


@dataclass
class _Bucket:
    tokens: float
    at: float


@dataclass
class _Similar:
    messages: set[str]
    since: float


@dataclass
class _Written:
    namespace: str
    name: str
    count: int
    at: float


class Recorder(Protocol):
    """What components record Events through: the one recorder contract (upstream's
    ``record.EventRecorder``). ``EventRecorder`` writes them to the API; tests pass
    ``FakeRecorder`` or any object with this ``event``."""

    def event(self, obj: Object, event_type: str, reason: str, message: str) -> None: ...


class EventRecorder:
    """Records Events from ``component`` (``source.component``, ``reportingComponent``) on ``host``."""

    def __init__(self, client: Client, component: str, *, clock: Clock | None = None, host: str = "") -> None:
        self._client = client
        self._component = component
        self._host = host
        self._clock = clock or RealClock()
        self._buffer: asyncio.Queue[_Pending] = asyncio.Queue(maxsize=BUFFER_SIZE)
        self._written: OrderedDict[CorrelationKey, _Written] = OrderedDict()
        self._spam: OrderedDict[tuple[str, ...], _Bucket] = OrderedDict()
        self._similar: OrderedDict[tuple[str, ...], _Similar] = OrderedDict()
        self._last_stamp = 0

    def event(self, obj: Object, event_type: str, reason: str, message: str) -> None:
        """Queue an Event about ``obj``; ``event_type`` is ``"Normal"`` or ``"Warning"``."""
        try:
            if event_type not in (NORMAL, WARNING):
                log.error("unsupported event type %r, dropping %s event: %s", event_type, reason, message)
                return
            at = self._clock.now()
            key = self._similar_key(obj, event_type, reason)
            if not self._allow(key, at):
                return  # dropped before the Event is even built: most repeats end here
            event = self._make_event(obj, event_type, reason, message, at)
            self._buffer.put_nowait(_Pending(event, at, self._aggregate(event, key, at)))
        except asyncio.QueueFull:
            log.error("event buffer full, dropping %s %s event: %s", event_type, reason, message)
        except Exception as exc:  # never let an event break the caller
            log.error("unable to record %s event: %s", reason, exc)

    def _similar_key(self, obj: Object, event_type: str, reason: str) -> tuple[str, ...]:
        """Source, involved object, type and reason: what upstream's spam and aggregation keys
        share."""
        meta = obj.get("metadata") or {}
        return (
            self._component,
            self._host,
            str(obj.get("kind", "")),
            str(meta.get("namespace", "")),
            str(meta.get("name", "")),
            str(meta.get("uid", "")),
            str(obj.get("apiVersion", "")),
            event_type,
            reason,
        )

    def _allow(self, key: tuple[str, ...], at: float) -> bool:
        """The spam filter: take a token from the bucket of this event's source and object."""
        bucket = self._spam.get(key)
        if bucket is None:
            bucket = _Bucket(float(SPAM_BURST), at)
        bucket.tokens = min(float(SPAM_BURST), bucket.tokens + (at - bucket.at) * SPAM_QPS)
        bucket.at = at
        _remember(self._spam, key, bucket)
        if bucket.tokens < 1.0:
            return False
        bucket.tokens -= 1.0
        return True

    def _aggregate(self, event: Object, key: tuple[str, ...], at: float) -> CorrelationKey:
        """The correlation key of ``event`` (``key``: its similar-events key); past
        ``MAX_SIMILAR`` similar messages the event's message becomes the combined one and the
        key is shared by all of them."""
        similar = self._similar.get(key)
        if similar is None or at - similar.since > AGGREGATE_WINDOW:
            similar = _Similar(set(), at)
        similar.messages.add(event["message"])
        _remember(self._similar, key, similar)
        if len(similar.messages) < MAX_SIMILAR:
            return _correlation_key(event)
        event["message"] = COMBINED + event["message"]
        return (*key, COMBINED)

    async def run(self) -> None:
        """Write queued Events until cancelled."""
        while True:
            pending = await self._buffer.get()
            await self._write(pending)

    def _make_event(self, obj: Object, event_type: str, reason: str, message: str, at: float) -> Object:
        meta = obj.get("metadata") or {}
        involved = {
            "kind": obj.get("kind", ""),
            "namespace": meta.get("namespace", ""),
            "name": meta.get("name", ""),
            "uid": meta.get("uid", ""),
            "apiVersion": obj.get("apiVersion", ""),
            "resourceVersion": meta.get("resourceVersion", ""),
        }
        timestamp = format_rfc3339(at)
        source = {"component": self._component, "host": self._host}
        return {
            "apiVersion": "v1",
            "kind": "Event",
            "metadata": {
                "name": f"{involved['name']}.{self._unique_stamp(at):016x}",
                "namespace": involved["namespace"] or "default",
            },
            "involvedObject": {k: v for k, v in involved.items() if v},
            "reason": reason,
            "message": message,
            "type": event_type,
            "source": {k: v for k, v in source.items() if v},
            "firstTimestamp": timestamp,
            "lastTimestamp": timestamp,
            "count": 1,
            "reportingComponent": self._component,
            "reportingInstance": self._host,
        }

    def _unique_stamp(self, at: float) -> int:
        """Nanoseconds of ``at``, strictly increasing per recorder so names never collide."""
        stamp = max(int(at * 1e9), self._last_stamp + 1)
        self._last_stamp = stamp
        return stamp

    async def _write(self, pending: _Pending) -> None:
        event = pending.event
        key = pending.key
        previous = self._written.get(key)
        try:
            if previous is not None and pending.at - previous.at <= AGGREGATE_WINDOW:
                written = await self._patch(previous, event, pending.at)
            else:
                written = await self._create(event, pending.at)
        except Exception as exc:  # best effort: log and drop
            log.warning(
                "unable to write event %s/%s (%s %s): %s; dropped",
                event["metadata"]["namespace"],
                event["metadata"]["name"],
                event["type"],
                event["reason"],
                exc,
            )
            return
        _remember(self._written, key, written)

    async def _create(self, event: Object, at: float) -> _Written:
        meta = event["metadata"]
        await self._client.resource(EVENTS, meta["namespace"]).create(event)
        return _Written(meta["namespace"], meta["name"], 1, at)

    async def _patch(self, previous: _Written, event: Object, at: float) -> _Written:
        count = previous.count + 1
        body: dict[str, Any] = {
            "count": count,
            "lastTimestamp": event["lastTimestamp"],
            "message": event["message"],
        }
        events = self._client.resource(EVENTS, previous.namespace)
        try:
            await events.patch(previous.name, body, patch_type=MERGE_PATCH)
        except ApiError as exc:
            if exc.code != 404:
                raise
            return await self._create(event, at)  # the Event was deleted (or expired): start over
        return _Written(previous.namespace, previous.name, count, at)


class FakeRecorder:
    """An ``EventRecorder`` for unit tests: ``events`` holds ``"<type> <reason> <message>"``."""

    def __init__(self) -> None:
        self.events: list[str] = []

    def event(self, obj: Object, event_type: str, reason: str, message: str) -> None:
        self.events.append(f"{event_type} {reason} {message}")

    async def run(self) -> None:
        await asyncio.Event().wait()


def _remember(cache: OrderedDict[Any, Any], key: Any, value: Any) -> None:
    cache[key] = value
    cache.move_to_end(key)
    while len(cache) > CACHE_SIZE:
        cache.popitem(last=False)


def _correlation_key(event: Object) -> CorrelationKey:
    ref = event["involvedObject"]
    return (
        ref.get("kind", ""),
        ref.get("namespace", ""),
        ref.get("name", ""),
        ref.get("uid", ""),
        event["type"],
        event["reason"],
        event["message"],
    )
