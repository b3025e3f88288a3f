"""The SQLite store's files are readable by their owner only: they hold every Secret.

SQLite creates a database file 0644 (less the umask) and gives its ``-wal`` and ``-shm`` files
the database file's mode, so creating the database file 0600 first covers all three. A store
that already exists with wider permissions (written before this rule, or copied in) loses the
group's and others' permissions once SQLite opened it, with a warning per file; one this
process may not change (another owner) is left as it is, with a warning naming the file.
"""

from __future__ import annotations

import contextlib
import logging
import os
import stat
from pathlib import Path

log = logging.getLogger("apiserver.storage")

STORE_FILE_MODE = 0o600
SUFFIXES = ("", "-wal", "-shm", "-journal")


def store_files(path: Path) -> list[Path]:
    """The database file and the SQLite files beside it."""
    return [path.with_name(path.name + suffix) for suffix in SUFFIXES]


def create_owner_only(path: Path) -> None:
    """Create ``path`` empty and 0600 when it is missing (SQLite then copies this mode to the
    WAL and shared-memory files it creates). Never raises: SQLite reports what is wrong."""
    with contextlib.suppress(OSError):  # exists, or cannot be made: SQLite says what is wrong
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, STORE_FILE_MODE))


def tighten_store_files(path: Path) -> None:
    """Remove the group's and others' permissions from the store's files, with a warning for
    each file changed (or that cannot be). Called once the store opened: a file SQLite refuses
    is left as it is."""
    for file in store_files(path):
        try:
            mode = stat.S_IMODE(file.stat().st_mode)
        except FileNotFoundError:
            continue
        except OSError as err:
            log.warning("cannot check the permissions of store file %s: %s", file, err)
            continue
        if mode & 0o077 == 0:
            continue
        tightened = mode & 0o700  # take from the others only: a read-only file stays read-only
        try:
            file.chmod(tightened)
        except OSError as err:
            log.warning(
                "store file %s is readable by others (mode %04o) and cannot be tightened: %s", file, mode, err
            )
            continue
        log.warning("store file %s was readable by others (mode %04o): now %04o", file, mode, tightened)
