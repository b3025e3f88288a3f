"""The container init's work once its spec is read: namespaces, the root, the command's exec.

Namespaces (``spec["namespaces"]``, the kinds the runtime found the kernel allows): a user
namespace when the agent is not root (mapping the container's uid/gid to the agent's), a mount
namespace, a UTS namespace with the pod's hostname, an IPC namespace and a PID namespace. Those
in ``spec["join"]`` (``{"pid": N, "kinds": [...]}``: the pod's, held by its pause, or a target
container's) are entered (``setns`` on ``/proc/N/ns/*``) rather than created. With
``spec["pause"]`` the init is a pod's pause instead (``run_pause``). ``probe`` tells the runtime
which kinds the kernel allows.

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
set). The host's binds are also ``nosuid``. A user other than root keeps one capability,
``CAP_NET_BIND_SERVICE``, as an ambient capability: its server may listen on a port below 1024
(the tutorials' ``nginx`` on port 80), as containerd 2 allows every pod by setting
``net.ipv4.ip_unprivileged_port_start=0`` in the pod's network namespace (pods here share the
node's network namespace, so that sysctl would open low ports to every process of the node).
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import resource
import signal
import termios
from typing import Any

from nodeagent.runtime.rootfs import RootBuilder
from nodeagent.runtime.syscalls import (
    MS_NODEV,
    MS_NOEXEC,
    MS_NOSUID,
    drop_bounding_capability,
    enter_new_namespaces,
    join_namespaces,
    keep_capabilities,
    mount,
    raise_ambient_capabilities,
    sethostname,
)

DEFAULT_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
# What containerd and Docker grant a root container by default, minus CAP_MKNOD (without a
# devices cgroup a device node made in a writable directory would reach the host's disks).
DEFAULT_CAPABILITIES = frozenset({0, 1, 3, 4, 5, 6, 7, 8, 10, 13, 18, 29, 31})
CAP_NET_BIND_SERVICE = 10
# what a user other than root keeps (ambient): binding ports below 1024, as containerd 2's
# unprivileged ports give every pod
UNPRIVILEGED_CAPABILITIES = frozenset({CAP_NET_BIND_SERVICE})
FORWARDED = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP, signal.SIGQUIT, signal.SIGUSR1, signal.SIGUSR2)


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
            drop_bounding_capability(cap)
    if not userns:  # in a user namespace our ids are already the mapped ones; setgroups is denied
        os.setgroups(groups)
        os.setgid(gid)
        keep_capabilities(uid != 0)
        os.setuid(uid)
        if uid != 0:
            raise_ambient_capabilities(UNPRIVILEGED_CAPABILITIES)


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
        report(status_fd, err)
        os._exit(128)
    forwarder = Forwarder()
    command = os.fork()
    if command == 0:
        os.close(sig_w)
        try:
            exec_command(spec, userns)
        except (OSError, ValueError) as err:
            report(status_fd, err)
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


def report(status_fd: int, err: Exception) -> None:
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
