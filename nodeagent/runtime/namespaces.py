"""Container init: the first process of every ``process``-runtime container (like ``runc init``).

Run as ``python -I namespaces.py <spec-fd> <status-fd>`` (standard library only). It reads a
JSON spec from ``spec-fd``, builds the container's view of the filesystem, sets the memory
rlimit and working directory, and ``execve``s the container's argv with exactly its env.
``status-fd`` is close-on-exec: a successful exec closes it with nothing written; otherwise the
reason (``exec: "nosuch": executable file not found in $PATH``) is written to it and the init
exits 128, which the runtime reports as a ``StartError``.

The filesystem view (only when the container has mounts): a new mount namespace (inside a new
user namespace mapping only the caller's uid/gid when not root), all propagation private, a
tmpfs new root under ``rootfs`` whose entries are bind mounts of the host's ``/`` entries,
then each mount is bound at its ``container_path``. Where a directory on the way to a
``container_path`` must be created inside a host directory (``/etc/config``), that directory
(``/etc``) is shadowed by a tmpfs holding bind mounts of its original entries, so the new
directory exists only in the container's tmpfs: nothing is ever created on the host's own
paths. Then ``chroot`` into the new root.
"""

from __future__ import annotations

import ctypes
import fcntl
import json
import os
import resource
import shutil
import stat
import sys
import termios
from typing import Any

CLONE_NEWNS, CLONE_NEWUSER = 0x00020000, 0x10000000
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC = 1, 2, 4, 8
MS_REMOUNT, MS_BIND, MS_REC, MS_PRIVATE = 32, 4096, 16384, 1 << 18
MS_NOATIME, MS_NODIRATIME, MS_RELATIME = 1024, 2048, 1 << 21
DEFAULT_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

_libc = ctypes.CDLL(None, use_errno=True)


def _check(result: int, what: str) -> None:
    if result != 0:
        errno = ctypes.get_errno()
        raise OSError(errno, f"{what}: {os.strerror(errno)}")


def mount(source: str | None, target: str, fstype: str | None, flags: int, data: str | None = None) -> None:
    enc = [s.encode() if s is not None else None for s in (source, target, fstype, data)]
    _check(_libc.mount(enc[0], enc[1], enc[2], ctypes.c_ulong(flags), enc[3]), f"mount {target}")


def unshare(flags: int) -> None:
    _check(_libc.unshare(flags), "unshare")


def enter_new_namespaces(userns: bool) -> None:
    """A private mount namespace; with ``userns``, first a user namespace mapping our ids."""
    uid, gid = os.getuid(), os.getgid()
    unshare(CLONE_NEWNS | (CLONE_NEWUSER if userns else 0))
    if userns:
        for name, text in (
            ("setgroups", "deny"),
            ("uid_map", f"{uid} {uid} 1"),
            ("gid_map", f"{gid} {gid} 1"),
        ):
            with open(f"/proc/self/{name}", "w") as f:
                f.write(text)
    mount(None, "/", None, MS_REC | MS_PRIVATE)


def _bind_entries(source_dir: str, target_dir: str) -> None:
    """Make every entry of ``source_dir`` appear in (empty, writable) ``target_dir``."""
    for entry in os.listdir(source_dir):
        src, dst = os.path.join(source_dir, entry), os.path.join(target_dir, entry)
        st = os.lstat(src)
        if stat.S_ISLNK(st.st_mode):
            os.symlink(os.readlink(src), dst)
            continue
        if stat.S_ISDIR(st.st_mode):
            os.mkdir(dst, 0o755)
        else:
            open(dst, "w").close()
        try:
            mount(src, dst, None, MS_BIND | MS_REC)
        except OSError:
            continue  # e.g. a socket we may not bind: the entry stays an empty placeholder


def _mount_tmpfs(target: str, mode: int) -> None:
    mount("tmpfs", target, "tmpfs", MS_NOSUID, f"mode={mode & 0o7777:o}")


class RootBuilder:
    """Builds the container's new root in ``rootfs``; ``stage`` holds shadowed originals."""

    def __init__(self, rootfs: str, stage: str) -> None:
        self.rootfs, self.stage = rootfs, stage
        self.owned: set[str] = {"/"}  # container paths that are our own tmpfs directories
        self._stages = 0

    def build(self, mounts: list[dict[str, Any]]) -> None:
        _mount_tmpfs(self.stage, 0o700)
        _mount_tmpfs(self.rootfs, 0o755)
        _bind_entries("/", self.rootfs)
        for m in sorted(mounts, key=lambda m: os.path.normpath(m["container_path"]).count("/")):
            self.bind(m["host_path"], os.path.normpath(m["container_path"]), bool(m.get("read_only")))

    def host(self, container_path: str) -> str:
        return os.path.join(self.rootfs, container_path.lstrip("/"))

    def resolve(self, container_path: str) -> str:
        """``container_path`` with symlinks resolved inside the new root (``/var/run`` ->
        ``/run``), so no path ever escapes to the host's tree."""
        parts, resolved, hops = [p for p in container_path.split("/") if p], "/", 0
        while parts:
            part = parts.pop(0)
            candidate = os.path.normpath(os.path.join(resolved, part))
            if not os.path.islink(self.host(candidate)):
                resolved = candidate
                continue
            hops += 1
            if hops > 40:
                raise OSError(f"too many levels of symbolic links in {container_path}")
            link = os.readlink(self.host(candidate))
            parts = [p for p in link.split("/") if p] + parts
            resolved = "/" if link.startswith("/") else resolved
        return resolved

    def bind(self, host_path: str, container_path: str, read_only: bool) -> None:
        container_path = self.resolve(container_path)
        self.ensure(container_path, os.path.isdir(host_path))
        target = self.host(container_path)
        mount(host_path, target, None, MS_BIND | MS_REC)
        if read_only:
            mount(None, target, None, MS_BIND | MS_REMOUNT | MS_RDONLY | _locked_flags(target))

    def ensure(self, container_path: str, directory: bool) -> None:
        """Create ``container_path`` (and its parents) in our own tmpfs directories only."""
        if os.path.lexists(self.host(container_path)):
            return
        parent = os.path.dirname(container_path)
        self.ensure(parent, True)
        if parent not in self.owned:
            self.shadow(parent)
        if directory:
            os.mkdir(self.host(container_path), 0o755)
            self.owned.add(container_path)
        else:
            open(self.host(container_path), "w").close()

    def shadow(self, container_path: str) -> None:
        """Cover a host-backed directory with a tmpfs holding binds of its original entries."""
        target = self.host(container_path)
        self._stages += 1
        original = os.path.join(self.stage, str(self._stages))
        os.mkdir(original)
        mount(target, original, None, MS_BIND | MS_REC)
        _mount_tmpfs(target, os.stat(original).st_mode)
        _bind_entries(original, target)
        self.owned.add(container_path)


def _locked_flags(path: str) -> int:
    """The mount's current flags that a user namespace may not drop on a remount."""
    f = os.statvfs(path).f_flag
    pairs = ((os.ST_NOSUID, MS_NOSUID), (os.ST_NODEV, MS_NODEV), (os.ST_NOEXEC, MS_NOEXEC))
    atime = ((os.ST_NOATIME, MS_NOATIME), (os.ST_NODIRATIME, MS_NODIRATIME), (os.ST_RELATIME, MS_RELATIME))
    return sum(ms for st, ms in (*pairs, *atime) if f & st)


def resolve_executable(name: str, env: dict[str, str]) -> str:
    """The path ``execve`` gets, or ``OSError`` with the message the status reports."""
    if "/" in name:
        if not os.path.exists(name):
            raise OSError(f'exec: "{name}": stat {name}: no such file or directory')
        if os.path.isdir(name) or not os.access(name, os.X_OK):
            raise OSError(f'exec: "{name}": permission denied')
        return name
    found = shutil.which(name, path=env.get("PATH", DEFAULT_PATH))
    if found is None:
        raise OSError(f'exec: "{name}": executable file not found in $PATH')
    return found


def run_container(spec: dict[str, Any]) -> None:
    """Set up and exec; raises OSError whose text is the StartError message."""
    env = dict(spec["env"])
    if spec.get("tty"):  # stdin is a terminal's slave side: make it our controlling terminal
        fcntl.ioctl(0, termios.TIOCSCTTY, 0)
    if spec["mounts"]:
        try:
            enter_new_namespaces(bool(spec["userns"]))
            RootBuilder(spec["rootfs"], spec["stage"]).build(spec["mounts"])
            os.chroot(spec["rootfs"])
        except OSError as err:
            raise OSError(f"failed to set up the container's mount namespace: {err}") from err
    workdir = spec["working_dir"] or "/"
    try:
        os.chdir(workdir)
    except OSError as err:
        raise OSError(f'chdir to cwd ("{workdir}") set in config failed: {err.strerror}') from err
    path = resolve_executable(spec["argv"][0], env)
    if spec["memory_bytes"]:
        resource.setrlimit(resource.RLIMIT_AS, (spec["memory_bytes"], spec["memory_bytes"]))
    try:
        os.execve(path, spec["argv"], env)
    except OSError as err:
        raise OSError(f'exec: "{spec["argv"][0]}": {err.strerror}') from err


def main() -> None:
    spec_fd, status_fd = int(sys.argv[1]), int(sys.argv[2])
    os.set_inheritable(status_fd, False)
    with os.fdopen(spec_fd, "rb") as f:
        spec = json.loads(f.read())
    try:
        run_container(spec)
    except (OSError, ValueError) as err:
        message = err.args[-1] if isinstance(err, OSError) and len(err.args) == 1 else str(err)
        os.write(status_fd, str(message).encode())
        os._exit(128)


if __name__ == "__main__":
    main()
