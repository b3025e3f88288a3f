"""The agent's HTTPS API over real TLS on loopback: client certificates, healthz, container logs."""

from __future__ import annotations

import asyncio
import ssl
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest
from cryptography.hazmat.primitives import serialization

from minikube_py.httphead import TOO_LARGE_RESPONSE
from minikube_py.metrics import Registry
from minikube_py.pki import (
    KUBELET_CLIENT_USER,
    CertificateAuthority,
    issue_client_certificate,
    new_certificate_authority,
    write_file,
)
from nodeagent.logs import CRILogWriter
from nodeagent.node.containerlogs import PodLogTarget, pod_log_directory
from nodeagent.node.server import AgentServer, agent_app
from nodeagent.node.tls import ensure_serving_certificate

RUNNING = {
    "name": "c",
    "restartCount": 1,
    "state": {"running": {}},
    "lastState": {"terminated": {"exitCode": 1}},
}


@dataclass
class Agent:
    url: str
    root: Path
    ca: CertificateAuthority
    pods: dict[tuple[str, str], PodLogTarget]

    def client(self, user: str | None, groups: tuple[str, ...] = ()) -> httpx.AsyncClient:
        context = ssl.create_default_context(cafile=str(self.root / "pki" / "client-ca.crt"))
        if user is not None:
            cert, key = issue_client_certificate(self.ca, user=user, groups=groups)
            cert_file, key_file = self.root / f"{user}.crt", self.root / f"{user}.key"
            write_file(cert_file, cert.public_bytes(serialization.Encoding.PEM))
            write_file(
                key_file,
                key.private_bytes(
                    serialization.Encoding.PEM,
                    serialization.PrivateFormat.PKCS8,
                    serialization.NoEncryption(),
                ),
            )
            context.load_cert_chain(cert_file, key_file)
        return httpx.AsyncClient(base_url=self.url, verify=context, trust_env=False)

    def write(self, attempt: int, *lines: str) -> None:
        path = Path(self.pods[("default", "web")].log_directory) / "c" / f"{attempt}.log"
        writer = CRILogWriter(str(path))
        for line in lines:
            writer.write("stdout", line.encode() + b"\n")
        writer.close()


@pytest.fixture
async def agent(tmp_path: Path) -> AsyncIterator[Agent]:
    ca = new_certificate_authority()
    pair, client_ca = ensure_serving_certificate(ca, tmp_path / "pki")
    log_dir = pod_log_directory(tmp_path, "default", "web", "uid-1")
    pods = {("default", "web"): PodLogTarget("uid-1", log_dir, [dict(RUNNING)])}
    app = agent_app(lambda ns, name: pods.get((ns, name)), registry=Registry(), poll_interval=0.02)
    server = AgentServer(app, cert=pair, client_ca=client_ca)
    task = asyncio.create_task(server.serve())
    for _ in range(100):
        try:
            await asyncio.open_connection("127.0.0.1", server.port)
            break
        except OSError:
            await asyncio.sleep(0.05)
    yield Agent(f"https://127.0.0.1:{server.port}", tmp_path, ca, pods)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task


async def test_healthz_and_metrics_need_no_certificate(agent: Agent) -> None:
    async with agent.client(None) as client:
        assert (await client.get("/healthz")).text == "ok"
        assert (await client.get("/metrics")).status_code == 200


@pytest.mark.parametrize(
    ("user", "groups", "code", "body"),
    [
        (None, (), 401, "Unauthorized"),
        (
            "system:node:other",
            ("system:nodes",),
            403,
            "Forbidden (user=system:node:other, verb=get, resource=nodes, subresource=proxy)",
        ),
        (KUBELET_CLIENT_USER, ("kubeadm:cluster-admins",), 200, "one\ntwo\n"),
        ("kubernetes-admin", ("system:masters",), 200, "one\ntwo\n"),
    ],
)
async def test_who_may_read_logs(
    agent: Agent, user: str | None, groups: tuple[str, ...], code: int, body: str
) -> None:
    agent.write(1, "one", "two")
    async with agent.client(user, groups) as client:
        response = await client.get("/containerLogs/default/web/c")
    assert (response.status_code, response.text) == (code, body)


@pytest.mark.parametrize(
    ("query", "status", "code", "body"),
    [
        ("", RUNNING, 200, "three\nfour\n"),
        ("?tailLines=1", RUNNING, 200, "four\n"),
        ("?limitBytes=3", RUNNING, 200, "thr"),
        ("?previous=true", RUNNING, 200, "one\ntwo\n"),
        (
            "?previous=true",
            {"name": "c", "restartCount": 0, "state": {"running": {}}},
            400,
            'previous terminated container "c" in pod "web" not found',
        ),
        (
            "",
            {"name": "c", "restartCount": 0, "state": {"waiting": {"reason": "ContainerCreating"}}},
            400,
            'container "c" in pod "web" is waiting to start: ContainerCreating',
        ),
        (  # crash looping: the last terminated attempt
            "",
            {
                "name": "c",
                "restartCount": 2,
                "state": {"waiting": {"reason": "CrashLoopBackOff"}},
                "lastState": {"terminated": {"exitCode": 1}},
            },
            200,
            "three\nfour\n",
        ),
        ("?tailLines=x", RUNNING, 400, "invalid tailLines 'x': not an integer"),
    ],
)
async def test_container_logs(
    agent: Agent, query: str, status: dict[str, object], code: int, body: str
) -> None:
    agent.write(0, "one", "two")
    agent.write(1, "three", "four")
    agent.pods[("default", "web")] = PodLogTarget(
        "uid-1", agent.pods[("default", "web")].log_directory, [status]
    )
    async with agent.client("kubernetes-admin", ("system:masters",)) as client:
        response = await client.get(f"/containerLogs/default/web/c{query}")
    assert (response.status_code, response.text) == (code, body)


async def test_timestamps_and_not_found(agent: Agent) -> None:
    agent.write(1, "one")
    async with agent.client("kubernetes-admin", ("system:masters",)) as client:
        stamped = (await client.get("/containerLogs/default/web/c?timestamps=true")).text
        missing_pod = await client.get("/containerLogs/default/nope/c")
        missing_container = await client.get("/containerLogs/default/web/x")
    stamp, text = stamped.split(" ", 1)
    assert text == "one\n" and stamp.endswith("Z") and "T" in stamp
    assert (missing_pod.status_code, missing_pod.text) == (404, 'pod "nope" does not exist')
    assert (missing_container.status_code, missing_container.text) == (
        404,
        'container "x" not found in pod "web"',
    )


async def test_follow_streams_new_lines_until_container_stops(agent: Agent) -> None:
    path = Path(agent.pods[("default", "web")].log_directory) / "c" / "1.log"
    writer = CRILogWriter(str(path))
    writer.write("stdout", b"first\n")
    async with (
        agent.client("kubernetes-admin", ("system:masters",)) as client,
        client.stream("GET", "/containerLogs/default/web/c?follow=true") as response,
    ):
        chunks = response.aiter_text()
        assert await asyncio.wait_for(anext(chunks), 5) == "first\n"
        writer.write("stdout", b"second\n")
        assert await asyncio.wait_for(anext(chunks), 5) == "second\n"
        writer.write("stdout", b"last\n")
        writer.close()
        done = {"name": "c", "restartCount": 1, "state": {"terminated": {"exitCode": 0, "containerID": "x"}}}
        agent.pods[("default", "web")] = PodLogTarget("uid-1", str(path.parent.parent), [done])
        rest = [chunk async for chunk in chunks]
    assert "".join(rest) == "last\n"


async def test_a_head_over_one_mib_is_refused_with_431(agent: Agent) -> None:
    """The agent serves with the apiserver's bounded heads (``minikube_py.httphead``): an
    anonymous client cannot make it buffer a huge header."""
    context = ssl.create_default_context(cafile=str(agent.root / "pki" / "client-ca.crt"))
    port = int(agent.url.rsplit(":", 1)[1])
    reader, writer = await asyncio.open_connection("127.0.0.1", port, ssl=context)
    writer.write(b"GET /healthz HTTP/1.1\r\nHost: a\r\nX-Big: ")

    async def send() -> None:
        for _ in range(64):
            writer.write(b"a" * 65536)
            await writer.drain()

    sending = asyncio.create_task(send())
    answer = b""
    async with asyncio.timeout(10):
        while chunk := await reader.read(65536):
            answer += chunk
    sending.cancel()
    writer.close()
    assert answer == TOO_LARGE_RESPONSE
    async with agent.client(None) as client:
        assert (await client.get("/healthz")).status_code == 200
