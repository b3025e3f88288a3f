"""Recording core/v1 Events about objects (client-go ``tools/record``), best effort.

``EventRecorder.event`` never blocks and never raises: it stamps the Event and puts it in a
bounded buffer (``BUFFER_SIZE``; when full the event is dropped and one line is logged).
``run`` drains the buffer and writes, in the owner's TaskGroup. Write failures are logged and
the event dropped: events are informational and must never slow or break a controller.

Aggregation is a simplified form of upstream's ``EventCorrelator``: a repeat of the same
(involved object, type, reason, message) within ``AGGREGATE_WINDOW`` seconds of its last write
PATCHes the existing Event (``count`` + 1, ``lastTimestamp``) instead of creating a new one.
There is no spam filter and no aggregation of similar events with different messages; the
correlation cache is an LRU of ``CACHE_SIZE`` entries. If the Event to patch is gone (404), a
fresh Event is created.
"""

from __future__ import annotations

import asyncio
import logging
from collections import OrderedDict
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from minikube_py.api.errors import ApiError
from minikube_py.client.interfaces import MERGE_PATCH, Client, Object
from minikube_py.client.resourcetypes import EVENTS
from minikube_py.clock import Clock, RealClock

NORMAL = "Normal"
WARNING = "Warning"
BUFFER_SIZE = 1000
AGGREGATE_WINDOW = 600.0  # seconds
CACHE_SIZE = 4096

log = logging.getLogger("events")

CorrelationKey = tuple[str, str, str, str, str, str, str]


@dataclass
class _Pending:
    event: Object
    at: float  # clock.now() when recorded


@dataclass
class _Written:
    namespace: str
    name: str
    count: int
    at: float


class EventRecorder:
    """Records Events from ``component`` (``source.component``, ``reportingComponent``) on ``host``."""

    def __init__(self, client: Client, component: str, *, clock: Clock | None = None, host: str = "") -> None:
        self._client = client
        self._component = component
        self._host = host
        self._clock = clock or RealClock()
        self._buffer: asyncio.Queue[_Pending] = asyncio.Queue(maxsize=BUFFER_SIZE)
        self._written: OrderedDict[CorrelationKey, _Written] = OrderedDict()
        self._last_stamp = 0

    def event(self, obj: Object, event_type: str, reason: str, message: str) -> None:
        """Queue an Event about ``obj``; ``event_type`` is ``"Normal"`` or ``"Warning"``."""
        try:
            if event_type not in (NORMAL, WARNING):
                log.error("unsupported event type %r, dropping %s event: %s", event_type, reason, message)
                return
            at = self._clock.now()
            self._buffer.put_nowait(_Pending(self._make_event(obj, event_type, reason, message, at), at))
        except asyncio.QueueFull:
            log.error("event buffer full, dropping %s %s event: %s", event_type, reason, message)
        except Exception as exc:  # never let an event break the caller
            log.error("unable to record %s event: %s", reason, exc)

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
        timestamp = _rfc3339(at)
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
        key = _correlation_key(event)
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
        self._written[key] = written
        self._written.move_to_end(key)
        while len(self._written) > CACHE_SIZE:
            self._written.popitem(last=False)

    async def _create(self, event: Object, at: float) -> _Written:
        meta = event["metadata"]
        await self._client.resource(EVENTS, meta["namespace"]).create(event)
        return _Written(meta["namespace"], meta["name"], 1, at)

    async def _patch(self, previous: _Written, event: Object, at: float) -> _Written:
        count = previous.count + 1
        body: dict[str, Any] = {"count": count, "lastTimestamp": event["lastTimestamp"]}
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


def _rfc3339(at: float) -> str:
    return datetime.fromtimestamp(at, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
