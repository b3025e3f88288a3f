"""Upstream's ``AtomicWriter``: a volume's files change all at once, never half-written.

Layout of a target directory (what a container sees through its mount)::

    ..2026_11_30_02_01_22.123456/   the current payload (a timestamped directory)
    ..data -> ..2026_11_30_02_01_22.123456
    key    -> ..data/key            one symlink per top-level path of the payload

A write puts the new payload in a fresh timestamped directory, points ``..data_tmp`` at it and
renames that over ``..data`` (an atomic switch), adds the user-visible symlinks, then removes
the old directory and the symlinks of paths that are gone. Nothing is written when the
payload equals what is there.
"""

from __future__ import annotations

import os
import posixpath
import shutil
import tempfile
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

DATA_DIR = "..data"
DATA_DIR_TMP = "..data_tmp"
MAX_PATH_LENGTH = 4096


@dataclass(frozen=True)
class FileProjection:
    """One file of a payload: its bytes and permission bits."""

    data: bytes
    mode: int = 0o644


class PayloadError(ValueError):
    """An invalid payload path (upstream's message)."""


def validate_path(path: str) -> str:
    """The cleaned relative path; raises ``PayloadError`` as upstream's ``validatePath``."""
    if not path:
        raise PayloadError("invalid path: must not be empty")
    if len(path) > MAX_PATH_LENGTH:
        raise PayloadError(f"invalid path: must be less than or equal to {MAX_PATH_LENGTH} characters")
    if posixpath.isabs(path):
        raise PayloadError(f"invalid path: must be relative path: {path}")
    if ".." in path.split("/"):
        raise PayloadError(f"invalid path: must not contain '..': {path}")
    if path.startswith(".."):
        raise PayloadError(f"invalid path: must not start with '..': {path}")
    return posixpath.normpath(path)


def _current_files(ts_dir: Path) -> dict[str, FileProjection]:
    files: dict[str, FileProjection] = {}
    for dirpath, _, names in os.walk(ts_dir):
        for name in names:
            full = Path(dirpath, name)
            rel = full.relative_to(ts_dir).as_posix()
            files[rel] = FileProjection(full.read_bytes(), full.stat().st_mode & 0o7777)
    return files


def _write_files(ts_dir: Path, payload: Mapping[str, FileProjection]) -> None:
    for rel, projection in payload.items():
        path = ts_dir / rel
        path.parent.mkdir(mode=0o755, parents=True, exist_ok=True)
        path.write_bytes(projection.data)
        os.chmod(path, projection.mode)


def write_payload(target_dir: str | os.PathLike[str], payload: Mapping[str, FileProjection]) -> bool:
    """Make ``target_dir`` show exactly ``payload``; returns whether anything was written."""
    target = Path(target_dir)
    cleaned = {validate_path(path): projection for path, projection in payload.items()}
    target.mkdir(mode=0o755, parents=True, exist_ok=True)
    old_ts = os.readlink(target / DATA_DIR) if (target / DATA_DIR).is_symlink() else ""
    top_level = {rel.split("/")[0] for rel in cleaned}
    visible = {entry.name for entry in target.iterdir() if not entry.name.startswith("..")}
    if old_ts and visible == top_level and _current_files(target / old_ts) == cleaned:
        return False
    stamp = time.strftime("..%Y_%m_%d_%H_%M_%S.", time.gmtime())
    ts_dir = Path(tempfile.mkdtemp(prefix=stamp, dir=target))
    os.chmod(ts_dir, 0o755)
    _write_files(ts_dir, cleaned)
    tmp_link = target / DATA_DIR_TMP
    if tmp_link.is_symlink() or tmp_link.exists():
        tmp_link.unlink()
    os.symlink(ts_dir.name, tmp_link)
    os.rename(tmp_link, target / DATA_DIR)
    for name in sorted(top_level - visible):
        os.symlink(posixpath.join(DATA_DIR, name), target / name)
    for name in sorted(visible - top_level):
        stale = target / name
        if stale.is_symlink() or stale.is_file():
            stale.unlink()
        else:
            shutil.rmtree(stale)
    if old_ts and old_ts != ts_dir.name:
        shutil.rmtree(target / old_ts, ignore_errors=True)
    return True
