"""Background compaction of any KV, upstream-style.

Every ``interval`` seconds the compactor compacts to the revision it saw at its previous tick,
so at least one interval of history (and never fewer than ``min_window`` revisions) stays
available to watchers and to paged lists. Several apiservers may compact the same etcd: a
compaction to an older revision than the current compaction point is a no-op.
"""

from __future__ import annotations

import asyncio
import logging

from apiserver.storage.errors import StorageError
from apiserver.storage.kv import KV

log = logging.getLogger("apiserver.compactor")


class Compactor:
    def __init__(self, kv: KV, *, interval: float = 300.0, min_window: int = 1000) -> None:
        self.kv = kv
        self.interval = interval
        self.min_window = min_window
        self._previous = 0

    async def compact_once(self) -> int:
        """Compact to the previous tick's revision (bounded by the window); return the target
        (0 when nothing was compacted)."""
        current = await self.kv.current_revision()
        target = min(self._previous, current - self.min_window)
        self._previous = current
        if target <= await self.kv.compacted_revision():
            return 0
        await self.kv.compact(target)
        log.info("compacted to revision %d (current %d)", target, current)
        return target

    async def run(self) -> None:
        while True:
            await asyncio.sleep(self.interval)
            try:
                await self.compact_once()
            except StorageError as err:
                log.warning("compaction failed: %s", err)
