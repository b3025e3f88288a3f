"""What a process-runtime container may not do to the node: write the host's files, see or
signal its processes, change its hostname; and who it runs as (``nodeagent/README.md``,
"Isolation"). The host files these tests guard live outside ``/tmp`` (the container's ``/tmp``
is its own), in a directory every user could write to, so only the isolation protects them."""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from nodeagent.runtime import process, processcontainer
from nodeagent.runtime.containerinit import DEFAULT_CAPABILITIES
from nodeagent.runtime.interface import (
    ContainerConfig,
    ExecResult,
    Mount,
    PodSandboxConfig,
    StartContainerError,
)
from nodeagent.runtime.process import ProcessRuntime
from nodeagent.runtime.rootfs import SCRATCH
from tests.nodeagent.runtime.test_process import wait_exited

REPO = Path(__file__).parents[3]


def outside_scratch() -> Path:
    """A directory of the node that containers see through their read-only root: the checkout,
    unless it lies under a scratch directory (a clone in ``/tmp``: containers have their own
    ``/tmp``), then ``/var/local``."""
    real = os.path.realpath(REPO)
    if any(real == d or real.startswith(d + "/") for d in map(os.path.realpath, SCRATCH)):
        return Path("/var/local")
    return REPO


@pytest.fixture
async def runtime(tmp_path: Path) -> AsyncIterator[ProcessRuntime]:
    rt = ProcessRuntime(state_dir=str(tmp_path / "state"))
    yield rt
    await rt.close()


def precious_host_dir(prefix: str, parent: Path) -> Iterator[Path]:
    """A world-writable directory under ``parent`` holding a world-writable ``precious``
    (``keep me``), removed afterwards: the host files the isolation tests guard."""
    path = Path(tempfile.mkdtemp(prefix=prefix, dir=parent))
    try:
        path.chmod(0o777)
        (path / "precious").write_text("keep me\n")
        (path / "precious").chmod(0o666)
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


@pytest.fixture
def host_dir() -> Iterator[Path]:
    """A world-writable directory of the node, outside /tmp, holding ``precious``."""
    yield from precious_host_dir(".isolation-test-", outside_scratch())


async def sleeping(rt: ProcessRuntime, name: str = "web", hostname: str = "", **fields: object) -> str:
    sid = await rt.run_pod_sandbox(PodSandboxConfig("uid-" + name, name, "default", hostname=hostname))
    config = dataclasses.replace(ContainerConfig("c", "busybox", ["sleep", "60"]), **fields)  # type: ignore[arg-type]
    cid = await rt.create_container(sid, config)
    await rt.start_container(cid)
    return cid


async def sh(rt: ProcessRuntime, cid: str, script: str) -> ExecResult:
    return await rt.exec_sync(cid, ["sh", "-c", script], 10)


async def test_the_hosts_files_cannot_be_written_or_removed(runtime: ProcessRuntime, host_dir: Path) -> None:
    cid = await sleeping(runtime)
    result = await sh(
        runtime, cid,
        f"echo changed > {host_dir}/precious; rm -rf {host_dir}; touch {host_dir}/new; touch /etc/new-file;"
        f" rm -f /etc/hostname; cat {host_dir}/precious",
    )  # fmt: skip
    assert result.stdout == b"keep me\n"
    assert b"Read-only file system" in result.stderr
    assert (host_dir / "precious").read_text() == "keep me\n"
    assert sorted(os.listdir(host_dir)) == ["precious"]
    assert not os.path.exists("/etc/new-file")


async def test_root_cannot_write_the_host_or_remount_it(runtime: ProcessRuntime, host_dir: Path) -> None:
    cid = await sleeping(runtime, run_as_user=0)
    result = await sh(
        runtime, cid,
        f"id -u; rm -rf {host_dir}; mount -o remount,rw,bind {host_dir} 2>/dev/null || echo no-remount;"
        f" echo changed > {host_dir}/precious || echo no-write",
    )  # fmt: skip
    assert result.stdout == b"0\nno-remount\nno-write\n"
    assert (host_dir / "precious").read_text() == "keep me\n"


async def test_scratch_directories_are_private_and_writable(runtime: ProcessRuntime) -> None:
    marker = f"isolation-{os.getpid()}"
    cid = await sleeping(runtime)
    scratch = ("/tmp", "/var/tmp", "/run", "/dev/shm")
    script = " && ".join(f"echo x > {d}/{marker} && cat {d}/{marker}" for d in scratch)
    result = await sh(runtime, cid, script)
    assert (result.exit_code, result.stdout) == (0, b"x\n" * 4), result.stderr
    for directory in scratch:
        assert not os.path.exists(f"{directory}/{marker}")


async def test_the_working_dir_is_writable_and_private(runtime: ProcessRuntime) -> None:
    new = await sleeping(runtime, working_dir="/minikube-py-workdir")
    result = await sh(runtime, new, "pwd; echo hi > out; cat out")
    assert (result.exit_code, result.stdout) == (0, b"/minikube-py-workdir\nhi\n"), result.stderr
    assert not os.path.exists("/minikube-py-workdir")
    # the host's directory under an overlay: its own permissions still apply (root's, here)
    existing = await sleeping(runtime, "other", working_dir="/etc", run_as_user=0)
    result = await sh(runtime, existing, "echo hi > isolation-out; cat isolation-out; test -f passwd")
    assert (result.exit_code, result.stdout) == (0, b"hi\n"), result.stderr
    assert not os.path.exists("/etc/isolation-out")


async def test_the_runtimes_python_and_images_are_reachable_under_a_scratch_dir(
    runtime: ProcessRuntime, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Regression: a checkout or virtualenv under ``/tmp`` (CI's clean clone) was covered by the
    container's private ``/tmp``, so the built-in images and ``sys.executable`` could not run.
    What the runtime reveals is bound read-only into the private tmpfs, nothing else of the
    host's ``/tmp`` is."""
    program = tmp_path / "revealed" / "program.sh"
    program.parent.mkdir()
    program.write_text("echo revealed\n")
    (tmp_path / "not-revealed").write_text("secret\n")
    monkeypatch.setattr(processcontainer, "RUNTIME_PATHS", (str(program.parent),))
    cid = await sleeping(runtime)
    result = await sh(runtime, cid, f"sh {program}; cat {tmp_path}/not-revealed; echo x > {program}")
    assert result.stdout == b"revealed\n", result.stderr
    assert b"No such file" in result.stderr and b"Read-only file system" in result.stderr
    assert program.read_text() == "echo revealed\n"


async def test_processes_see_only_their_own_pid_namespace(runtime: ProcessRuntime) -> None:
    await sleeping(runtime, "other")  # another pod's processes are not seen either
    cid = await sleeping(runtime)
    result = await sh(runtime, cid, "echo $$; cat /proc/1/cmdline | tr '\\0' ' '; echo; ps -e -o pid=,args=")
    lines = result.stdout.decode().splitlines()
    assert result.exit_code == 0, result.stderr
    pids = [int(line.split()[0]) for line in lines[2:]]
    commands = [line.split(None, 1)[1] for line in lines[2:]]
    assert "namespaces.py" in lines[1]  # PID 1 is the container's init, not the node's
    assert 1 in pids and len(pids) <= 6, lines  # init, sleep, and this exec's sh and ps
    assert "sleep 60" in commands and not any("pytest" in c for c in commands)
    kill = await sh(runtime, cid, f"kill -0 {os.getpid()} 2>&1 || echo unreachable")
    assert kill.stdout.endswith(b"unreachable\n")


async def test_the_hostname_is_the_pods(runtime: ProcessRuntime) -> None:
    host = os.uname().nodename
    named = await sleeping(runtime, "web-0")
    assert (await sh(runtime, named, "hostname; echo $HOSTNAME")).stdout == b"web-0\nweb-0\n"
    custom = await sleeping(runtime, "db-1", hostname="primary")
    assert (await sh(runtime, custom, "hostname; echo $HOSTNAME")).stdout == b"primary\nprimary\n"
    assert (await runtime.exec_sync(named, ["hostname", "changed"], 5)).exit_code != 0  # not root
    root = await sleeping(runtime, "root-0", run_as_user=0)  # nor root, without CAP_SYS_ADMIN
    assert (await runtime.exec_sync(root, ["hostname", "changed"], 5)).exit_code != 0
    assert os.uname().nodename == host


async def test_the_user_is_nobody_unless_asked(runtime: ProcessRuntime) -> None:
    default = await sleeping(runtime)
    assert (await sh(runtime, default, "id -u; id -g")).stdout == b"65534\n65534\n"
    # whoever the user, the same capability bounding set, and the node's files are nosuid
    bounding = f"{sum(1 << cap for cap in DEFAULT_CAPABILITIES):016x}"
    script = "grep CapBnd /proc/self/status; awk '$5 == \"/usr\" {print $6}' /proc/self/mountinfo"
    result = await sh(runtime, default, script)
    lines = result.stdout.decode().split()
    assert lines[:2] == ["CapBnd:", bounding], lines
    assert {"ro", "nosuid"} <= set(lines[-1].split(",")), lines
    assert bounding == "00000000a00425fb"  # containerd's default set (a80425fb) without CAP_MKNOD
    root = await sleeping(runtime, "root", run_as_user=0)
    assert (await sh(runtime, root, "id -u")).stdout == b"0\n"
    chosen = await sleeping(runtime, "app", run_as_user=1234, run_as_group=2345, supplemental_groups=(3456,))
    assert (await sh(runtime, chosen, "id -u; id -g; id -G")).stdout == b"1234\n2345\n2345 3456\n"


async def test_the_command_runs_as_the_user_and_volumes_stay_writable(
    runtime: ProcessRuntime, tmp_path: Path
) -> None:
    volume = tmp_path / "data"
    volume.mkdir(mode=0o777)
    volume.chmod(0o777)  # as an emptyDir is
    log = tmp_path / "0.log"
    sid = await runtime.run_pod_sandbox(PodSandboxConfig("uid", "web", "default"))
    script = "id -u > /data/uid; hostname >> /data/uid; echo $$ >> /data/uid"
    config = ContainerConfig(
        "c", "busybox", ["sh", "-c", script], mounts=[Mount(str(volume), "/data")], log_path=str(log)
    )
    cid = await runtime.create_container(sid, config)
    await runtime.start_container(cid)
    await wait_exited(runtime, cid)
    assert (await runtime.container_status(cid)).exit_code == 0
    assert (volume / "uid").read_text() == "65534\nweb\n2\n"  # the command is PID 2, after the init
    assert (volume / "uid").stat().st_uid == 65534


async def test_hidden_directories_look_empty(tmp_path: Path, host_dir: Path) -> None:
    rt = ProcessRuntime(state_dir=str(tmp_path / "state"), hidden=[str(host_dir)])
    try:
        cid = await sleeping(rt, run_as_user=0)  # root, who could otherwise read anything
        result = await sh(rt, cid, f"ls -A {host_dir}; cat {host_dir}/precious")
        assert (result.stdout, result.exit_code) == (b"", 1)
    finally:
        await rt.close()


async def test_share_process_namespace_puts_the_pods_containers_in_one(runtime: ProcessRuntime) -> None:
    config = PodSandboxConfig("uid", "shared", "default", share_process_namespace=True)
    sid = await runtime.run_pod_sandbox(config)
    first = await runtime.create_container(sid, ContainerConfig("a", "busybox", ["sleep", "61"]))
    await runtime.start_container(first)
    second = await runtime.create_container(sid, ContainerConfig("b", "busybox", ["sleep", "62"]))
    await runtime.start_container(second)
    result = await sh(runtime, second, "hostname; ps -e -o pid=,args=")
    lines = result.stdout.decode().splitlines()
    processes = {int(line.split()[0]): line.split(None, 1)[1] for line in lines[1:]}
    assert lines[0] == "shared"
    assert "namespaces.py" in processes[1]  # the pod's PID 1 (its "pause")
    assert {"sleep 61", "sleep 62"} <= set(processes.values())
    # a container that is not PID 1 ends on SIGTERM, and the others keep running
    await runtime.stop_container(first, 5)
    assert (await runtime.container_status(first)).exit_code == 143
    assert (await sh(runtime, second, "ps -e -o args= | grep -c '^sleep'")).stdout == b"1\n"
    await runtime.stop_pod_sandbox(sid)
    assert (await runtime.container_status(second)).state.value == "CONTAINER_EXITED"


async def test_a_target_container_shares_its_pid_namespace(runtime: ProcessRuntime) -> None:
    """``kubectl debug --target``: another container of the pod, in the target's namespaces."""
    sid = await runtime.run_pod_sandbox(PodSandboxConfig("uid", "app", "default"))
    target = await runtime.create_container(sid, ContainerConfig("app", "busybox", ["sleep", "63"]))
    await runtime.start_container(target)
    debug = ContainerConfig("debugger", "busybox", ["sleep", "64"], target_container_id=target)
    debugger = await runtime.create_container(sid, debug)
    await runtime.start_container(debugger)
    result = await sh(runtime, debugger, "hostname; ps -e -o pid=,args=")
    lines = result.stdout.decode().splitlines()
    processes = {int(line.split()[0]): line.split(None, 1)[1] for line in lines[1:]}
    assert lines[0] == "app" and processes[2] == "sleep 63" and "sleep 64" in processes.values()
    assert runtime.namespace_pid(debugger) != runtime.namespace_pid(target)
    gone = ContainerConfig("late", "busybox", ["true"], target_container_id="no-such-container")
    late = await runtime.create_container(sid, gone)
    with pytest.raises(StartContainerError, match="is not running"):
        await runtime.start_container(late)
    assert (await runtime.container_status(late)).reason == "StartError"


@pytest.mark.parametrize("allowed", [["mnt", "uts", "ipc"], []])
async def test_namespaces_the_kernel_refuses_are_logged_and_skipped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture, allowed: list[str]
) -> None:
    async def probe(userns: bool) -> list[str]:
        return allowed

    monkeypatch.setattr(process, "probe_namespaces", probe)
    rt = ProcessRuntime(state_dir=str(tmp_path / "state"))
    try:
        with caplog.at_level(logging.WARNING, logger="nodeagent"):
            cid = await sleeping(rt, run_as_user=1234)
        assert "the kernel refuses pid namespaces: containers see and may signal the node's processes" in (
            caplog.text
        )
        result = await sh(rt, cid, f"id -u; test -d /proc/{os.getpid()} && echo host-visible")
        assert result.stdout == b"1234\nhost-visible\n"
        if not allowed:  # no mount namespace: volumes cannot be mounted, so such a container fails
            sid = await rt.run_pod_sandbox(PodSandboxConfig("uid-v", "v", "default"))
            mounted = ContainerConfig("c", "busybox", ["true"], mounts=[Mount(str(tmp_path), "/data")])
            with pytest.raises(StartContainerError, match="refuses"):
                await rt.start_container(await rt.create_container(sid, mounted))
    finally:
        await rt.close()


async def test_stats_count_the_command_not_the_container_init(runtime: ProcessRuntime) -> None:
    cid = await sleeping(runtime)
    for _ in range(20):  # the command may be caught while it execs (no memory for a moment)
        [stats] = [s for s in await runtime.container_stats() if s.container_id == cid]
        if stats.memory_working_set_bytes > 0:
            break
        await asyncio.sleep(0.1)
    # `sleep` is about a megabyte; the init's two Python processes would add some 25 MB
    assert 0 < stats.memory_working_set_bytes < 8 << 20


async def test_a_pods_containers_share_ipc_and_dev_shm_but_not_with_the_node(runtime: ProcessRuntime) -> None:
    sid = await runtime.run_pod_sandbox(PodSandboxConfig("uid", "ipc", "default"))
    first = await runtime.create_container(sid, ContainerConfig("a", "busybox", ["sleep", "61"]))
    await runtime.start_container(first)
    second = await runtime.create_container(sid, ContainerConfig("b", "busybox", ["sleep", "62"]))
    await runtime.start_container(second)
    script = "ipcmk -M 4096 >/dev/null; ipcs -m | awk '$1 ~ /^0x/ {print $1}'; echo shared > /dev/shm/note"
    [key] = (await sh(runtime, first, script)).stdout.decode().split()  # a random key: the only one
    seen = await sh(runtime, second, f"ipcs -m | grep -c '^{key} '; cat /dev/shm/note; hostname")
    assert seen.stdout == b"1\nshared\nipc\n", seen.stderr
    other = await sleeping(runtime, "elsewhere")
    assert (await sh(runtime, other, f"ipcs -m | grep -c '^{key} '; ls /dev/shm")).stdout == b"0\n"
    assert not os.path.exists("/dev/shm/note")
    node = subprocess.run(["ipcs", "-m"], capture_output=True, text=True).stdout
    assert f"{key} " not in node
    processes = (await sh(runtime, second, "ps -e -o args=")).stdout.decode()
    assert "sleep 61" not in processes  # each container still has its own PID namespace


async def test_a_user_other_than_root_may_bind_ports_below_1024(
    runtime: ProcessRuntime, tmp_path: Path
) -> None:
    """The tutorials' ``nginx`` listens on port 80 as whoever runs it: as containerd 2 allows
    every pod (unprivileged ports), a non-root container keeps ``CAP_NET_BIND_SERVICE``, ambient
    (its command and what ``kubectl exec`` runs), and nothing else."""
    bind = (
        f'{sys.executable} -c "import socket; s = socket.socket(); '
        f"s.bind(('127.77.{os.getpid() % 250}.{os.getpid() % 249 + 1}', 80)); print('bound')\""
    )
    default = await sleeping(runtime)
    status = (await sh(runtime, default, "grep -E '^Cap(Eff|Amb)' /proc/self/status")).stdout.decode().split()
    assert status == ["CapEff:", "0000000000000400", "CapAmb:", "0000000000000400"]  # bit 10 only
    result = await sh(runtime, default, bind)
    assert result.stdout == b"bound\n", result.stderr
    # the container's own command too (the container init raises it before its exec)
    log = tmp_path / "bind.log"
    sid = await runtime.run_pod_sandbox(PodSandboxConfig("uid-bind", "bind", "default"))
    cid = await runtime.create_container(
        sid, ContainerConfig("c", "busybox", ["sh", "-c", bind], log_path=str(log))
    )
    await runtime.start_container(cid)
    await wait_exited(runtime, cid)
    assert (await runtime.container_status(cid)).exit_code == 0, log.read_text()
    assert "bound" in log.read_text()
