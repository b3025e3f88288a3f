"""A process-runtime container reads its sandbox's resolv.conf at /etc/resolv.conf (read-only,
the node's own untouched), and a kubelet-managed /etc/hosts bound by the agent."""

from __future__ import annotations

import dataclasses
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from nodeagent.pod.etchosts import ensure_hosts_file
from nodeagent.runtime.interface import ContainerConfig, DNSConfig, PodSandboxConfig
from nodeagent.runtime.process import ProcessRuntime

DNS = DNSConfig(
    ("127.96.0.10",), ("default.svc.cluster.local", "svc.cluster.local", "cluster.local"), ("ndots:5",)
)


@pytest.fixture
async def runtime(tmp_path: Path) -> AsyncIterator[ProcessRuntime]:
    rt = ProcessRuntime(state_dir=str(tmp_path / "state"))
    yield rt
    await rt.close()


async def started(rt: ProcessRuntime, dns: DNSConfig | None, **fields: object) -> str:
    sid = await rt.run_pod_sandbox(PodSandboxConfig("uid-1", "web", "default", dns_config=dns))
    config = dataclasses.replace(ContainerConfig("c", "busybox", ["sleep", "60"]), **fields)  # type: ignore[arg-type]
    cid = await rt.create_container(sid, config)
    await rt.start_container(cid)
    return cid


async def test_the_container_reads_its_pods_resolv_conf(runtime: ProcessRuntime) -> None:
    node = Path("/etc/resolv.conf").read_bytes()
    cid = await started(runtime, DNS, run_as_user=0)  # root: only the read-only bind stops the write
    result = await runtime.exec_sync(
        cid, ["sh", "-c", "cat /etc/resolv.conf; echo x >> /etc/resolv.conf"], 10
    )
    assert result.stdout.decode() == (
        "nameserver 127.96.0.10\n"
        "search default.svc.cluster.local svc.cluster.local cluster.local\n"
        "options ndots:5\n"
    )
    assert b"Read-only file system" in result.stderr
    assert Path("/etc/resolv.conf").read_bytes() == node


async def test_without_a_dns_config_the_node_s_file_shows(runtime: ProcessRuntime) -> None:
    cid = await started(runtime, None)
    result = await runtime.exec_sync(cid, ["cat", "/etc/resolv.conf"], 10)
    assert result.stdout == Path("/etc/resolv.conf").read_bytes()


async def test_the_agents_hosts_file_is_the_containers(runtime: ProcessRuntime, tmp_path: Path) -> None:
    pod = {
        "metadata": {"name": "db-0", "namespace": "default"},
        "spec": {"hostname": "db-0", "subdomain": "db"},
    }
    mount = ensure_hosts_file(tmp_path / "pod", pod, ["127.1.0.2"], "db-0", "cluster.local")
    cid = await started(runtime, DNS, mounts=[mount])
    result = await runtime.exec_sync(cid, ["cat", "/etc/hosts"], 10)
    assert b"127.1.0.2\tdb-0.db.default.svc.cluster.local\tdb-0\n" in result.stdout
    assert result.stdout.startswith(b"# Kubernetes-managed hosts file.\n")
