"""Container logs in the CRI log format: a writer with rotation and a reader for ``/containerLogs``.

One record per line: ``<RFC3339Nano timestamp> <stdout|stderr> <F|P> <text>\\n``. ``P`` marks a
partial line (a long line split by the writer, or text without a newline yet); the record that
ends the line has ``F``. A *logical line* is zero or more ``P`` records and one ``F`` record.

Rotation (upstream ``containerLogMaxSize``/``containerLogMaxFiles``): before a record would push
the file past ``max_size`` bytes, ``N.log`` is renamed to ``N.log.<UTC timestamp>`` and a new
``N.log`` is started; at most ``max_files`` files (current one included) are kept.

Reading API (used by the agent's HTTPS server):

- ``read_log(path, tail=None, since=None, timestamps=False, limit_bytes=None) -> bytes``: what
  ``kubectl logs`` prints, from the rotated files and the current one, oldest first.
- ``follow_log(path, ..., until=None)``: an async generator that yields the same first chunk
  and then every new logical line as it is written, across rotations, until ``until()`` is
  true and the file is drained (or the consumer stops iterating).
"""

from __future__ import annotations

import asyncio
import glob
import os
import time
from collections.abc import AsyncIterator, Callable, Iterable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import BinaryIO

MAX_SIZE = 10 * 1024 * 1024
MAX_FILES = 5


def format_timestamp(ns: int) -> str:
    """RFC3339Nano in UTC, always nine fractional digits (``2026-11-30T02:01:22.123456789Z``)."""
    seconds, frac = divmod(ns, 1_000_000_000)
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(seconds)) + f".{frac:09d}Z"


def parse_timestamp(text: str) -> int:
    """Nanoseconds since the epoch from an RFC3339(Nano) UTC timestamp."""
    head, _, frac = text.rstrip("Z").partition(".")
    seconds = int(datetime.strptime(head, "%Y-%m-%dT%H:%M:%S").replace(tzinfo=UTC).timestamp())
    return seconds * 1_000_000_000 + int((frac + "000000000")[:9])


@dataclass(frozen=True)
class LogRecord:
    timestamp: str
    stream: str  # stdout or stderr
    partial: bool
    content: bytes

    @property
    def timestamp_ns(self) -> int:
        return parse_timestamp(self.timestamp)


def parse_record(line: bytes) -> LogRecord | None:
    """One CRI record (without its newline); None for a malformed one."""
    parts = line.split(b" ", 3)
    if len(parts) < 3 or parts[2] not in (b"F", b"P"):
        return None
    content = parts[3] if len(parts) == 4 else b""
    return LogRecord(parts[0].decode(), parts[1].decode(), parts[2] == b"P", content)


class CRILogWriter:
    """Appends CRI records to ``path`` (directories are created), rotating as described above.

    ``write(stream, data)`` takes raw bytes from a pipe: complete lines become ``F`` records,
    lines longer than ``max_line`` are split into ``P`` records, and a trailing fragment is
    buffered per stream until its newline arrives or ``flush``/``close`` writes it as ``F``.
    """

    def __init__(
        self,
        path: str,
        max_size: int = MAX_SIZE,
        max_files: int = MAX_FILES,
        max_line: int = 16 * 1024,
        clock_ns: Callable[[], int] = time.time_ns,
    ) -> None:
        self.path = path
        self.max_size, self.max_files, self.max_line = max_size, max_files, max_line
        self._clock_ns = clock_ns
        self._pending: dict[str, bytes] = {}
        os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
        self._file = open(path, "ab")  # noqa: SIM115 (closed in close())

    def write(self, stream: str, data: bytes) -> None:
        buffer = self._pending.pop(stream, b"") + data
        *lines, rest = buffer.split(b"\n")
        for line in lines:
            self._write_line(stream, line)
        while len(rest) > self.max_line:
            self._write_record(stream, b"P", rest[: self.max_line])
            rest = rest[self.max_line :]
        if rest:
            self._pending[stream] = rest

    def _write_line(self, stream: str, line: bytes) -> None:
        while len(line) > self.max_line:
            self._write_record(stream, b"P", line[: self.max_line])
            line = line[self.max_line :]
        self._write_record(stream, b"F", line)

    def _write_record(self, stream: str, tag: bytes, text: bytes) -> None:
        record = b"%s %s %s %s\n" % (format_timestamp(self._clock_ns()).encode(), stream.encode(), tag, text)
        if self._file.tell() > 0 and self._file.tell() + len(record) > self.max_size:
            self.rotate()
        self._file.write(record)
        self._file.flush()

    def rotate(self) -> None:
        """Start a new file now, keeping at most ``max_files - 1`` rotated ones."""
        self._file.close()
        stamp = datetime.fromtimestamp(self._clock_ns() / 1e9, UTC).strftime("%Y%m%d-%H%M%S.%f")
        os.replace(self.path, f"{self.path}.{stamp}")
        for old in rotated_files(self.path)[: -(self.max_files - 1) or None]:
            os.unlink(old)
        self._file = open(self.path, "ab")  # noqa: SIM115

    def flush(self) -> None:
        """Write buffered fragments (a last line without newline) as ``F`` records."""
        for stream, rest in list(self._pending.items()):
            self._write_record(stream, b"F", rest)
        self._pending.clear()

    def close(self) -> None:
        self.flush()
        self._file.close()


def rotated_files(path: str) -> list[str]:
    """The rotated files of ``path``, oldest first."""
    return sorted(p for p in glob.glob(glob.escape(path) + ".*") if not p.endswith(".tmp"))


def _records(lines: Iterable[bytes]) -> Iterator[LogRecord]:
    for line in lines:
        record = parse_record(line.rstrip(b"\n"))
        if record is not None:
            yield record


def _logical_lines(records: Iterable[LogRecord]) -> Iterator[list[LogRecord]]:
    current: list[LogRecord] = []
    for record in records:
        current.append(record)
        if not record.partial:
            yield current
            current = []
    if current:
        yield current


def _render(line: list[LogRecord], timestamps: bool) -> bytes:
    text = b"".join(r.content for r in line) + (b"" if line[-1].partial else b"\n")
    return (line[0].timestamp.encode() + b" " + text) if timestamps else text


def _read_lines(path: str) -> Iterator[bytes]:
    for name in [*rotated_files(path), path]:
        try:
            with open(name, "rb") as f:
                yield from f
        except FileNotFoundError:
            continue


def _select(
    lines: Iterable[list[LogRecord]], tail: int | None, since: datetime | None
) -> list[list[LogRecord]]:
    since_ns = int(since.timestamp() * 1e9) if since is not None else None
    chosen = [ln for ln in lines if since_ns is None or ln[0].timestamp_ns >= since_ns]
    if tail is not None:
        chosen = chosen[-tail:] if tail > 0 else []
    return chosen


def read_log(
    path: str,
    tail: int | None = None,
    since: datetime | None = None,
    timestamps: bool = False,
    limit_bytes: int | None = None,
) -> bytes:
    """The container's output as ``kubectl logs`` prints it: logical lines (both streams,
    in order) from the rotated files and ``path``; ``tail`` keeps the last N lines, ``since``
    those written at or after it (aware datetime), ``timestamps`` prefixes each line with its
    RFC3339Nano time, ``limit_bytes`` truncates the result. A missing file reads as empty."""
    chosen = _select(_logical_lines(_records(_read_lines(path))), tail, since)
    data = b"".join(_render(line, timestamps) for line in chosen)
    return data[:limit_bytes] if limit_bytes is not None else data


async def follow_log(
    path: str,
    tail: int | None = None,
    since: datetime | None = None,
    timestamps: bool = False,
    until: Callable[[], bool] | None = None,
    poll_interval: float = 0.1,
) -> AsyncIterator[bytes]:
    """Yield what ``read_log`` returns (if anything), then each new logical line as it is
    written, following ``path`` across rotations. Ends once ``until()`` is true and the file
    has been drained; without ``until`` it runs until the consumer stops (``aclose``)."""
    handle, existing = _open_current(path)
    lines = [*_read_lines_rotated_only(path), *existing]
    first = _select(_logical_lines(_records(lines)), tail, since)
    if first:
        yield b"".join(_render(line, timestamps) for line in first)
    buffer, pending = b"", list[LogRecord]()
    while True:
        done = until is not None and until()
        chunk, handle = _read_more(path, handle)
        if chunk:
            buffer += chunk
            *complete, buffer = buffer.split(b"\n")
            for record in _records(complete):
                pending.append(record)
                if not record.partial:
                    yield _render(pending, timestamps)
                    pending = []
            continue
        if done:
            break
        await asyncio.sleep(poll_interval)
    if handle is not None:
        handle.close()


def _read_lines_rotated_only(path: str) -> Iterator[bytes]:
    for name in rotated_files(path):
        with open(name, "rb") as f:
            yield from f


def _open_current(path: str) -> tuple[BinaryIO | None, list[bytes]]:
    try:
        handle = open(path, "rb")  # noqa: SIM115 (closed by follow_log)
    except FileNotFoundError:
        return None, []
    data = handle.read()
    complete, _, rest = data.rpartition(b"\n")
    handle.seek(handle.tell() - len(rest))
    return handle, complete.split(b"\n") if complete else []


def _read_more(path: str, handle: BinaryIO | None) -> tuple[bytes, BinaryIO | None]:
    """New bytes of the followed file; after a rotation the old file is drained first, then
    the new ``path`` is opened from its start."""
    if handle is None:
        try:
            return b"", open(path, "rb")
        except FileNotFoundError:
            return b"", None
    data = handle.read()
    if data:
        return data, handle
    try:
        rotated = os.stat(path).st_ino != os.fstat(handle.fileno()).st_ino
    except FileNotFoundError:
        rotated = True
    if not rotated:
        return b"", handle
    handle.close()
    try:
        return b"", open(path, "rb")
    except FileNotFoundError:
        return b"", None
