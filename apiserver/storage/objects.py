"""``KVObjectStorage``: the ``ObjectStorage`` contract straight over a ``KV``.

Objects are stored as compact JSON without ``metadata.resourceVersion`` (the mod revision is
the resourceVersion), so ``etcdctl get --prefix /registry/`` shows readable objects. Keys are
upstream's: ``/registry/<resource>/<namespace>/<name>`` (see ``keys``).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass

from apiserver.storage.errors import (
    CompactedError,
    ConflictError,
    InvalidObjectError,
    KeyExistsError,
    KeyNotFoundError,
    TooLargeResourceVersionError,
)
from apiserver.storage.interface import (
    ADDED,
    DELETED,
    ERROR,
    MODIFIED,
    ListOptions,
    ObjectList,
    ObjectWatch,
    Preconditions,
    Predicate,
    TryUpdate,
    ValidateDeletion,
    WatchEvent,
    bookmark,
    decode_continue,
    encode_continue,
    parse_resource_version,
    status_expired,
)
from apiserver.storage.kv import KV, Event, EventType, KeyValue, Watch
from minikube_py import jsonutil
from minikube_py.api.unstructured import Object

EXPIRED_LIST = "The resourceVersion for the provided list is too old."
EXPIRED_CONTINUE = (
    "The provided continue parameter is too old to display a consistent list result. "
    "You can start a new list without the continue parameter, or use the continue token in "
    "this response to retrieve the remainder of the results. Continuing with the provided "
    "token results in an inconsistent list - objects that were created, modified, or deleted "
    "between the time the first chunk was returned and now may show up in the list."
)


def encode(obj: Object) -> bytes:
    meta = obj.get("metadata")
    if isinstance(meta, dict) and "resourceVersion" in meta:
        obj = {**obj, "metadata": {k: v for k, v in meta.items() if k != "resourceVersion"}}
    return jsonutil.dumps(obj)


def decode(kv: KeyValue, revision: int | None = None) -> Object:
    """The stored object with ``metadata.resourceVersion`` set (to ``revision`` if given)."""
    try:
        obj: Object = jsonutil.loads(kv.value)
    except ValueError as err:
        raise InvalidObjectError(f"stored object at {kv.key} is not JSON: {err}") from err
    obj.setdefault("metadata", {})["resourceVersion"] = str(revision or kv.mod_revision)
    return obj


WRITTEN_MEMO = 1024  # written objects kept for the cache to pick up (per resource)


@dataclass(slots=True)
class _Written:
    data: bytes
    obj: Object
    expected: int | None  # the revision the write replaced (None: a create)

    def made(self, event: Event) -> bool:
        """Whether ``event`` is this write's own event (same bytes, same predecessor)."""
        if not (self.data is event.kv.value or self.data == event.kv.value):
            return False
        if self.expected is None:
            return event.prev_kv is None
        return event.prev_kv is not None and event.prev_kv.mod_revision == self.expected


class KVObjectStorage:
    """See ``apiserver.storage.interface`` for the contract.

    A successful write keeps its object for whoever decodes the write's own event
    (``decode_event``: the watch cache) instead of parsing the bytes just encoded: the writer's
    caller and the cache then share one object, which is sound because stored and cached
    objects are never mutated (everyone copies first). An event is matched to a write by its
    bytes and its predecessor revision, so a later write with equal bytes never borrows an
    earlier write's object."""

    def __init__(self, kv: KV) -> None:
        self.kv = kv
        self._written: dict[str, _Written] = {}

    def decode_event(self, event: Event) -> Object:
        """``decode(event.kv)``, or the object the write that made ``event`` stored."""
        written = self._written.get(event.kv.key)
        if written is not None and written.made(event):
            del self._written[event.kv.key]
            written.obj["metadata"]["resourceVersion"] = str(event.kv.mod_revision)
            return written.obj
        return decode(event.kv)

    async def _write(self, key: str, obj: Object, data: bytes, expected: int | None) -> Object:
        """Create (``expected`` None) or compare-and-swap ``obj`` encoded as ``data``; returns
        ``obj`` itself with its new resourceVersion."""
        obj.setdefault("metadata", {})
        written = _Written(data, obj, expected)
        self._written.pop(key, None)
        self._written[key] = written  # before the write: some stores publish its event first
        if len(self._written) > WRITTEN_MEMO:
            del self._written[next(iter(self._written))]
        try:
            if expected is None:
                revision = await self.kv.create(key, data)
            else:
                revision = await self.kv.update(key, data, expected)
        except BaseException:
            if self._written.get(key) is written:
                del self._written[key]
            raise
        obj["metadata"]["resourceVersion"] = str(revision)
        return obj

    async def current_resource_version(self) -> int:
        return await self.kv.current_revision()

    async def create(self, key: str, obj: Object) -> Object:
        if obj.get("metadata", {}).get("resourceVersion"):
            raise InvalidObjectError("resourceVersion should not be set on objects to be created")
        return await self._write(key, obj, encode(obj), None)

    async def get(self, key: str, *, resource_version: str = "") -> Object:
        minimum = parse_resource_version(resource_version)
        kv = await self.kv.get(key)
        if minimum:
            await self._require_revision(minimum)
        if kv is None:
            raise KeyNotFoundError(f"key not found: {key}", key=key)
        return decode(kv)

    async def list(self, prefix: str, opts: ListOptions) -> ObjectList:
        start, revision = prefix, 0
        if opts.continue_token:
            start, revision = decode_continue(opts.continue_token, prefix)
        elif self._exact(opts):
            revision = parse_resource_version(opts.resource_version)
        minimum = 0 if revision else parse_resource_version(opts.resource_version)
        try:
            page = await self._read_page(prefix, start, revision, opts)
        except CompactedError as err:
            message = EXPIRED_CONTINUE if opts.continue_token else EXPIRED_LIST
            raise CompactedError(message, compact_revision=err.compact_revision) from err
        if minimum and int(page.resource_version) < minimum:
            raise TooLargeResourceVersionError(minimum, int(page.resource_version))
        return page

    async def snapshot(self, prefix: str) -> tuple[dict[str, Object], int]:
        """Every object under ``prefix`` by key, read at one revision (pages of 500)."""
        objects: dict[str, Object] = {}
        start, revision = prefix, 0
        while True:
            result = await self.kv.range(prefix, start=start, limit=500, revision=revision)
            revision = result.revision
            objects.update((kv.key, decode(kv)) for kv in result.kvs)
            if not result.more:
                return objects, revision
            start = result.kvs[-1].key + "\x00"

    async def _read_page(self, prefix: str, start: str, revision: int, opts: ListOptions) -> ObjectList:
        """Read until ``limit`` objects match the predicate (all when limit is 0)."""
        items: list[Object] = []
        while True:
            want = opts.limit - len(items) if opts.limit > 0 else 0
            result = await self.kv.range(prefix, start=start, limit=want, revision=revision, count=True)
            revision = result.revision
            for kv in result.kvs:
                obj = decode(kv)
                if opts.predicate is None or opts.predicate(obj):
                    items.append(obj)
            if not result.more or (opts.limit > 0 and len(items) >= opts.limit):
                break
            start = result.kvs[-1].key + "\x00"
        if not result.more:
            return ObjectList(items, str(revision))
        token = encode_continue(result.kvs[-1].key, prefix, revision)
        remaining = None if opts.predicate else result.count - len(result.kvs)
        return ObjectList(items, str(revision), token, remaining)

    @staticmethod
    def _exact(opts: ListOptions) -> bool:
        if opts.resource_version in ("", "0"):
            return False
        return opts.resource_version_match == "Exact" or (
            opts.resource_version_match == "" and opts.limit > 0
        )

    async def _require_revision(self, minimum: int) -> None:
        current = await self.kv.current_revision()
        if current < minimum:
            raise TooLargeResourceVersionError(minimum, current)

    async def guaranteed_update(
        self,
        key: str,
        try_update: TryUpdate,
        *,
        preconditions: Preconditions | None = None,
        ignore_not_found: bool = False,
    ) -> Object:
        while True:
            kv = await self.kv.get(key)
            if kv is None and not ignore_not_found:
                raise KeyNotFoundError(f"key not found: {key}", key=key)
            current = decode(kv) if kv is not None else None
            if preconditions is not None and current is not None:
                preconditions.check(key, current)
            updated = await try_update(None if kv is None else decode(kv))  # a private copy
            data = encode(updated)
            if kv is not None and data == kv.value:
                assert current is not None
                return current
            try:
                return await self._write(key, updated, data, None if kv is None else kv.mod_revision)
            except (ConflictError, KeyExistsError, KeyNotFoundError):
                continue  # someone else won the race: re-read and re-apply

    async def delete(
        self,
        key: str,
        *,
        preconditions: Preconditions | None = None,
        validate_deletion: ValidateDeletion | None = None,
    ) -> Object:
        while True:
            kv = await self.kv.get(key)
            if kv is None:
                raise KeyNotFoundError(f"key not found: {key}", key=key)
            current = decode(kv)
            if preconditions is not None:
                preconditions.check(key, current)
            if validate_deletion is not None:
                await validate_deletion(current)
            try:
                revision, _ = await self.kv.delete(key, kv.mod_revision)
            except ConflictError:
                continue
            return decode(kv, revision)

    def watch(self, prefix: str, opts: ListOptions) -> ObjectWatch:
        return _KVWatch(self, prefix, opts)


class _KVWatch:
    """A watch straight on the KV (upstream's etcd3 watcher)."""

    def __init__(self, storage: KVObjectStorage, prefix: str, opts: ListOptions) -> None:
        self._storage = storage
        self._prefix = prefix
        self._opts = opts
        self._kv_watch: Watch | None = None

    def __aiter__(self) -> AsyncIterator[WatchEvent]:
        return self._events()

    def ready(self, limit: int) -> list[WatchEvent]:
        return []  # events come batch by batch from the KV; one per write is fine here

    async def close(self) -> None:
        if self._kv_watch is not None:
            await self._kv_watch.close()

    async def _events(self) -> AsyncIterator[WatchEvent]:
        opts = self._opts
        match: Predicate = opts.predicate or (lambda _obj: True)
        revision = parse_resource_version(opts.resource_version)
        if opts.send_initial_events or (revision == 0 and opts.send_initial_events is None):
            initial = await self._storage.list(
                self._prefix, ListOptions(resource_version=opts.resource_version, predicate=opts.predicate)
            )
            for obj in initial.items:
                yield WatchEvent(ADDED, obj)
            revision = int(initial.resource_version)
            if opts.send_initial_events and opts.allow_bookmarks:
                yield bookmark(revision, initial_events_end=True)
        elif revision == 0:
            revision = await self._storage.current_resource_version()
        self._kv_watch = watch = self._storage.kv.watch(self._prefix, revision + 1)
        try:
            async for batch in watch:
                for event in batch.events:
                    if (out := _convert(event, match)) is not None:
                        yield out
                if not batch.events and opts.allow_bookmarks:
                    yield bookmark(batch.revision)
        except CompactedError as err:
            message = f"too old resource version: {revision} ({err.compact_revision})"
            yield WatchEvent(ERROR, status_expired(message))
        finally:
            await watch.close()


def _convert(event: Event, match: Predicate) -> WatchEvent | None:
    """KV event -> watch event, applying predicate transitions like upstream: an object that
    stops matching is DELETED with its previous state at the event's revision."""
    new = decode(event.kv) if event.type is EventType.PUT else None
    old = decode(event.prev_kv, event.revision) if event.prev_kv is not None else None
    new_ok = new is not None and match(new)
    old_ok = old is not None and match(old)
    if new is not None and new_ok:
        return WatchEvent(MODIFIED if old_ok else ADDED, new)
    if old is not None and old_ok:
        return WatchEvent(DELETED, old)
    return None
