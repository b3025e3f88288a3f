"""``BackgroundWriter``: lines handed over without blocking, written by one thread.

The event loop only appends a line to a deque; the first line of a batch wakes the thread,
which lets lines accumulate for ``LINGER_SECONDS`` (or until ``BATCH_LINES`` are waiting),
then writes them in as few system calls as the rotation allows. So a request costs an append,
a slow disk never stalls one, and the thread takes the GIL once per batch, not per line.
Lines keep the order in which they were handed over. ``flush`` writes everything handed over
so far before returning (tests, shutdown); ``close`` flushes and stops the thread. The
process flushes every open writer at exit.
A write error (disk full) is logged once per kind and the lines are dropped: auditing never
fails requests (upstream's ``blocking`` log mode would block them; losing lines is the better
failure for a learning cluster, and is logged).
"""

from __future__ import annotations

import atexit
import logging
import threading
import weakref
from collections import deque
from typing import Protocol

logger = logging.getLogger("audit")

LINGER_SECONDS = 0.05
BATCH_LINES = 1000


class LineSink(Protocol):
    """Where lines end up: a ``RotatingFile`` or a stream adapter."""

    def write(self, data: bytes) -> None: ...

    def fits(self, length: int) -> bool: ...

    def close(self) -> None: ...


class BackgroundWriter:
    def __init__(self, out: LineSink) -> None:
        self.out = out
        self._lines: deque[bytes] = deque()
        self._wake = threading.Event()
        self._closing = threading.Event()
        self._lock = threading.Lock()  # held while writing: one writer at a time
        self._thread: threading.Thread | None = None
        self._closed = False
        self._errors: set[str] = set()
        _OPEN.add(self)

    def write(self, line: bytes) -> None:
        """Queue one line (ending in a newline). Any thread; never blocks on I/O."""
        lines = self._lines
        lines.append(line)
        if self._thread is None:
            self._start()
        if (len(lines) == 1 or len(lines) >= BATCH_LINES) and not self._wake.is_set():
            self._wake.set()

    def flush(self) -> None:
        """Write every line queued so far (blocks the calling thread)."""
        with self._lock:
            self._drain()

    def close(self) -> None:
        self._closed = True
        self._closing.set()
        self._wake.set()
        thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout=5)
        with self._lock:
            self._drain()
            self.out.close()
        _OPEN.discard(self)

    def _start(self) -> None:
        with self._lock:
            if self._thread is None and not self._closed:
                self._thread = threading.Thread(target=self._run, name="audit-writer", daemon=True)
                self._thread.start()

    def _run(self) -> None:
        while not self._closed:
            self._wake.wait()
            if len(self._lines) < BATCH_LINES:
                self._closing.wait(LINGER_SECONDS)
            self._wake.clear()
            with self._lock:
                self._drain()

    def _drain(self) -> None:
        lines, size = self._lines, 0
        chunk: list[bytes] = []
        while lines:
            line = lines.popleft()
            if chunk and not self.out.fits(size + len(line)):
                self._write(b"".join(chunk))
                chunk, size = [], 0
            chunk.append(line)
            size += len(line)
        if chunk:
            self._write(b"".join(chunk))

    def _write(self, data: bytes) -> None:
        try:
            self.out.write(data)
        except OSError as err:
            kind = type(err).__name__ + str(err.errno)
            if kind not in self._errors:
                self._errors.add(kind)
                logger.error("audit log write failed, events dropped: %s", err)


_OPEN: weakref.WeakSet[BackgroundWriter] = weakref.WeakSet()


@atexit.register
def _flush_all() -> None:
    for writer in list(_OPEN):
        writer.close()
