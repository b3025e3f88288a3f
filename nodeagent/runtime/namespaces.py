"""Container init: the first process of every ``process``-runtime container (like ``runc init``).

Run as ``python -I namespaces.py <spec-fd> <status-fd>`` (standard library only). It reads a
JSON spec from ``spec-fd``, builds the container's namespaces and root, and ``execve``s the
container's argv with exactly its env, as the container's user. ``status-fd`` is
close-on-exec: a successful exec closes it with nothing written but, when the container has
its own PID namespace, a first line ``pid <N>`` (the host pid of the container's PID 1,
whose ``/proc/<N>/ns/*`` are the container's namespaces, for ``nsexec``). Otherwise the
reason (``exec: "nosuch": executable file not found in $PATH``) is written to it and the init
exits 128, which the runtime reports as a ``StartError``.

Namespaces (``spec["namespaces"]``, the kinds the runtime found the kernel allows): a user
namespace when the agent is not root (mapping the container's uid/gid to the agent's), a mount
namespace, a UTS namespace with the pod's hostname, an IPC namespace and a PID namespace. Those
in ``spec["join"]`` (``{"pid": N, "kinds": [...]}``: the pod's, held by its pause, or a target
container's) are entered (``setns`` on ``/proc/N/ns/*``) rather than created. With
``spec["pause"]`` this program is a pod's pause instead (``run_pause``).

The root (``RootBuilder``): a tmpfs new root whose entries are recursive, **read-only** bind
mounts of the host's ``/`` entries; private writable tmpfs at ``/tmp``, ``/var/tmp``, ``/run``
and ``/dev/shm``; a minimal ``/dev`` (binds of ``null``, ``zero``, ``full``, ``random``,
``urandom``, ``tty`` and ``pts``); a fresh ``/proc`` of the container's PID namespace (the
host's, read-only, without one); the working directory made writable and private (its own
tmpfs, or an overlay on the host's directory when it exists there); then each volume bound at
its ``container_path`` (read-only when asked). Where a directory on the way to a
``container_path`` must be created inside a host directory (``/etc/config``), that directory
(``/etc``) is shadowed by a tmpfs holding bind mounts of its original entries, so nothing is
ever created on the host's own paths. Then ``pivot_root`` into the new root (the old root is
detached, so no ``chroot`` escape leads back to it).

With a PID namespace the init forks: its child is PID 1 of the container (mounts ``/proc``,
pivots, forwards signals to the command and reaps orphans, exits with the command's status,
which makes the kernel kill whatever is left in the namespace), and PID 1's child is the
command. The init itself stays outside, waits for PID 1 and exits as the command did (killed
by the same signal, or with its exit code). It forwards SIGTERM, SIGINT, SIGHUP, SIGQUIT,
SIGUSR1 and SIGUSR2 to PID 1: a PID 1 without handlers would ignore them (a kernel rule),
which would break the runtime's SIGTERM-first stop.

The command's capability bounding set is cut to the container runtimes' default set (no
``CAP_SYS_ADMIN``, so a root container cannot remount the host's binds writable; no
``CAP_MKNOD``), then it drops to the container's user (``setgroups``, ``setgid``,
``setuid``; in a user namespace the ids are already mapped and supplementary groups cannot be
set). The host's binds are also ``nosuid``.
"""

from __future__ import annotations

import contextlib
import ctypes
import fcntl
import json
import os
import platform
import resource
import signal
import stat
import sys
import termios
from collections.abc import Sequence
from typing import Any

CLONE_NEWNS, CLONE_NEWUTS, CLONE_NEWIPC = 0x00020000, 0x04000000, 0x08000000
CLONE_NEWUSER, CLONE_NEWPID = 0x10000000, 0x20000000
KINDS = {"mnt": CLONE_NEWNS, "uts": CLONE_NEWUTS, "ipc": CLONE_NEWIPC, "pid": CLONE_NEWPID}
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC = 1, 2, 4, 8
MS_REMOUNT, MS_BIND, MS_REC, MS_PRIVATE = 32, 4096, 16384, 1 << 18
MS_NOATIME, MS_NODIRATIME, MS_RELATIME = 1024, 2048, 1 << 21
MNT_DETACH, AT_FDCWD, AT_RECURSIVE, MOUNT_ATTR_RDONLY, MOUNT_ATTR_NOSUID = 2, -100, 0x8000, 1, 2
PR_CAPBSET_DROP = 24
# pivot_root and mount_setattr have no glibc wrappers: syscall numbers by architecture
SYS_PIVOT_ROOT = {"x86_64": 155, "aarch64": 41}.get(platform.machine())
SYS_MOUNT_SETATTR = 442  # the same on every architecture (added after the tables were unified)
DEFAULT_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
# What containerd and Docker grant a root container by default, minus CAP_MKNOD (without a
# devices cgroup a device node made in a writable directory would reach the host's disks).
DEFAULT_CAPABILITIES = frozenset({0, 1, 3, 4, 5, 6, 7, 8, 10, 13, 18, 29, 31})
SCRATCH = ("/tmp", "/var/tmp", "/run")  # private writable tmpfs in every container
DEVICES = ("null", "zero", "full", "random", "urandom", "tty")
FORWARDED = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP, signal.SIGQUIT, signal.SIGUSR1, signal.SIGUSR2)

_libc = ctypes.CDLL(None, use_errno=True)
_libc.syscall.restype = ctypes.c_long


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


def _bind_entry(src: str, dst: str) -> bool:
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


def _bind_entries(source_dir: str, target_dir: str) -> None:
    """Make every entry of ``source_dir`` appear in (empty, writable) ``target_dir``."""
    for entry in os.listdir(source_dir):
        _bind_entry(os.path.join(source_dir, entry), os.path.join(target_dir, entry))


def _mount_tmpfs(target: str, mode: int, flags: int = MS_NOSUID, options: str = "") -> None:
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
        if _within(point, path):
            flags = MS_BIND | MS_REMOUNT | MS_RDONLY | MS_NOSUID | _locked_flags(point)
            with contextlib.suppress(OSError):
                mount(None, point, None, flags)


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
        _mount_tmpfs(self.stage, 0o700)
        _mount_tmpfs(self.rootfs, 0o755)
        self.tmpfs_read_only.append("/")
        for entry in os.listdir("/"):
            dst = self.host("/" + entry)
            if "/" + entry in ("/proc", "/dev", *SCRATCH):
                os.mkdir(dst, 0o755)
            elif _bind_entry("/" + entry, dst):
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
            _mount_tmpfs(self.host(path), 0o1777, MS_NOSUID | MS_NODEV)
            self.owned.add(path)
            self.scratch_dirs.add(path)
            self.writable.append(path)

    def dev(self) -> None:
        """A tmpfs ``/dev`` with the harmless devices of the host, ``pts`` and a private ``shm``."""
        dev = self.host("/dev")
        _mount_tmpfs(dev, 0o755)
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
            _mount_tmpfs(os.path.join(dev, "shm"), 0o1777, MS_NOSUID | MS_NODEV)
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
            _mount_tmpfs(self.host(ancestor), 0o755)
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
            _mount_tmpfs(self.host(path), 0o755)
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
            mount(None, target, None, MS_BIND | MS_REMOUNT | MS_RDONLY | _locked_flags(target))
        else:
            self.writable.append(container_path)

    def is_writable(self, container_path: str) -> bool:
        return any(_within(container_path, w) for w in self.writable)

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
            _mount_tmpfs(target, 0o755, MS_NOSUID | MS_NODEV, f",uid={self.uid},gid={self.gid}")
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
        _mount_tmpfs(target, os.stat(original).st_mode)
        _bind_entries(original, target)
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
                mount(None, target, None, MS_BIND | MS_REMOUNT | MS_RDONLY | _locked_flags(target))

    def enter(self) -> None:
        """Make the new root the root (``pivot_root``; ``chroot`` on unknown architectures)."""
        if SYS_PIVOT_ROOT is None:
            os.chroot(self.rootfs)
            os.chdir("/")
            return
        os.chdir(self.rootfs)
        _check(int(_libc.syscall(ctypes.c_long(SYS_PIVOT_ROOT), b".", b".")), "pivot_root")
        _check(_libc.umount2(b".", ctypes.c_int(MNT_DETACH)), "umount the old root")
        os.chdir("/")


def _within(path: str, directory: str) -> bool:
    return path == directory or path.startswith(directory.rstrip("/") + "/")


def _locked_flags(path: str) -> int:
    """The mount's current flags that a user namespace may not drop on a remount."""
    f = os.statvfs(path).f_flag
    pairs = ((os.ST_NOSUID, MS_NOSUID), (os.ST_NODEV, MS_NODEV), (os.ST_NOEXEC, MS_NOEXEC))
    atime = ((os.ST_NOATIME, MS_NOATIME), (os.ST_NODIRATIME, MS_NODIRATIME), (os.ST_RELATIME, MS_RELATIME))
    return sum(ms for st, ms in (*pairs, *atime) if f & st)


def resolve_executable(name: str, env: dict[str, str], root: str = "") -> str:
    """The path ``execve`` gets, or ``OSError`` with the message the status reports; ``root``
    prefixes every path looked at (``/proc/<pid>/root``: a container's root seen from outside)."""
    if "/" in name:
        if not os.path.exists(root + name):
            raise OSError(f'exec: "{name}": stat {name}: no such file or directory')
        if os.path.isdir(root + name) or not os.access(root + name, os.X_OK):
            raise OSError(f'exec: "{name}": permission denied')
        return name
    for directory in env.get("PATH", DEFAULT_PATH).split(os.pathsep):
        candidate = os.path.join(directory or ".", name)
        if os.path.isfile(root + candidate) and os.access(root + candidate, os.X_OK):
            return candidate
    raise OSError(f'exec: "{name}": executable file not found in $PATH')


def become_user(user: dict[str, Any], userns: bool) -> None:
    """Cut the capability bounding set (whoever the user: a set-user-ID program gets no more),
    then drop to the container's user."""
    uid, gid, groups = int(user["uid"]), int(user["gid"]), [int(g) for g in user.get("groups", [])]
    for cap in range(int(user.get("last_cap", 40)) + 1):
        if cap not in DEFAULT_CAPABILITIES:
            _libc.prctl(PR_CAPBSET_DROP, ctypes.c_ulong(cap), 0, 0, 0)
    if not userns:  # in a user namespace our ids are already the mapped ones; setgroups is denied
        os.setgroups(groups)
        os.setgid(gid)
        os.setuid(uid)


def exec_command(spec: dict[str, Any], userns: bool) -> None:
    """Become the user, change to the working directory, set the rlimit and exec (raises)."""
    env = dict(spec["env"])
    for sig in (signal.SIGPIPE, signal.SIGXFSZ):  # Python ignores these: the command must not
        signal.signal(sig, signal.SIG_DFL)
    if spec.get("user") is not None:
        become_user(spec["user"], userns)
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


class Forwarder:
    """Forwards the stop signals to ``target``; those caught before it is known are kept."""

    def __init__(self) -> None:
        self.target = 0
        self.pending: list[int] = []
        for sig in FORWARDED:
            signal.signal(sig, self._caught)

    def _caught(self, sig: int, _frame: object) -> None:
        if not self.target:
            self.pending.append(sig)
            return
        with contextlib.suppress(ProcessLookupError):
            os.kill(self.target, sig)

    def forward_to(self, pid: int) -> None:
        self.target = pid
        for sig in self.pending:
            self._caught(sig, None)
        self.pending.clear()


def _exit_like(status: int, signalled: int = 0) -> None:
    """Exit as a child with wait ``status`` did (or as killed by ``signalled``)."""
    sig = os.WTERMSIG(status) if os.WIFSIGNALED(status) else signalled
    if sig:
        signal.signal(sig, signal.SIG_DFL)
        os.kill(os.getpid(), sig)
        os._exit(128 + sig)
    os._exit(os.waitstatus_to_exitcode(status))


def run_container(spec: dict[str, Any], status_fd: int) -> None:
    """Set up and exec; raises OSError whose text is the StartError message."""
    if spec.get("tty"):  # stdin is a terminal's slave side: make it our controlling terminal
        fcntl.ioctl(0, termios.TIOCSCTTY, 0)
    kinds, userns = set(spec["namespaces"]), bool(spec["userns"])
    if "mnt" not in kinds:  # the kernel refuses mount namespaces: no isolation at all
        if spec["mounts"]:
            raise OSError("failed to set up the container's mount namespace: the kernel refuses it")
        if spec.get("hostname") and "uts" in kinds and not userns:
            enter_new_namespaces({"uts"}, False, (0, 0))
            sethostname(spec["hostname"])
        exec_command(spec, userns)  # no user namespace either: an agent that is not root keeps its ids
        return
    user = spec.get("user") or {"uid": os.getuid(), "gid": os.getgid()}
    join = spec.get("join") or {}
    joined = set(join.get("kinds", [])) if join else set()
    own = kinds - joined
    try:
        if join:  # the pod's (or a target container's) namespaces
            join_namespaces(int(join["pid"]), joined)
            if "user" in joined:  # the user namespace joined decides who we are
                user = spec["user"] = {"uid": os.getuid(), "gid": os.getgid(), "groups": []}
        enter_new_namespaces(own, userns and "user" not in joined, (int(user["uid"]), int(user["gid"])))
        if "uts" in own and spec.get("hostname"):
            sethostname(spec["hostname"])
        if spec.get("user") is not None:
            with open("/proc/sys/kernel/cap_last_cap") as f:
                spec["user"]["last_cap"] = int(f.read())
        builder = RootBuilder(spec["rootfs"], spec["stage"], int(user["uid"]), int(user["gid"]))
        builder.shm = spec.get("shm") or ""
        builder.build(
            spec["mounts"], spec["working_dir"], "pid" in kinds, spec.get("reveal", []), spec.get("hide", [])
        )
        if "pid" not in kinds:
            builder.finish()
            builder.enter()
    except OSError as err:
        raise OSError(f"failed to set up the container's mount namespace: {err}") from err
    if "pid" not in kinds:
        exec_command(spec, userns)
        return
    sig_r, sig_w = os.pipe()  # PID 1 tells us the signal that killed the command
    forwarder = Forwarder()  # installed before the fork: a stop signal is never lost in between
    child = os.fork()
    if child == 0:
        os.close(sig_r)
        _pid1(spec, builder, status_fd, sig_w, userns, init="pid" in own)
    forwarder.forward_to(child)
    os.write(status_fd, f"pid {child}\n".encode())
    os.close(status_fd)
    os.close(sig_w)
    while True:
        pid, status = os.waitpid(child, 0)
        if pid == child:
            break
    signalled = os.read(sig_r, 1)
    _exit_like(status, signalled[0] if signalled else 0)


def _pid1(
    spec: dict[str, Any], builder: RootBuilder, status_fd: int, sig_w: int, userns: bool, init: bool
) -> None:
    """PID 1 of the container: finish the root, start the command, forward, reap, exit like it.
    Not ``init`` (a namespace joined, whose PID 1 reaps): finish the root and exec the command."""
    try:
        try:
            builder.mount_proc()
            builder.finish()
            builder.enter()
        except OSError as err:
            raise OSError(f"failed to set up the container's mount namespace: {err}") from err
        with contextlib.suppress(OSError):
            os.chdir(spec["working_dir"] or "/")  # exec'd commands (nsenter --wd) start here
        if not init:
            exec_command(spec, userns)
    except (OSError, ValueError) as err:
        _report(status_fd, err)
        os._exit(128)
    forwarder = Forwarder()
    command = os.fork()
    if command == 0:
        os.close(sig_w)
        try:
            exec_command(spec, userns)
        except (OSError, ValueError) as err:
            _report(status_fd, err)
        os._exit(128)
    forwarder.forward_to(command)
    os.close(status_fd)
    while True:
        try:
            pid, status = os.wait()  # every orphan of the namespace is ours to reap
        except ChildProcessError:
            os._exit(128)
        if pid == command:
            break
    if os.WIFSIGNALED(status):
        os.write(sig_w, bytes([os.WTERMSIG(status)]))
        os._exit(128 + os.WTERMSIG(status))
    os._exit(os.waitstatus_to_exitcode(status))


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


def run_pause(spec: dict[str, Any], status_fd: int) -> None:
    """A pod's own namespaces (upstream's "pause" container), which the pod's containers join
    (``join``): UTS and IPC, and with ``pid`` (``shareProcessNamespace``) a PID namespace whose
    PID 1 only reaps. Without it the process holding the namespaces is ``sleep infinity``."""
    kinds = set(spec["namespaces"]) & {"uts", "ipc", "pid"}
    enter_new_namespaces(kinds, bool(spec["userns"]), (os.getuid(), os.getgid()))
    if "uts" in kinds and spec.get("hostname"):
        sethostname(spec["hostname"])
    if "pid" not in kinds:
        os.write(status_fd, f"pid {os.getpid()}\n".encode())  # close-on-exec: closed by the exec
        for sleep in ("/usr/bin/sleep", "/bin/sleep"):
            with contextlib.suppress(OSError):
                os.execv(sleep, ["sleep", "infinity"])
        os.close(status_fd)
        while True:
            signal.pause()
    child = os.fork()
    if child == 0:
        os.close(status_fd)
        waited = {signal.SIGCHLD, signal.SIGTERM, signal.SIGINT}
        signal.pthread_sigmask(signal.SIG_BLOCK, waited)  # blocked, so PID 1 still receives them
        while True:
            with contextlib.suppress(ChildProcessError):
                while os.waitpid(-1, os.WNOHANG)[0] > 0:
                    pass
            if signal.sigwait(waited) != signal.SIGCHLD:
                os._exit(0)
    os.write(status_fd, f"pid {child}\n".encode())
    os.close(status_fd)
    _exit_like(os.waitpid(child, 0)[1])


def _report(status_fd: int, err: Exception) -> None:
    message = err.args[-1] if isinstance(err, OSError) and len(err.args) == 1 else str(err)
    os.write(status_fd, str(message).encode())


def probe(userns: bool) -> list[str]:
    """The namespace kinds this kernel lets us create (each tried in a throwaway child)."""
    uid, gid = os.getuid(), os.getgid()
    allowed = []
    for kind in ("mnt", "uts", "ipc", "pid"):
        child = os.fork()
        if child == 0:
            try:
                enter_new_namespaces({kind} | ({"mnt"} if kind == "pid" else set()), userns, (uid, gid))
                if kind == "uts":
                    sethostname("probe")
                if kind == "pid":  # a PID namespace is of no use without its own /proc
                    grandchild = os.fork()
                    if grandchild == 0:
                        try:
                            mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC)
                        except OSError:
                            os._exit(1)
                        os._exit(0)
                    os._exit(os.waitstatus_to_exitcode(os.waitpid(grandchild, 0)[1]))
            except OSError:
                os._exit(1)
            os._exit(0)
        if os.waitstatus_to_exitcode(os.waitpid(child, 0)[1]) == 0:
            allowed.append(kind)
    return allowed


def main() -> None:
    if sys.argv[1] == "--probe":
        print(json.dumps(probe(sys.argv[2] == "1")))
        return
    spec_fd, status_fd = int(sys.argv[1]), int(sys.argv[2])
    os.set_inheritable(status_fd, False)
    with os.fdopen(spec_fd, "rb") as f:
        spec = json.loads(f.read())
    try:
        if spec.get("pause"):
            run_pause(spec, status_fd)
        run_container(spec, status_fd)
    except (OSError, ValueError) as err:
        _report(status_fd, err)
        os._exit(128)


if __name__ == "__main__":
    main()
