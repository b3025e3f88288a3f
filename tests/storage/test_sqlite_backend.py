"""SQLite-only behaviour: durability across restarts and kill -9, bad files, bounded growth."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from apiserver.storage.compactor import Compactor
from apiserver.storage.errors import StoreConfigError, UnavailableError
from apiserver.storage.factory import open_kv
from apiserver.storage.kv import EventType


async def test_restart_keeps_data_revisions_and_history(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'store.db'}"
    kv = await open_kv(url)
    r1 = await kv.create("/registry/a", b"1")
    r2 = await kv.update("/registry/a", b"2", r1)
    r3 = await kv.create("/registry/b", b"x")
    await kv.close()

    kv = await open_kv(url)
    try:
        assert await kv.current_revision() == r3
        got = await kv.get("/registry/a")
        assert got is not None and (got.value, got.mod_revision) == (b"2", r2)
        assert await kv.create("/registry/c", b"y") == r3 + 1
        watch = kv.watch("/registry/", r1)  # history read back from the database
        batch = await anext(aiter(watch))
        await watch.close()
        assert [(e.type, e.revision) for e in batch.events][:3] == [
            (EventType.PUT, r1),
            (EventType.PUT, r2),
            (EventType.PUT, r3),
        ]
        assert batch.events[1].prev_kv is not None and batch.events[1].prev_kv.value == b"1"
    finally:
        await kv.close()


WRITE_STORM = textwrap.dedent(
    """
    import asyncio, sys
    from apiserver.storage.factory import open_kv

    async def main(url):
        kv = await open_kv(url)
        async def writer(w):
            for i in range(100000):
                key = f"/registry/storm/{w}-{i}"
                await kv.create(key, b"v" * 200)
                sys.stdout.write(key + "\\n")
                sys.stdout.flush()
        await asyncio.gather(*(writer(w) for w in range(16)))

    asyncio.run(main(sys.argv[1]))
    """
)


@pytest.mark.parametrize("mode", ["normal", "full"])
async def test_kill_9_during_write_storm_loses_no_acknowledged_write(tmp_path: Path, mode: str) -> None:
    url = f"sqlite:///{tmp_path / 'store.db'}?synchronous={mode}"
    proc = subprocess.Popen([sys.executable, "-c", WRITE_STORM, url], stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    acknowledged = []
    for line in proc.stdout:
        acknowledged.append(line.strip())
        if len(acknowledged) >= 3000:
            break
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    acknowledged += [line.strip() for line in proc.stdout if line.endswith("\n")]

    kv = await open_kv(url)
    try:
        stored = {k.key for k in (await kv.range("/registry/storm/")).kvs}
        assert set(acknowledged) <= stored
        assert await kv.current_revision() == len(stored)  # no gaps, no half writes
    finally:
        await kv.close()


async def test_corrupt_database_is_a_config_error(tmp_path: Path) -> None:
    path = tmp_path / "store.db"
    path.write_bytes(b"this is not a database" * 100)
    with pytest.raises(StoreConfigError, match="file is not a database"):
        await open_kv(f"sqlite:///{path}")
    assert path.read_bytes().startswith(b"this is not a database")  # left untouched


@contextlib.contextmanager
def read_only(path: Path) -> Iterator[None]:
    """Make ``path`` unwritable for this process. Root ignores permission bits, so as root
    the file is made immutable (``chattr +i``) instead."""
    root = os.geteuid() == 0
    if root:
        subprocess.run(["chattr", "+i", str(path)], check=True)
    else:
        path.chmod(0o444)
    try:
        yield
    finally:
        if root:
            subprocess.run(["chattr", "-i", str(path)], check=True)
        path.chmod(0o644)


async def test_read_only_database_is_a_config_error(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'store.db'}"
    kv = await open_kv(url)
    await kv.create("/registry/a", b"1")
    await kv.close()
    with read_only(tmp_path / "store.db"), pytest.raises(StoreConfigError) as info:
        await open_kv(url)
    assert "readonly database" in str(info.value) and "\n" not in str(info.value)
    kv = await open_kv(url)  # nothing was lost
    try:
        assert await kv.get("/registry/a") is not None
    finally:
        await kv.close()


async def test_unwritable_store_directory_is_a_config_error(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(StoreConfigError, match="missing or not writable"):
        await open_kv(f"sqlite:///{blocker / 'store.db'}")


async def test_bad_urls_are_config_errors(tmp_path: Path) -> None:
    with pytest.raises(StoreConfigError, match="unknown store URL scheme 'bogus'"):
        await open_kv("bogus://x")
    with pytest.raises(StoreConfigError, match="synchronous"):
        await open_kv(f"sqlite:///{tmp_path / 's.db'}?synchronous=sometimes")
    with pytest.raises(StoreConfigError, match="is a directory"):
        await open_kv(f"sqlite:///{tmp_path}")


async def test_steady_updates_with_compaction_keep_the_file_bounded(tmp_path: Path) -> None:
    path = tmp_path / "store.db"
    kv = await open_kv(f"sqlite:///{path}")
    compactor = Compactor(kv, min_window=500)
    revisions = {f"/registry/cm/{i}": await kv.create(f"/registry/cm/{i}", b"x" * 1024) for i in range(200)}
    sizes = []
    try:
        for _round in range(30):
            for key, rev in revisions.items():
                revisions[key] = await kv.update(key, os.urandom(512).hex().encode(), rev)
            await compactor.compact_once()
            sizes.append(path.stat().st_size + Path(f"{path}-wal").stat().st_size)
    finally:
        await kv.close()
    # 6000 revisions of ~1 KiB written; once compaction has caught up the size stays flat.
    assert max(sizes[10:]) <= 1.2 * sizes[9], sizes


async def test_a_failed_group_commit_fails_its_writes_and_the_writer_lives_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Regression: an unexpected error inside a group commit used to kill the writer thread,
    leaving every later write waiting forever."""
    from apiserver.storage import sqlite_schema

    kv = await open_kv(f"sqlite:///{tmp_path / 'store.db'}")
    real_apply = sqlite_schema.apply

    def broken_apply(*args: object) -> object:
        monkeypatch.setattr(sqlite_schema, "apply", real_apply)  # fail once
        raise RuntimeError("disk on fire")

    monkeypatch.setattr(sqlite_schema, "apply", broken_apply)
    try:
        with pytest.raises(UnavailableError, match="disk on fire"):
            await asyncio.wait_for(kv.create("/registry/a", b"1"), 5)
        assert await kv.get("/registry/a") is None
        assert await asyncio.wait_for(kv.create("/registry/a", b"1"), 5) == 1
    finally:
        await kv.close()


def modes(path: Path) -> dict[str, int]:
    """The permission bits of the store's files that exist, by name."""
    found = [path.with_name(path.name + suffix) for suffix in ("", "-wal", "-shm")]
    return {f.name: f.stat().st_mode & 0o777 for f in found if f.exists()}


async def test_store_files_are_created_owner_only(tmp_path: Path) -> None:
    """Issue 13 item 7: every Secret is in these files; 0644 made them world-readable."""
    path = tmp_path / "outside" / "store.db"
    path.parent.mkdir(mode=0o755)
    old = os.umask(0o022)  # the usual umask, under which SQLite alone writes 0644
    try:
        kv = await open_kv(f"sqlite:///{path}")
        try:
            await kv.create("/registry/secrets/default/s", b"secret")
            assert modes(path) == {"store.db": 0o600, "store.db-wal": 0o600, "store.db-shm": 0o600}
        finally:
            await kv.close()
    finally:
        os.umask(old)


async def test_existing_world_readable_store_is_tightened(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "store.db"
    kv = await open_kv(f"sqlite:///{path}")
    await kv.create("/registry/a", b"1")
    for file in modes(path):
        (tmp_path / file).chmod(0o644)  # as an older version (or a copy) left it
    kv2 = await open_kv(f"sqlite:///{path}")  # opened again while the first still runs: WAL kept
    try:
        assert set(modes(path).values()) == {0o600}
        assert await kv2.get("/registry/a") is not None
        assert "store.db was readable by others (mode 0644): now 0600" in caplog.text
    finally:
        await kv2.close()
        await kv.close()
