"""The Linux calls the container init makes that Python does not wrap, and the mount helpers built on them.

``mount``, ``unshare``, ``setns``, ``sethostname``, ``pivot_root``, ``mount_setattr`` and the
capability bounding set's ``prctl``, through ``ctypes`` (standard library only: the init runs
with ``python -I``); entering new namespaces or joining another process's; bind mounts, tmpfs
and recursive read-only remounts (``make_read_only``).
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import platform
import stat

CLONE_NEWNS, CLONE_NEWUTS, CLONE_NEWIPC = 0x00020000, 0x04000000, 0x08000000
CLONE_NEWUSER, CLONE_NEWPID = 0x10000000, 0x20000000
KINDS = {"mnt": CLONE_NEWNS, "uts": CLONE_NEWUTS, "ipc": CLONE_NEWIPC, "pid": CLONE_NEWPID}
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC = 1, 2, 4, 8
MS_REMOUNT, MS_BIND, MS_REC, MS_PRIVATE = 32, 4096, 16384, 1 << 18
MS_NOATIME, MS_NODIRATIME, MS_RELATIME = 1024, 2048, 1 << 21
MNT_DETACH, AT_FDCWD, AT_RECURSIVE, MOUNT_ATTR_RDONLY, MOUNT_ATTR_NOSUID = 2, -100, 0x8000, 1, 2
PR_CAPBSET_DROP = 24
PR_SET_KEEPCAPS, PR_CAP_AMBIENT, PR_CAP_AMBIENT_RAISE = 8, 47, 2
LINUX_CAPABILITY_VERSION_3 = 0x20080522
# pivot_root and mount_setattr have no glibc wrappers: syscall numbers by architecture
SYS_PIVOT_ROOT = {"x86_64": 155, "aarch64": 41}.get(platform.machine())
SYS_MOUNT_SETATTR = 442  # the same on every architecture (added after the tables were unified)

_libc = ctypes.CDLL(None, use_errno=True)
_libc.syscall.restype = ctypes.c_long


class _CapHeader(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]


class _CapData(ctypes.Structure):
    _fields_ = [(name, ctypes.c_uint32) for name in ("effective", "permitted", "inheritable")]


class _MountAttr(ctypes.Structure):
    _fields_ = [(name, ctypes.c_uint64) for name in ("attr_set", "attr_clr", "propagation", "userns_fd")]


def _check(result: int, what: str) -> None:
    if result != 0:
        errno = ctypes.get_errno()
        raise OSError(errno, f"{what}: {os.strerror(errno)}")


def mount(source: str | None, target: str, fstype: str | None, flags: int, data: str | None = None) -> None:
    enc = [s.encode() if s is not None else None for s in (source, target, fstype, data)]
    _check(_libc.mount(enc[0], enc[1], enc[2], ctypes.c_ulong(flags), enc[3]), f"mount {target}")


def unshare(flags: int) -> None:
    _check(_libc.unshare(flags), "unshare")


def sethostname(name: str) -> None:
    data = name.encode()
    _check(_libc.sethostname(data, ctypes.c_size_t(len(data))), "sethostname")


def enter_new_namespaces(kinds: set[str], userns: bool, ids: tuple[int, int]) -> None:
    """Unshare ``kinds`` (a user namespace first with ``userns``, mapping the container's
    ``ids`` (uid, gid) to ours); mount propagation private."""
    uid, gid = os.getuid(), os.getgid()
    flags = sum(KINDS[k] for k in kinds) | (CLONE_NEWUSER if userns else 0)
    unshare(flags)
    if userns:
        for name, text in (
            ("setgroups", "deny"),
            ("uid_map", f"{ids[0]} {uid} 1"),
            ("gid_map", f"{ids[1]} {gid} 1"),
        ):
            with open(f"/proc/self/{name}", "w") as f:
                f.write(text)
    if "mnt" in kinds:
        mount(None, "/", None, MS_REC | MS_PRIVATE)


def join_namespaces(pid: int, kinds: set[str]) -> None:
    """Enter the ``kinds`` (``user`` first, then ``uts``, ``ipc``, ``pid``) of the host's
    ``pid`` (PID: for our children)."""
    order = [k for k in ("user", "uts", "ipc", "pid") if k in kinds]
    flags = {**KINDS, "user": CLONE_NEWUSER}
    fds = [(kind, os.open(f"/proc/{pid}/ns/{kind}", os.O_RDONLY)) for kind in order]
    for kind, fd in fds:
        try:
            _check(_libc.setns(fd, flags[kind]), f"join the {kind} namespace of {pid}")
        finally:
            os.close(fd)


def bind_entry(src: str, dst: str) -> bool:
    """Make ``src`` appear at ``dst`` (in a writable tmpfs directory); False if it could not."""
    st = os.lstat(src)
    if stat.S_ISLNK(st.st_mode):
        os.symlink(os.readlink(src), dst)
        return False
    if stat.S_ISDIR(st.st_mode):
        os.mkdir(dst, 0o755)
    else:
        open(dst, "w").close()
    try:
        mount(src, dst, None, MS_BIND | MS_REC)
    except OSError:
        return False  # e.g. a socket we may not bind: the entry stays an empty placeholder
    return True


def bind_entries(source_dir: str, target_dir: str) -> None:
    """Make every entry of ``source_dir`` appear in (empty, writable) ``target_dir``."""
    for entry in os.listdir(source_dir):
        bind_entry(os.path.join(source_dir, entry), os.path.join(target_dir, entry))


def mount_tmpfs(target: str, mode: int, flags: int = MS_NOSUID, options: str = "") -> None:
    mount("tmpfs", target, "tmpfs", flags, f"mode={mode & 0o7777:o}" + options)


def make_read_only(path: str) -> None:
    """The mount at ``path`` and every mount below it read-only and ``nosuid`` (the node's
    set-user-ID programs must not give a container's user root's capabilities) with
    ``mount_setattr``; on older kernels each mount of ``/proc/self/mountinfo`` under ``path``
    is remounted."""
    attr = _MountAttr(MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID, 0, 0, 0)
    result = _libc.syscall(
        ctypes.c_long(SYS_MOUNT_SETATTR), ctypes.c_int(AT_FDCWD), path.encode(),
        ctypes.c_uint(AT_RECURSIVE), ctypes.byref(attr), ctypes.c_size_t(ctypes.sizeof(attr)),
    )  # fmt: skip
    if result == 0:
        return
    with open("/proc/self/mountinfo") as f:
        points = [line.split()[4].replace("\\040", " ") for line in f]
    for point in points:
        if within(point, path):
            flags = MS_BIND | MS_REMOUNT | MS_RDONLY | MS_NOSUID | locked_flags(point)
            with contextlib.suppress(OSError):
                mount(None, point, None, flags)


def within(path: str, directory: str) -> bool:
    return path == directory or path.startswith(directory.rstrip("/") + "/")


def locked_flags(path: str) -> int:
    """The mount's current flags that a user namespace may not drop on a remount."""
    f = os.statvfs(path).f_flag
    pairs = ((os.ST_NOSUID, MS_NOSUID), (os.ST_NODEV, MS_NODEV), (os.ST_NOEXEC, MS_NOEXEC))
    atime = ((os.ST_NOATIME, MS_NOATIME), (os.ST_NODIRATIME, MS_NODIRATIME), (os.ST_RELATIME, MS_RELATIME))
    return sum(ms for st, ms in (*pairs, *atime) if f & st)


def pivot_root(new_root: str) -> None:
    """Make ``new_root`` the root (``pivot_root``; ``chroot`` on unknown architectures); the old
    root is detached, so no ``chroot`` escape leads back to it."""
    if SYS_PIVOT_ROOT is None:
        os.chroot(new_root)
        os.chdir("/")
        return
    os.chdir(new_root)
    _check(int(_libc.syscall(ctypes.c_long(SYS_PIVOT_ROOT), b".", b".")), "pivot_root")
    _check(_libc.umount2(b".", ctypes.c_int(MNT_DETACH)), "umount the old root")
    os.chdir("/")


def drop_bounding_capability(cap: int) -> None:
    """Remove ``cap`` from the capability bounding set (no set-user-ID program regains it)."""
    _libc.prctl(PR_CAPBSET_DROP, ctypes.c_ulong(cap), 0, 0, 0)


def keep_capabilities(keep: bool) -> None:
    """``PR_SET_KEEPCAPS``: whether the permitted set survives the next ``setuid`` away from root."""
    _check(_libc.prctl(PR_SET_KEEPCAPS, ctypes.c_ulong(int(keep)), 0, 0, 0), "prctl(PR_SET_KEEPCAPS)")


def raise_ambient_capabilities(caps: frozenset[int]) -> None:
    """Make ``caps`` (numbers below 32) this process's only permitted, effective and inheritable
    capabilities, and ambient: an ``execve`` of a program that is not set-user-ID keeps them,
    whoever the user (what ``setpriv --ambient-caps`` does)."""
    mask = sum(1 << cap for cap in caps)
    data = (_CapData * 2)(_CapData(mask, mask, mask), _CapData(0, 0, 0))
    header = _CapHeader(LINUX_CAPABILITY_VERSION_3, 0)
    _check(_libc.capset(ctypes.byref(header), data), "capset")
    for cap in sorted(caps):
        _check(
            _libc.prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_RAISE, ctypes.c_ulong(cap), 0, 0),
            "prctl(PR_CAP_AMBIENT)",
        )
