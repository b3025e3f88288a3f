"""SQL for the SQLite backend: schema, connections, and one function per statement group.

Every function here is synchronous and takes the connection of the thread it runs on (the
writer or the reader thread of ``SQLiteKV``). Space policy: the database is created with
``auto_vacuum=INCREMENTAL``; compaction deletes superseded rows, then returns free pages to the
file system with ``incremental_vacuum`` and truncates the WAL (``journal_size_limit``), so a
steady update load with periodic compaction keeps the file size flat.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from apiserver.storage.errors import (
    CompactedError,
    StoreConfigError,
)
from apiserver.storage.filemode import create_owner_only, tighten_store_files
from apiserver.storage.kv import Event, EventType, KeyValue, RangeResult, check_write

SCHEMA = """
CREATE TABLE IF NOT EXISTS log (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    deleted INTEGER NOT NULL,
    create_revision INTEGER NOT NULL,
    prev_revision INTEGER NOT NULL,
    value BLOB NOT NULL,
    old_value BLOB
);
CREATE INDEX IF NOT EXISTS log_name_id ON log (name, id);
CREATE TABLE IF NOT EXISTS current (
    name TEXT PRIMARY KEY,
    create_revision INTEGER NOT NULL,
    mod_revision INTEGER NOT NULL,
    value BLOB NOT NULL
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS current_name ON current (name);
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value INTEGER NOT NULL) WITHOUT ROWID;
INSERT OR IGNORE INTO meta (key, value) VALUES ('compact_revision', 0), ('revision', 0);
"""

SYNCHRONOUS_MODES = ("normal", "full")
WAL_LIMIT_BYTES = 16 * 1024 * 1024


def connect_writer(path: Path, synchronous: str) -> sqlite3.Connection:
    """Open the write connection, creating the schema; StoreConfigError when unusable."""
    if synchronous not in SYNCHRONOUS_MODES:
        raise StoreConfigError(f"unknown sqlite synchronous mode {synchronous!r} (normal or full)")
    if not path.parent.is_dir():
        raise StoreConfigError(f"store directory {path.parent} does not exist")
    create_owner_only(path)  # before SQLite creates the file (and so its WAL) 0644
    try:
        conn = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        conn.execute("PRAGMA auto_vacuum = INCREMENTAL")
        if conn.execute("PRAGMA journal_mode = WAL").fetchone()[0].lower() != "wal":
            raise StoreConfigError(f"cannot use WAL journal for {path}")
        conn.execute(f"PRAGMA synchronous = {synchronous.upper()}")
        conn.execute(f"PRAGMA journal_size_limit = {WAL_LIMIT_BYTES}")
        conn.execute("PRAGMA busy_timeout = 5000")
        conn.executescript(SCHEMA)
        conn.execute("BEGIN IMMEDIATE")
        conn.execute("UPDATE meta SET value = value WHERE key = 'revision'")
        conn.execute("COMMIT")
    except sqlite3.Error as err:
        raise StoreConfigError(f"cannot use sqlite store {path}: {err}") from err
    tighten_store_files(path)  # an existing store, once SQLite accepted it
    return conn


def connect_reader(path: Path) -> sqlite3.Connection:
    conn = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    conn.execute("PRAGMA busy_timeout = 5000")
    return conn


def read_revision(conn: sqlite3.Connection) -> int:
    row = conn.execute("SELECT MAX(id) FROM log").fetchone()
    stored = conn.execute("SELECT value FROM meta WHERE key = 'revision'").fetchone()[0]
    return max(row[0] or 0, int(stored))


def read_compacted(conn: sqlite3.Connection) -> int:
    return int(conn.execute("SELECT value FROM meta WHERE key = 'compact_revision'").fetchone()[0])


def apply(conn: sqlite3.Connection, revision: int, key: str, value: bytes | None, expected: int) -> Event:
    """Apply one write inside the open transaction as ``revision``; raise when its check fails.

    ``expected`` is ``CREATE`` for a create, 0 for an unconditional delete, else the required
    mod revision. ``value`` None deletes.
    """
    row = conn.execute(
        "SELECT create_revision, mod_revision, value FROM current WHERE name = ?", (key,)
    ).fetchone()
    prev = KeyValue(key, row[2], row[0], row[1]) if row else None
    check_write(key, prev, expected)
    create_revision = prev.create_revision if prev else revision
    conn.execute(
        "INSERT INTO log (id, name, deleted, create_revision, prev_revision, value, old_value)"
        " VALUES (?, ?, ?, ?, ?, ?, ?)",
        (
            revision,
            key,
            int(value is None),
            create_revision,
            prev.mod_revision if prev else 0,
            value if value is not None else b"",
            prev.value if prev else None,
        ),
    )
    if value is None:
        conn.execute("DELETE FROM current WHERE name = ?", (key,))
        return Event(EventType.DELETE, KeyValue(key, b"", 0, revision), prev)
    conn.execute(
        "INSERT INTO current (name, create_revision, mod_revision, value) VALUES (?, ?, ?, ?)"
        " ON CONFLICT (name) DO UPDATE SET mod_revision = excluded.mod_revision,"
        " value = excluded.value",
        (key, create_revision, revision, value),
    )
    return Event(EventType.PUT, KeyValue(key, value, create_revision, revision), prev)


def get(conn: sqlite3.Connection, key: str, revision: int) -> KeyValue | None:
    if revision == 0:
        row = conn.execute(
            "SELECT name, value, create_revision, mod_revision FROM current WHERE name = ?", (key,)
        ).fetchone()
        return KeyValue(*row) if row else None
    conn.execute("BEGIN")
    try:
        check_not_compacted(conn, revision)
        found = conn.execute(
            "SELECT name, value, create_revision, id, deleted FROM log WHERE name = ? AND id <= ?"
            " ORDER BY id DESC LIMIT 1",
            (key, revision),
        ).fetchone()
    finally:
        conn.execute("COMMIT")
    return KeyValue(*found[:4]) if found and not found[4] else None


def check_not_compacted(conn: sqlite3.Connection, revision: int) -> None:
    """Inside a read transaction: compaction may have moved since the caller checked."""
    compacted = read_compacted(conn)
    if revision < compacted:
        raise CompactedError(
            "mvcc: required revision has been compacted", compact_revision=compacted, requested=revision
        )


_RANGE_AT = """
SELECT l.name, l.value, l.create_revision, l.id FROM log l
JOIN (SELECT name, MAX(id) AS id FROM log WHERE name >= ? AND name < ? AND id <= ? GROUP BY name) m
  ON l.id = m.id
WHERE l.deleted = 0 ORDER BY l.name
"""


def range_(
    conn: sqlite3.Connection, begin: str, end: str, limit: int, revision: int, count: bool
) -> RangeResult:
    """Keys in [begin, end) as of ``revision`` (0 = now), in one read transaction."""
    conn.execute("BEGIN")
    try:
        current = read_revision(conn)
        if revision == 0 or revision >= current:
            rows = conn.execute(
                "SELECT name, value, create_revision, mod_revision FROM current"
                " WHERE name >= ? AND name < ? ORDER BY name LIMIT ?",
                (begin, end, limit + 1 if limit > 0 else -1),
            ).fetchall()
            total = len(rows)
            if count and limit > 0 and total > limit:
                total = conn.execute(
                    "SELECT COUNT(*) FROM current WHERE name >= ? AND name < ?", (begin, end)
                ).fetchone()[0]
            at = current
        else:
            check_not_compacted(conn, revision)
            rows = conn.execute(_RANGE_AT, (begin, end, revision)).fetchall()
            total, at = len(rows), revision
    finally:
        conn.execute("COMMIT")
    more = limit > 0 and len(rows) > limit
    page = rows[:limit] if limit > 0 else rows
    return RangeResult([KeyValue(*r) for r in page], at, more=more, count=total if count else 0)


def events(conn: sqlite3.Connection, begin: str, end: str, first: int, last: int) -> tuple[list[Event], int]:
    """Events under [begin, end) with revision in [first, last], and the compaction point."""
    conn.execute("BEGIN")
    try:
        rows = conn.execute(
            "SELECT id, name, deleted, create_revision, prev_revision, value, old_value FROM log"
            " WHERE id >= ? AND id <= ? AND name >= ? AND name < ? ORDER BY id",
            (first, last, begin, end),
        ).fetchall()
        compacted = read_compacted(conn)
    finally:
        conn.execute("COMMIT")
    return [_event(*row) for row in rows], compacted


def _event(
    rev: int, name: str, deleted: int, create: int, prev_rev: int, value: bytes, old: bytes | None
) -> Event:
    prev = KeyValue(name, old, create, prev_rev) if old is not None else None
    if deleted:
        return Event(EventType.DELETE, KeyValue(name, b"", 0, rev), prev)
    return Event(EventType.PUT, KeyValue(name, value, create, rev), prev)


def compact(conn: sqlite3.Connection, revision: int) -> int:
    """Delete rows superseded at or before ``revision`` and tombstones below it; reclaim space.

    Returns the number of rows removed. Runs on the writer connection.
    """
    conn.execute("BEGIN IMMEDIATE")
    removed = conn.execute(
        "DELETE FROM log WHERE id < ? AND (deleted = 1 OR EXISTS ("
        " SELECT 1 FROM log newer WHERE newer.name = log.name"
        " AND newer.id > log.id AND newer.id <= ?))",
        (revision, revision),
    ).rowcount
    conn.execute("UPDATE meta SET value = MAX(value, ?) WHERE key = 'compact_revision'", (revision,))
    conn.execute(
        "UPDATE meta SET value = (SELECT COALESCE(MAX(id), 0) FROM log) WHERE key = 'revision'"
        " AND value < (SELECT COALESCE(MAX(id), 0) FROM log)"
    )
    conn.execute("COMMIT")
    conn.executescript("PRAGMA incremental_vacuum;")  # execute() would free a single page
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    return int(removed)
