"""Audit backends: where events go (upstream's ``audit.Sink`` and the ``log`` plugin).

``Sink.process_event`` takes one finished event (an ``audit.k8s.io/v1`` ``Event`` as a JSON
dict) on the event loop; it must return quickly and must not keep the dict (the caller may
reuse parts of it for the next stage). ``LogBackend`` encodes it as one JSON line right away
and hands the line to a ``BackgroundWriter``.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any, Protocol

import orjson

from apiserver.audit.logfile import RotatingFile
from apiserver.audit.writer import BackgroundWriter, LineSink
from minikube_py import jsonutil

STDOUT = "-"


class Sink(Protocol):
    def process_event(self, event: dict[str, Any]) -> None: ...

    def flush(self) -> None: ...

    def close(self) -> None: ...


class LogBackend:
    """JSON lines (upstream's ``--audit-log-format=json``) through a background writer."""

    def __init__(self, out: LineSink) -> None:
        self.writer = BackgroundWriter(out)

    def process_event(self, event: dict[str, Any]) -> None:
        try:
            line = orjson.dumps(event, option=orjson.OPT_APPEND_NEWLINE)
        except (orjson.JSONEncodeError, TypeError):
            line = jsonutil.dumps(event) + b"\n"  # integers beyond 64 bits in a logged body
        self.writer.write(line)

    def flush(self) -> None:
        self.writer.flush()

    def close(self) -> None:
        self.writer.close()


class StreamLines:
    """Lines to standard output (``--audit-log-path=-``)."""

    def write(self, data: bytes) -> None:
        sys.stdout.buffer.write(data)
        sys.stdout.buffer.flush()

    def fits(self, length: int) -> bool:
        return True

    def close(self) -> None:
        sys.stdout.buffer.flush()


def ensure_log_file(path: Path) -> None:
    """Create the log file (and its directory) if missing, as upstream does at startup, so an
    unusable path fails before serving. Raises OSError."""
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    with path.open("ab"):
        pass
    if path.stat().st_size == 0:
        path.chmod(0o600)


def log_backend(
    path: str, max_size_mb: int = 100, max_backups: int = 100, max_age_days: int = 366, compress: bool = False
) -> LogBackend:
    """The ``--audit-log-*`` flags as a backend: ``-`` is standard output."""
    if path == STDOUT:
        return LogBackend(StreamLines())
    ensure_log_file(Path(path))
    return LogBackend(RotatingFile(Path(path), max_size_mb, max_backups, max_age_days, compress))
