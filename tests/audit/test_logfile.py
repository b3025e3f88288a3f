"""Size rotation with lumberjack's rules, and the background writer in front of it."""

from __future__ import annotations

import calendar
import gzip
import logging
import re
import threading
import time
from pathlib import Path

import pytest

from apiserver.audit.logfile import MEGABYTE, RotatingFile
from apiserver.audit.writer import BackgroundWriter

LINE = b"x" * (MEGABYTE // 4 - 1) + b"\n"  # four lines fill a 1 MiB file exactly
START = calendar.timegm((2024, 5, 1, 10, 0, 0, 0, 0, 0)) + 0.123


class Clock:
    def __init__(self) -> None:
        self.now = START

    def __call__(self) -> float:
        self.now += 1
        return self.now


def test_rotates_before_a_line_would_overflow(tmp_path: Path) -> None:
    log = RotatingFile(tmp_path / "audit.log", max_size_mb=1, clock=Clock())
    for _ in range(5):
        log.write(LINE)
    log.close()
    backups = sorted(p.name for p in tmp_path.iterdir() if p.name != "audit.log")
    assert backups == ["audit-2024-05-01T10-00-01.123.log"]
    assert (tmp_path / "audit-2024-05-01T10-00-01.123.log").read_bytes() == LINE * 4
    assert (tmp_path / "audit.log").read_bytes() == LINE
    assert (tmp_path / "audit.log").stat().st_mode & 0o777 == 0o600


def test_backup_names_are_lumberjacks(tmp_path: Path) -> None:
    name = RotatingFile(tmp_path / "kube-audit.json").backup_name(time.time()).name
    assert re.fullmatch(r"kube-audit-\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d\.\d{3}\.json", name)


def test_keeps_max_backups_newest(tmp_path: Path) -> None:
    log = RotatingFile(tmp_path / "audit.log", max_size_mb=1, max_backups=2, clock=Clock())
    for i in range(4 * 5):
        log.write(bytes([ord("a") + i // 4]) * (len(LINE) - 1) + b"\n")
    log.close()
    assert [path.name for _, path in log.backups()] == [
        "audit-2024-05-01T10-00-04.123.log",
        "audit-2024-05-01T10-00-03.123.log",
    ]
    assert log.backups()[0][1].read_bytes()[:1] == b"d"  # the newest backup holds the 4th file


def test_removes_backups_older_than_max_age(tmp_path: Path) -> None:
    old = tmp_path / "audit-2020-01-01T00-00-00.000.log"
    old.write_bytes(b"old\n")
    unrelated = tmp_path / "audit-notes.log"
    unrelated.write_bytes(b"mine\n")
    log = RotatingFile(tmp_path / "audit.log", max_size_mb=1, max_age_days=30, clock=Clock())
    for _ in range(5):
        log.write(LINE)
    assert not old.exists()
    assert unrelated.exists()
    assert len(log.backups()) == 1


def test_compresses_backups(tmp_path: Path) -> None:
    log = RotatingFile(tmp_path / "audit.log", max_size_mb=1, compress=True, clock=Clock())
    for _ in range(5):
        log.write(LINE)
    (backup,) = (path for _, path in log.backups())
    assert backup.name == "audit-2024-05-01T10-00-01.123.log.gz"
    assert gzip.decompress(backup.read_bytes()) == LINE * 4


def test_an_existing_full_file_is_rotated_on_open(tmp_path: Path) -> None:
    (tmp_path / "audit.log").write_bytes(LINE * 4)
    log = RotatingFile(tmp_path / "audit.log", max_size_mb=1, clock=Clock())
    log.write(b"new\n")
    assert (tmp_path / "audit.log").read_bytes() == b"new\n"
    assert len(log.backups()) == 1


def test_an_existing_file_with_room_is_appended_to(tmp_path: Path) -> None:
    (tmp_path / "audit.log").write_bytes(b"old\n")
    log = RotatingFile(tmp_path / "audit.log", max_size_mb=1)
    log.write(b"new\n")
    assert (tmp_path / "audit.log").read_bytes() == b"old\nnew\n"


def test_max_size_zero_never_rotates_and_oversized_lines_are_refused(tmp_path: Path) -> None:
    log = RotatingFile(tmp_path / "audit.log", max_size_mb=0)
    for _ in range(6):
        log.write(LINE)
    assert log.backups() == [] and (tmp_path / "audit.log").stat().st_size == 6 * len(LINE)
    limited = RotatingFile(tmp_path / "other.log", max_size_mb=1)
    with pytest.raises(OSError, match="exceeds maximum file size"):
        limited.write(b"x" * (MEGABYTE + 1))


def test_writer_keeps_order_across_threads_and_rotations(tmp_path: Path) -> None:
    log = RotatingFile(tmp_path / "audit.log", max_size_mb=1, clock=Clock())
    writer = BackgroundWriter(log)
    payload = b"y" * 5000

    def produce(tag: int) -> None:
        for i in range(200):
            writer.write(b"%d %d " % (tag, i) + payload + b"\n")

    threads = [threading.Thread(target=produce, args=(t,)) for t in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    writer.close()
    files = [path for _, path in reversed(log.backups())] + [tmp_path / "audit.log"]
    assert len(files) > 2
    lines = [line for path in files for line in path.read_bytes().splitlines()]
    assert all(path.stat().st_size <= MEGABYTE for path in files)
    for tag in range(3):
        seen = [int(line.split()[1]) for line in lines if line.split()[0] == str(tag).encode()]
        assert seen == list(range(200))


def test_writer_flush_makes_lines_visible(tmp_path: Path) -> None:
    writer = BackgroundWriter(RotatingFile(tmp_path / "audit.log"))
    for i in range(100):
        writer.write(b"%d\n" % i)
    writer.flush()
    assert (tmp_path / "audit.log").read_bytes().splitlines() == [b"%d" % i for i in range(100)]
    writer.close()


def test_write_errors_are_logged_once_and_dropped(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    writer = BackgroundWriter(RotatingFile(tmp_path / "audit.log", max_size_mb=1))
    with caplog.at_level(logging.ERROR, logger="audit"):
        writer.write(b"x" * (2 * MEGABYTE) + b"\n")
        writer.flush()
        writer.write(b"y" * (2 * MEGABYTE) + b"\n")
        writer.write(b"fine\n")
        writer.flush()
    assert [r.message for r in caplog.records if "audit log write failed" in r.message] == [
        f"audit log write failed, events dropped: write length {2 * MEGABYTE + 1} exceeds maximum file size "
        f"{MEGABYTE}"
    ]
    assert (tmp_path / "audit.log").read_bytes() == b"fine\n"
    writer.close()
