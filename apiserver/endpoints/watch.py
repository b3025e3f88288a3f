"""Watch streams: one JSON object per line (``{"type": ..., "object": ...}``), flushed as soon
as an event is there (with any others already waiting behind it: one write, see ``BATCH``).

``timeoutSeconds`` ends the stream cleanly (clients re-watch from their last RV); without it
(or with 0) the stream lasts a random time between ``--min-request-timeout`` and twice that,
as upstream spreads re-watches out; a client that goes away cancels it, and so does a stopping
server (``OpenWatches``). With a Table Accept each event carries a one-row Table, and only the
first one carries the column definitions (as upstream). BOOKMARK events are only sent when
asked for, and carry the resource's apiVersion and kind.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator
from typing import Any

from starlette.requests import Request
from starlette.responses import StreamingResponse

from apiserver.endpoints.encoding import ENCODED
from apiserver.endpoints.listing import check_watch_resource_version, list_options
from apiserver.endpoints.table import table_version, to_table
from apiserver.registry.store import GenericStore
from apiserver.request.queryparams import ConversionError, to_int64
from apiserver.serving import MIN_REQUEST_TIMEOUT
from apiserver.storage.errors import TooLargeResourceVersionError
from apiserver.storage.interface import BOOKMARK, ERROR, ObjectWatch, WatchEvent
from minikube_py.api import errors
from minikube_py.jsonutil import dumps, go_escape

# Events already waiting go out together, in one write, up to this many: a watcher that fell
# behind (a burst of creates) catches up instead of paying the response chain, TLS record and
# syscall per event (a 3,000-pod burst on simulated nodes: 32 -> 22 s to all Running,
# benchmarks/pod_startup.py); a lone event is still sent at once.
BATCH = 100


class OpenWatches:
    """Every watch being streamed, so a stopping server can end them at once (clients see a
    cleanly closed stream and re-watch elsewhere) instead of waiting out its grace period."""

    def __init__(self) -> None:
        self._watches: set[ObjectWatch] = set()
        self.closed = False

    def add(self, watch: ObjectWatch) -> bool:
        """Track ``watch``; False once ``close_all`` ran (a watch whose stream starts while the
        server stops must end too, not keep the stop waiting)."""
        self._watches.add(watch)
        return not self.closed

    def discard(self, watch: ObjectWatch) -> None:
        self._watches.discard(watch)

    async def close_all(self) -> None:
        self.closed = True
        for watch in list(self._watches):
            await watch.close()


def watch_response(
    request: Request,
    store: GenericStore,
    namespace: str,
    query: dict[str, str],
    watches: OpenWatches,
    min_request_timeout: float = MIN_REQUEST_TIMEOUT,
) -> StreamingResponse:
    check_watch_resource_version(query, store.rt.resource, store.rt.group)
    opts = list_options(query, store.strategy)
    timeout = watch_timeout(query.get("timeoutSeconds", ""), min_request_timeout)
    table = table_version(request.headers.get("accept", ""))
    include = query.get("includeObject", "")
    stream = _lines(store, namespace, opts, timeout, table, include, watches)
    return StreamingResponse(stream, media_type="application/json")


async def _lines(
    store: GenericStore,
    namespace: str,
    opts: Any,
    timeout: float,
    table: str | None,
    include: str,
    watches: OpenWatches,
) -> AsyncIterator[bytes]:
    watch = store.watch(namespace, opts)
    stopping = not watches.add(watch)
    first = True
    try:
        if stopping:
            return
        async with asyncio.timeout(timeout):
            try:
                async for event in watch:
                    lines = []
                    for each in (event, *watch.ready(BATCH - 1)):
                        lines.append(_encode(store, each, table, include, first))
                        first = first and each.type in (BOOKMARK, ERROR)
                    yield lines[0] if len(lines) == 1 else b"".join(lines)
            except TooLargeResourceVersionError as err:
                yield _encode(store, WatchEvent(ERROR, errors.timeout(str(err)).status()), None, "", False)
    except TimeoutError:
        return
    finally:
        watches.discard(watch)
        await watch.close()


def _encode(store: GenericStore, event: WatchEvent, table: str | None, include: str, first: bool) -> bytes:
    obj = event.object
    if event.type == BOOKMARK:
        obj = {"kind": store.rt.kind, "apiVersion": store.rt.api_version, **obj}
    elif event.type != ERROR:
        if table is None:  # the common case: the object's bytes are shared by every watcher
            encoded = ENCODED.encode(obj, store.rt.api_version, store.rt.kind)
            return b'{"type":"' + event.type.encode() + b'","object":' + encoded + b"}\n"
        if obj.get("kind") != store.rt.kind or obj.get("apiVersion") != store.rt.api_version:
            obj = {**obj, "apiVersion": store.rt.api_version, "kind": store.rt.kind}
        obj = to_table(store.strategy, [obj], version=table, include_object=include, with_columns=first)
    return go_escape(dumps({"type": event.type, "object": obj})) + b"\n"


def watch_timeout(value: str, min_request_timeout: float) -> float:
    """Seconds the watch lasts: ``timeoutSeconds`` when given and not 0, else upstream's
    ``minRequestTimeout * (1 + rand)``."""
    try:  # upstream converts it with strconv.ParseInt: a 400 with Go's error past int64
        seconds = to_int64(value) if value else 0
    except ConversionError as err:
        raise errors.bad_request(str(err)) from None
    if seconds < 0:
        raise errors.bad_request(f'timeoutSeconds: Invalid value: "{value}": must be a non-negative integer')
    return seconds or min_request_timeout * (1 + random.random())
