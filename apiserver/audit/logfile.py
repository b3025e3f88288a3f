"""A log file rotated by size, with lumberjack's rules (the library upstream's audit log uses).

- A write that would take the file past ``max_size_mb`` MiB first renames the file to
  ``<name>-<UTC time as 2006-01-02T15-04-05.000><ext>`` beside it (``audit.log`` becomes
  ``audit-2024-05-01T10-00-00.123.log``) and starts a new one, so one write (one line) is never
  split; a write larger than the limit is refused. ``max_size_mb`` 0 never rotates (upstream's
  kube-apiserver then appends to a plain file).
- After a rotation, backups beyond the ``max_backups`` newest and those older than
  ``max_age_days`` (by the time in their name) are removed; 0 keeps them all. With
  ``compress`` the backups are gzipped (``.log.gz``).
- Files are created ``0600``; a new file keeps the mode of the one it replaces.

Not thread-safe: one writer (``BackgroundWriter``) owns it.
"""

from __future__ import annotations

import calendar
import gzip
import os
import shutil
import time
from collections.abc import Callable
from pathlib import Path

MEGABYTE = 1024 * 1024
BACKUP_TIME_FORMAT = "%Y-%m-%dT%H-%M-%S"  # then .mmm: Go's "2006-01-02T15-04-05.000"
_DAY = 24 * 3600


class RotatingFile:
    def __init__(
        self,
        path: Path,
        max_size_mb: int = 100,
        max_backups: int = 0,
        max_age_days: int = 0,
        compress: bool = False,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.path = path
        self.max_bytes = max_size_mb * MEGABYTE
        self.max_backups, self.max_age_days, self.compress = max_backups, max_age_days, compress
        self.clock = clock
        self._fd: int | None = None
        self._size = 0

    def write(self, data: bytes) -> None:
        """Append ``data`` (one or more whole lines), rotating first when it would not fit."""
        if self.max_bytes and len(data) > self.max_bytes:
            raise OSError(f"write length {len(data)} exceeds maximum file size {self.max_bytes}")
        if self._fd is None:
            self._open_existing_or_new(len(data))
        elif self.max_bytes and self._size + len(data) > self.max_bytes:
            self.rotate()
        assert self._fd is not None
        view = memoryview(data)
        while view:
            written = os.write(self._fd, view)
            view = view[written:]
        self._size += len(data)

    def fits(self, length: int) -> bool:
        """Whether ``length`` more bytes go in the current file without a rotation."""
        return not self.max_bytes or self._size + length <= self.max_bytes

    def rotate(self) -> None:
        """Move the current file to a backup, start a new one, drop old backups."""
        self.close()
        self._open_new()
        self._mill()

    def close(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None

    def backup_name(self, at: float) -> Path:
        stem, ext = os.path.splitext(self.path.name)
        stamp = time.strftime(BACKUP_TIME_FORMAT, time.gmtime(at)) + f".{int(at * 1000) % 1000:03d}"
        return self.path.with_name(f"{stem}-{stamp}{ext}")

    def backups(self) -> list[tuple[float, Path]]:
        """(time in the name, path) of every backup, newest first."""
        stem, ext = os.path.splitext(self.path.name)
        found = []
        for entry in self.path.parent.glob(f"{stem}-*"):
            name = entry.name.removesuffix(".gz")
            if not name.endswith(ext):
                continue
            at = _parse_stamp(name[len(stem) + 1 : len(name) - len(ext)])
            if at is not None:
                found.append((at, entry))
        return sorted(found, reverse=True)

    def _open_existing_or_new(self, length: int) -> None:
        try:
            size = self.path.stat().st_size
        except FileNotFoundError:
            self._open_new()
            return
        if self.max_bytes and size + length >= self.max_bytes:
            self.rotate()
            return
        self._fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        self._size = size

    def _open_new(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o755)
        mode = 0o600
        try:
            mode = self.path.stat().st_mode & 0o777
            os.rename(self.path, self.backup_name(self.clock()))
        except FileNotFoundError:
            pass
        self._fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_APPEND, mode)
        os.chmod(self.path, mode)
        self._size = 0

    def _mill(self) -> None:
        if not (self.max_backups or self.max_age_days or self.compress):
            return
        backups = self.backups()
        remove = []
        if self.max_backups and len(backups) > self.max_backups:
            backups, remove = backups[: self.max_backups], backups[self.max_backups :]
        if self.max_age_days:
            cutoff = self.clock() - self.max_age_days * _DAY
            remove += [b for b in backups if b[0] < cutoff]
            backups = [b for b in backups if b[0] >= cutoff]
        for _, path in remove:
            path.unlink(missing_ok=True)
        if self.compress:
            for _, path in backups:
                if path.suffix != ".gz":
                    _gzip(path)


def _parse_stamp(text: str) -> float | None:
    whole, _, millis = text.rpartition(".")
    if len(millis) != 3 or not millis.isdigit():
        return None
    try:
        parsed = time.strptime(whole, BACKUP_TIME_FORMAT)
    except ValueError:
        return None
    return calendar.timegm(parsed) + int(millis) / 1000


def _gzip(path: Path) -> None:
    target = path.with_name(path.name + ".gz")
    with path.open("rb") as src, gzip.open(target, "wb") as dst:
        shutil.copyfileobj(src, dst)
    os.chmod(target, path.stat().st_mode & 0o777)
    path.unlink()
