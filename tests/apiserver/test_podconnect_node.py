"""pods/log through a real apiserver (uvicorn on loopback) to a real HTTPS node agent stand-in
(``tests.kubelet_server``): the location, the client certificate, streaming, failures."""

from __future__ import annotations

import asyncio
import contextlib
import socket
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest
import uvicorn

from apiserver.bootstrap.objects import ensure_bootstrap_objects
from apiserver.nodeproxy import NodeConnection
from apiserver.registry.catalog import Catalog
from apiserver.server import build_app
from apiserver.storage.memory import MemoryKV
from minikube_py.clientcert import ClientCertHttpToolsProtocol
from minikube_py.pki import ClusterPKI, ensure_cluster_pki, load_certificate_authority
from tests.kubelet_server import FakeKubelet, Reply

NS = "/api/v1/namespaces/default"


@dataclass
class Setup:
    api: httpx.AsyncClient
    kubelet: FakeKubelet
    pki: ClusterPKI


@contextlib.asynccontextmanager
async def served(nodes: NodeConnection) -> AsyncIterator[httpx.AsyncClient]:
    """The apiserver app over plain HTTP on a loopback port (uvicorn streams; ASGITransport
    would buffer the whole response)."""
    kv = MemoryKV()
    catalog = Catalog(kv)
    caches = asyncio.create_task(catalog.run())
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    app = build_app(kv, catalog, nodes=nodes)
    config = uvicorn.Config(app, lifespan="off", log_config=None, http=ClientCertHttpToolsProtocol)
    server = uvicorn.Server(config)
    try:
        await catalog.wait_ready()
        await ensure_bootstrap_objects(catalog)
        serving = asyncio.create_task(server.serve(sockets=[sock]))
        while not server.started:
            await asyncio.sleep(0.01)
        url = f"http://127.0.0.1:{sock.getsockname()[1]}"
        async with httpx.AsyncClient(base_url=url, timeout=10) as client:
            yield client
        server.should_exit = True
        await serving
    finally:
        caches.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await caches
        sock.close()
        await kv.close()


def kubelet_connection(pki: ClusterPKI, ca_file: Path | None = None) -> NodeConnection:
    client = pki.kubelet_client
    return NodeConnection(ca_file=ca_file or pki.ca.cert, client_cert=client.cert, client_key=client.key)


@pytest.fixture
async def setup(tmp_path: Path) -> AsyncIterator[Setup]:
    pki = ensure_cluster_pki(tmp_path / "pki")
    kubelet = FakeKubelet(load_certificate_authority(pki.ca), tmp_path)
    async with kubelet, served(kubelet_connection(pki)) as api:
        await bind_pod(api, kubelet.port)
        yield Setup(api, kubelet, pki)


async def bind_pod(api: httpx.AsyncClient, port: int) -> None:
    """Node n1 (an unroutable ExternalIP listed first: InternalIP is preferred) and pod web on it."""
    addresses = [
        {"type": "ExternalIP", "address": "192.0.2.1"},
        {"type": "InternalIP", "address": "127.0.0.1"},
    ]
    status = {"addresses": addresses, "daemonEndpoints": {"kubeletEndpoint": {"Port": port}}}
    node = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"}, "status": status}
    assert (await api.post("/api/v1/nodes", json=node)).status_code == 201
    containers = [{"name": "app", "image": "i"}, {"name": "side", "image": "i"}]
    pod = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "web"},
        "spec": {"nodeName": "n1", "containers": containers},
    }
    assert (await api.post(f"{NS}/pods", json=pod)).status_code == 201


async def test_log_comes_from_the_node_agent_with_the_apiservers_client_certificate(setup: Setup) -> None:
    setup.kubelet.reply = Reply(chunks=[b"hello\n", b"world\n"], content_type="application/octet-stream")
    since = "sinceTime=2024-01-02T03:04:05%2B02:00"
    query = f"container=app&tailLines=5&timestamps=true&limitBytes=100&previous=1&{since}"
    response = await setup.api.get(f"{NS}/pods/web/log?{query}")
    assert (response.status_code, response.text) == (200, "hello\nworld\n")
    assert response.headers["content-type"] == "text/plain"
    [seen] = setup.kubelet.seen
    assert (seen.method, seen.path) == ("GET", "/containerLogs/default/web/app")
    assert (
        seen.query
        == "limitBytes=100&previous=true&sinceTime=2024-01-02T01%3A04%3A05Z&tailLines=5&timestamps=true"
    )
    assert seen.client == {
        "commonName": "kube-apiserver-kubelet-client",
        "organizationName": "kubeadm:cluster-admins",
    }


async def test_follow_streams_each_chunk_as_the_node_agent_writes_it(setup: Setup) -> None:
    release = asyncio.Event()
    setup.kubelet.reply = Reply(chunks=[b"first\n", b"second\n"], hold=release)
    async with setup.api.stream("GET", f"{NS}/pods/web/log?container=side&follow=true") as response:
        assert response.status_code == 200
        chunks = response.aiter_bytes()
        assert await asyncio.wait_for(anext(chunks), 5) == b"first\n"  # while the agent holds
        release.set()
        rest = b"".join([chunk async for chunk in chunks])
    assert rest == b"second\n"
    assert setup.kubelet.seen[0].path == "/containerLogs/default/web/side"
    assert setup.kubelet.seen[0].query == "follow=true"


async def test_a_client_leaving_a_follow_stream_hangs_up_on_the_node_agent(setup: Setup) -> None:
    setup.kubelet.reply = Reply(chunks=[b"first\n", b"never\n"], hold=asyncio.Event())
    async with setup.api.stream("GET", f"{NS}/pods/web/log?container=app&follow=true") as response:
        assert await asyncio.wait_for(anext(response.aiter_bytes()), 5) == b"first\n"
    for _ in range(500):
        if setup.kubelet.hangups:
            break
        await asyncio.sleep(0.01)
    assert setup.kubelet.hangups == 1


@pytest.mark.parametrize(
    ("status", "body", "code", "reason", "message"),
    [
        (
            404,
            "no such container",
            404,
            "NotFound",
            "the server could not find the requested resource ( pods/log web)",
        ),
        (500, "runtime down", 500, "InternalError", "Internal error occurred: runtime down"),
        (400, "bad tail", 400, "BadRequest", "bad tail"),
        (403, "Forbidden (user=x)", 403, "Forbidden", "Forbidden (user=x) ( pods/log web)"),
    ],
)
async def test_node_agent_errors_become_upstreams_statuses(
    setup: Setup, status: int, body: str, code: int, reason: str, message: str
) -> None:
    setup.kubelet.reply = Reply(status=status, chunks=[body.encode()])
    response = await setup.api.get(f"{NS}/pods/web/log?container=app")
    assert response.status_code == code
    assert (response.json()["reason"], response.json()["message"]) == (reason, message)


async def test_unreachable_node_agent_is_a_status_with_gos_dial_error(setup: Setup) -> None:
    await setup.kubelet.stop()
    port = setup.kubelet.port
    response = await setup.api.get(f"{NS}/pods/web/log?container=app&follow=true")
    assert response.status_code == 500
    body = response.json()
    assert body["kind"] == "Status" and body["reason"] == ""
    url = f"https://127.0.0.1:{port}/containerLogs/default/web/app?follow=true"
    assert body["message"] == f'Get "{url}": dial tcp 127.0.0.1:{port}: connect: connection refused'


async def test_node_agent_not_signed_by_the_trusted_ca_is_refused_unless_insecure(tmp_path: Path) -> None:
    pki, stranger = ensure_cluster_pki(tmp_path / "pki"), ensure_cluster_pki(tmp_path / "other")
    kubelet = FakeKubelet(load_certificate_authority(pki.ca), tmp_path)
    async with kubelet, served(kubelet_connection(pki, ca_file=stranger.ca.cert)) as api:
        await bind_pod(api, kubelet.port)
        kubelet.reply = Reply(chunks=[b"ok\n"])
        refused = await api.get(f"{NS}/pods/web/log?container=app")
        insecure = await api.get(f"{NS}/pods/web/log?container=app&insecureSkipTLSVerifyBackend=true")
    assert refused.status_code == 500
    assert refused.json()["message"].startswith(
        f'Get "https://127.0.0.1:{kubelet.port}/containerLogs/default/web/app"'
    )
    assert ": tls: failed to verify certificate: x509: " in refused.json()["message"]
    assert (insecure.status_code, insecure.text) == (200, "ok\n")
    assert kubelet.seen[-1].query == ""  # insecureSkipTLSVerifyBackend is the apiserver's, not passed on


async def test_exec_upgrade_is_tunnelled_to_the_node_agents_exec(setup: Setup) -> None:
    """The request head goes to the node agent with its path, the kubelet's stream parameters
    and the apiserver's client certificate; its answer comes back byte for byte."""
    setup.kubelet.reply = Reply(chunks=[b"from the node agent"], status=400)
    upgrade = {"Connection": "Upgrade", "Upgrade": "SPDY/3.1", "Authorization": "Bearer secret"}
    response = await setup.api.post(f"{NS}/pods/web/exec?container=app&command=ls&stdout=1", headers=upgrade)
    assert (response.status_code, response.text) == (400, "from the node agent")
    seen = setup.kubelet.seen[-1]
    assert (seen.method, seen.path, seen.query) == ("POST", "/exec/default/web/app", "command=ls&output=1")
    assert seen.client["commonName"] == "kube-apiserver-kubelet-client"
    plain = await setup.api.post(f"{NS}/pods/web/exec?container=app&command=ls")
    assert (plain.status_code, plain.json()["message"]) == (400, "Upgrade request required")
