"""CRI log files: format, rotation, tail/since/timestamps/limit and follow across rotation."""

from __future__ import annotations

import asyncio
import itertools
import os
from datetime import UTC, datetime
from pathlib import Path

from nodeagent import logs
from tests.waiting import eventually

BASE_NS = 1_800_000_000 * 1_000_000_000


def ticking_clock(step_ns: int = 1_000_000_000) -> itertools.count[int]:
    return itertools.count(BASE_NS, step_ns)


def test_records_are_cri_lines_with_partial_markers(tmp_path: Path) -> None:
    path = str(tmp_path / "c" / "0.log")
    clock = ticking_clock()
    writer = logs.CRILogWriter(path, max_line=5, clock_ns=lambda: next(clock))
    writer.write("stdout", b"hi\nabcdefgh\nto")
    writer.write("stderr", b"oops\n")
    writer.write("stdout", b"be\n")
    writer.close()
    assert Path(path).read_bytes().splitlines() == [
        b"2027-01-15T08:00:00.000000000Z stdout F hi",
        b"2027-01-15T08:00:01.000000000Z stdout P abcde",
        b"2027-01-15T08:00:02.000000000Z stdout F fgh",
        b"2027-01-15T08:00:03.000000000Z stderr F oops",
        b"2027-01-15T08:00:04.000000000Z stdout F tobe",
    ]
    assert logs.read_log(path) == b"hi\nabcdefgh\noops\ntobe\n"


def test_tail_since_timestamps_and_limit(tmp_path: Path) -> None:
    path = str(tmp_path / "0.log")
    clock = ticking_clock()
    writer = logs.CRILogWriter(path, clock_ns=lambda: next(clock))
    writer.write("stdout", b"one\ntwo\nthree\n")
    writer.close()
    assert logs.read_log(path, tail=2) == b"two\nthree\n"
    assert logs.read_log(path, tail=0) == b""
    since = datetime.fromtimestamp(BASE_NS / 1e9 + 1, UTC)
    assert logs.read_log(path, since=since) == b"two\nthree\n"
    assert logs.read_log(path, tail=1, timestamps=True) == b"2027-01-15T08:00:02.000000000Z three\n"
    assert logs.read_log(path, limit_bytes=5) == b"one\nt"
    assert logs.read_log(str(tmp_path / "missing.log")) == b""


def test_rotation_keeps_max_files_and_reads_oldest_first(tmp_path: Path) -> None:
    path = str(tmp_path / "0.log")
    clock = ticking_clock()
    writer = logs.CRILogWriter(path, max_size=100, max_files=3, clock_ns=lambda: next(clock))
    for i in range(10):
        writer.write("stdout", f"line-{i}\n".encode())
    writer.close()
    assert len(logs.rotated_files(path)) == 2
    assert all(os.path.getsize(p) <= 100 for p in [path, *logs.rotated_files(path)])
    lines = logs.read_log(path).splitlines()
    assert lines == [f"line-{i}".encode() for i in range(10 - len(lines), 10)]
    assert logs.read_log(path, tail=1) == b"line-9\n"


async def test_follow_yields_new_lines_across_rotation(tmp_path: Path) -> None:
    path = str(tmp_path / "0.log")
    writer = logs.CRILogWriter(path, max_size=200)
    writer.write("stdout", b"before\n")
    done = False
    received: list[bytes] = []

    async def consume() -> None:
        async for chunk in logs.follow_log(path, until=lambda: done, poll_interval=0.01):
            received.append(chunk)

    task = asyncio.create_task(consume())
    await eventually(lambda: b"".join(received) == b"before\n", "the follower to read the first line")
    for i in range(12):  # enough to rotate several times
        writer.write("stdout", f"after-{i:02d}-{'x' * 40}\n".encode())
        await asyncio.sleep(0.02)
    writer.close()
    await eventually(lambda: b"".join(received).count(b"\n") == 13, "the follower to read every line")
    done = True
    await asyncio.wait_for(task, 2)
    text = b"".join(received)
    assert logs.rotated_files(path)
    assert text.splitlines() == [b"before", *(f"after-{i:02d}-{'x' * 40}".encode() for i in range(12))]


async def test_follow_starts_with_the_tail(tmp_path: Path) -> None:
    path = str(tmp_path / "0.log")
    writer = logs.CRILogWriter(path)
    writer.write("stdout", b"a\nb\nc\n")
    writer.close()
    chunks = [c async for c in logs.follow_log(path, tail=1, until=lambda: True)]
    assert chunks == [b"c\n"]
