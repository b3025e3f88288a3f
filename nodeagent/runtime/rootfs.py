"""The container's root (``RootBuilder``), built by the container init in its mount namespace.

A tmpfs new root whose entries are recursive, **read-only** bind mounts of the host's ``/``
entries; private writable tmpfs at ``/tmp``, ``/var/tmp``, ``/run`` and ``/dev/shm``; a minimal
``/dev`` (binds of ``null``, ``zero``, ``full``, ``random``, ``urandom``, ``tty`` and ``pts``);
a fresh ``/proc`` of the container's PID namespace (the host's, read-only, without one); the
working directory made writable and private (its own tmpfs, or an overlay on the host's
directory when it exists there); then each volume bound at its ``container_path`` (read-only
when asked). Where a directory on the way to a ``container_path`` must be created inside a host
directory (``/etc/config``), that directory (``/etc``) is shadowed by a tmpfs holding bind
mounts of its original entries, so nothing is ever created on the host's own paths. Then
``pivot_root`` into the new root (the old root is detached, so no ``chroot`` escape leads back
to it).
"""

from __future__ import annotations

import contextlib
import os
import stat
from collections.abc import Sequence
from typing import Any

from nodeagent.runtime.syscalls import (
    MS_BIND,
    MS_NODEV,
    MS_NOEXEC,
    MS_NOSUID,
    MS_RDONLY,
    MS_REC,
    MS_REMOUNT,
    bind_entries,
    bind_entry,
    locked_flags,
    make_read_only,
    mount,
    mount_tmpfs,
    pivot_root,
    within,
)

SCRATCH = ("/tmp", "/var/tmp", "/run")  # private writable tmpfs in every container
DEVICES = ("null", "zero", "full", "random", "urandom", "tty")


class RootBuilder:
    """Builds the container's new root in ``rootfs``; ``stage`` holds shadowed originals and
    overlay layers. ``uid``/``gid`` own the working directory's tmpfs."""

    def __init__(self, rootfs: str, stage: str, uid: int = 0, gid: int = 0) -> None:
        self.rootfs, self.stage = rootfs, stage
        self.uid, self.gid = uid, gid
        self.owned: set[str] = {"/"}  # container paths that are our own tmpfs directories
        self.writable: list[str] = []  # container paths under which the container may write
        self.tmpfs_read_only: list[str] = []  # our own tmpfs to make read-only once built
        self.scratch_dirs: set[str] = set()  # container paths of the private scratch tmpfs
        self.shm = ""  # a host directory to bind at /dev/shm (the pod's) instead of a tmpfs
        self._stages = 0

    def build(
        self,
        mounts: list[dict[str, Any]],
        working_dir: str,
        fresh_proc: bool,
        reveal: Sequence[str] = (),
        hide: Sequence[str] = (),
    ) -> None:
        mount_tmpfs(self.stage, 0o700)
        mount_tmpfs(self.rootfs, 0o755)
        self.tmpfs_read_only.append("/")
        for entry in os.listdir("/"):
            dst = self.host("/" + entry)
            if "/" + entry in ("/proc", "/dev", *SCRATCH):
                os.mkdir(dst, 0o755)
            elif bind_entry("/" + entry, dst):
                make_read_only(dst)
        if not fresh_proc:
            mount("/proc", self.host("/proc"), None, MS_BIND | MS_REC)
            make_read_only(self.host("/proc"))
        self.scratch()
        self.dev()
        for path in reveal:
            self.reveal(path)
        for path in hide:
            self.hide(path)
        for m in sorted(mounts, key=lambda m: os.path.normpath(m["container_path"]).count("/")):
            self.bind(m["host_path"], os.path.normpath(m["container_path"]), bool(m.get("read_only")))
        self.working_dir(os.path.normpath(working_dir or "/"))

    def host(self, container_path: str) -> str:
        return os.path.join(self.rootfs, container_path.lstrip("/"))

    def scratch(self) -> None:
        for path in SCRATCH:
            path = self.resolve(path)
            if not os.path.isdir(self.host(path)):
                self.ensure(path, True)
            mount_tmpfs(self.host(path), 0o1777, MS_NOSUID | MS_NODEV)
            self.owned.add(path)
            self.scratch_dirs.add(path)
            self.writable.append(path)

    def dev(self) -> None:
        """A tmpfs ``/dev`` with the harmless devices of the host, ``pts`` and a private ``shm``."""
        dev = self.host("/dev")
        mount_tmpfs(dev, 0o755)
        for name in DEVICES:
            if os.path.exists(f"/dev/{name}"):
                open(os.path.join(dev, name), "w").close()
                with contextlib.suppress(OSError):
                    mount(f"/dev/{name}", os.path.join(dev, name), None, MS_BIND)
        os.mkdir(os.path.join(dev, "pts"))
        with contextlib.suppress(OSError):
            mount("/dev/pts", os.path.join(dev, "pts"), None, MS_BIND | MS_REC)
        for name, target in (
            ("ptmx", "pts/ptmx"), ("fd", "/proc/self/fd"), ("stdin", "/proc/self/fd/0"),
            ("stdout", "/proc/self/fd/1"), ("stderr", "/proc/self/fd/2"),
        ):  # fmt: skip
            os.symlink(target, os.path.join(dev, name))
        os.mkdir(os.path.join(dev, "shm"))
        if self.shm:  # the pod's, shared by its containers
            mount(self.shm, os.path.join(dev, "shm"), None, MS_BIND)
        else:
            mount_tmpfs(os.path.join(dev, "shm"), 0o1777, MS_NOSUID | MS_NODEV)
        self.owned.update({"/dev", "/dev/shm"})
        self.writable.append("/dev/shm")
        self.tmpfs_read_only.append("/dev")

    def reveal(self, host_dir: str) -> None:
        """Make the host's ``host_dir`` (the agent's Python, built-in images) reachable at its
        path for any user: an ancestor others may not search (``/root``, mode 0700) is covered
        by an empty tmpfs holding only the way down to ``host_dir`` (bound read-only); one under
        a scratch directory (a checkout or virtualenv in ``/tmp``) is bound into the container's
        private tmpfs there, read-only."""
        host_dir = os.path.realpath(host_dir)
        hidden = False
        ancestor = "/"
        for part in [p for p in host_dir.split("/") if p][:-1]:
            ancestor = os.path.join(ancestor, part)
            if ancestor in self.scratch_dirs:  # a private /tmp, /run...: the host's are not there
                hidden = True
                break
            if ancestor in self.owned or os.stat(ancestor).st_mode & stat.S_IXOTH:
                continue
            mount_tmpfs(self.host(ancestor), 0o755)
            self.owned.add(ancestor)
            self.tmpfs_read_only.append(ancestor)
            hidden = True
            break
        if hidden:
            self.ensure(host_dir, True)
            mount(host_dir, self.host(host_dir), None, MS_BIND | MS_REC)
            make_read_only(self.host(host_dir))

    def hide(self, host_dir: str) -> None:
        """Cover the host's ``host_dir`` (the cluster's data: its store, keys, every pod's
        volumes) with an empty read-only tmpfs; volumes bound later still appear."""
        path = self.resolve(os.path.realpath(host_dir))
        if path != "/" and os.path.isdir(self.host(path)) and not os.path.islink(self.host(path)):
            mount_tmpfs(self.host(path), 0o755)
            self.owned.add(path)
            self.tmpfs_read_only.append(path)

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
            mount(None, target, None, MS_BIND | MS_REMOUNT | MS_RDONLY | locked_flags(target))
        else:
            self.writable.append(container_path)

    def is_writable(self, container_path: str) -> bool:
        return any(within(container_path, w) for w in self.writable)

    def working_dir(self, path: str) -> None:
        """The working directory writable and private: its own tmpfs when the host has no such
        directory, an overlay (writes kept in a tmpfs) on the host's directory otherwise."""
        if path == "/":
            return
        path = self.resolve(path)
        if self.is_writable(path):
            return
        target = self.host(path)
        if not os.path.lexists(target):
            self.ensure(path, True)
            mount_tmpfs(target, 0o755, MS_NOSUID | MS_NODEV, f",uid={self.uid},gid={self.gid}")
        elif os.path.isdir(target) and not any(c in target for c in ",:\\"):
            self._stages += 1
            layers = os.path.join(self.stage, f"wd{self._stages}")
            upper, work = os.path.join(layers, "upper"), os.path.join(layers, "work")
            os.makedirs(upper)
            os.mkdir(work)
            st = os.stat(target)
            os.chmod(upper, stat.S_IMODE(st.st_mode))
            with contextlib.suppress(OSError):
                os.chown(upper, st.st_uid, st.st_gid)
            layout = f"lowerdir={target},upperdir={upper},workdir={work}"
            try:
                mount("overlay", target, "overlay", MS_NOSUID, layout)
            except OSError:
                return  # no overlayfs here: the working directory stays read-only
        else:
            return
        self.writable.append(path)

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
        mount_tmpfs(target, os.stat(original).st_mode)
        bind_entries(original, target)
        self.owned.add(container_path)
        self.tmpfs_read_only.append(container_path)

    def mount_proc(self) -> None:
        """A ``/proc`` of the caller's PID namespace (call from inside it), ``sys`` read-only."""
        proc = self.host("/proc")
        mount("proc", proc, "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC)
        for path in ("sys", "sysrq-trigger"):
            target = os.path.join(proc, path)
            with contextlib.suppress(OSError):
                mount(target, target, None, MS_BIND | MS_REC)
                make_read_only(target)

    def finish(self) -> None:
        """Our own tmpfs (the root, ``/dev``, shadows) read-only: writes go to volumes and scratch."""
        for path in self.tmpfs_read_only:
            target = self.host(path)
            with contextlib.suppress(OSError):
                mount(None, target, None, MS_BIND | MS_REMOUNT | MS_RDONLY | locked_flags(target))

    def enter(self) -> None:
        """Make the new root the root (``pivot_root``; ``chroot`` on unknown architectures)."""
        pivot_root(self.rootfs)
