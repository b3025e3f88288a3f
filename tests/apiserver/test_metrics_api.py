"""``metrics.k8s.io/v1beta1`` through a real apiserver (uvicorn on loopback) from a real node
agent API (``AgentServer`` with ``/stats/summary`` over a fake runtime): discovery, NodeMetrics,
PodMetrics, selectors, nodes left out, read-only verbs; and the bootstrap reader role."""

from __future__ import annotations

import asyncio
import contextlib
import re
import socket
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

from apiserver.authz.bootstrappolicy import cluster_roles
from minikube_py.clock import FakeClock
from minikube_py.metrics import Registry
from minikube_py.pki import ensure_cluster_pki, load_certificate_authority
from nodeagent.agent import ServingTLS
from nodeagent.node.server import AgentServer, agent_app
from nodeagent.runtime.fake import FakeRuntime
from nodeagent.stats.endpoint import summary_lookup
from nodeagent.stats.host import SimulatedHost
from nodeagent.stats.summary import SummaryProvider
from tests.apiserver.test_podconnect_node import kubelet_connection, served
from tests.nodeagent.stats.fakepods import start_pod

METRICS = "/apis/metrics.k8s.io/v1beta1"
GI = 1024**3
MI = 1024**2


@dataclass
class Setup:
    api: httpx.AsyncClient
    runtime: FakeRuntime
    port: int
    clock: FakeClock


@pytest.fixture
async def setup(tmp_path: Path) -> AsyncIterator[Setup]:
    pki = ensure_cluster_pki(tmp_path / "pki")
    tls = ServingTLS.issued_by(load_certificate_authority(pki.ca), tmp_path / "agent")
    clock = FakeClock()
    runtime = FakeRuntime(clock, start_delay=0, start_jitter=0)
    providers = {"n1": SummaryProvider("n1", runtime, SimulatedHost(8 * GI, 100 * GI, clock.now()), clock)}
    app = agent_app(lambda ns, name: None, registry=Registry(), stats=summary_lookup(providers))
    server = AgentServer(app, cert=tls.cert, client_ca=tls.client_ca)
    serving = asyncio.create_task(server.serve())
    try:
        async with served(kubelet_connection(pki)) as api:
            yield Setup(api, runtime, server.port, clock)
    finally:
        serving.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await serving


async def add_node(
    setup: Setup, name: str, *, ready: bool = True, port: int | None = None, **labels: str
) -> None:
    status = {
        "addresses": [{"type": "InternalIP", "address": "127.0.0.1"}],
        "daemonEndpoints": {"kubeletEndpoint": {"Port": port or setup.port}},
        "conditions": [{"type": "Ready", "status": "True" if ready else "False"}],
    }
    node = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": labels}}
    assert (await setup.api.post("/api/v1/nodes", json=node)).status_code == 201
    response = await setup.api.patch(
        f"/api/v1/nodes/{name}/status",
        json={"status": status},
        headers={"content-type": "application/merge-patch+json"},
    )
    assert response.status_code == 200, response.text


async def add_pod(
    setup: Setup, name: str, node: str, memory: int, phase: str = "Running", **labels: str
) -> None:
    pod = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "labels": labels},
        "spec": {
            "nodeName": node,
            "containers": [{"name": "app", "image": "i"}, {"name": "side", "image": "i"}],
        },
    }
    created = await setup.api.post("/api/v1/namespaces/default/pods", json=pod)
    assert created.status_code == 201, created.text
    uid = created.json()["metadata"]["uid"]
    response = await setup.api.patch(
        f"/api/v1/namespaces/default/pods/{name}/status",
        json={"status": {"phase": phase}},
        headers={"content-type": "application/merge-patch+json"},
    )
    assert response.status_code == 200, response.text
    env = {"FAKE_MEMORY_BYTES": str(memory), "FAKE_CPU_MILLIS": "250"}
    await start_pod(setup.runtime, name, {"app": env, "side": {"FAKE_MEMORY_BYTES": str(MI)}}, uid=uid)
    await setup.clock.step(10)  # CPU rates need time to pass


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


async def test_discovery_lists_the_metrics_group(setup: Setup) -> None:
    groups = (await setup.api.get("/apis")).json()["groups"]
    metrics = next(g for g in groups if g["name"] == "metrics.k8s.io")
    assert metrics["preferredVersion"] == {"groupVersion": "metrics.k8s.io/v1beta1", "version": "v1beta1"}
    resources = (await setup.api.get(METRICS)).json()["resources"]
    assert {(r["name"], r["kind"], r["namespaced"], tuple(r["verbs"])) for r in resources} == {
        ("nodes", "NodeMetrics", False, ("get", "list")),
        ("pods", "PodMetrics", True, ("get", "list")),
    }


async def test_node_metrics_come_from_ready_node_agents_that_answer(setup: Setup) -> None:
    await add_node(setup, "n1", role="web")
    await add_node(setup, "n2")  # served nowhere: the agent answers 404
    await add_node(setup, "n3", ready=False)
    await add_node(setup, "n4", port=free_port())  # nobody listens
    await add_pod(setup, "web", "n1", 100 * MI)
    body = (await setup.api.get(f"{METRICS}/nodes")).json()
    assert (body["kind"], body["apiVersion"]) == ("NodeMetricsList", "metrics.k8s.io/v1beta1")
    [n1] = body["items"]
    assert n1["metadata"]["name"] == "n1" and n1["metadata"]["labels"] == {"role": "web"}
    assert n1["window"] == "10s" and n1["timestamp"].endswith("Z")
    assert n1["usage"] == {"cpu": "260000000n", "memory": f"{101 * 1024}Ki"}
    one = await setup.api.get(f"{METRICS}/nodes/n1")
    assert (one.json()["kind"], one.json()["usage"]) == ("NodeMetrics", n1["usage"])
    missing = await setup.api.get(f"{METRICS}/nodes/n2")
    assert (missing.status_code, missing.json()["message"]) == (404, 'nodes.metrics.k8s.io "n2" not found')
    selected = (await setup.api.get(f"{METRICS}/nodes", params={"labelSelector": "role=db"})).json()
    assert selected["items"] == []


async def test_pod_metrics_per_container(setup: Setup) -> None:
    await add_node(setup, "n1")
    await add_pod(setup, "web", "n1", 100 * MI, tier="front")
    await add_pod(setup, "db", "n1", 300 * MI, tier="back")
    await add_pod(setup, "pending", "n1", MI, phase="Pending")
    body = (await setup.api.get(f"{METRICS}/namespaces/default/pods")).json()
    assert body["kind"] == "PodMetricsList"
    by_name = {item["metadata"]["name"]: item for item in body["items"]}
    assert set(by_name) == {"web", "db"}
    web = by_name["web"]
    assert web["metadata"]["namespace"] == "default" and web["metadata"]["labels"] == {"tier": "front"}
    assert web["containers"] == [
        {"name": "app", "usage": {"cpu": "250000000n", "memory": "102400Ki"}},
        {"name": "side", "usage": {"cpu": "10000000n", "memory": "1024Ki"}},
    ]
    every = (await setup.api.get(f"{METRICS}/pods")).json()["items"]
    assert {i["metadata"]["name"] for i in every} == {"web", "db"}
    fronts = (
        await setup.api.get(f"{METRICS}/namespaces/default/pods", params={"labelSelector": "tier=back"})
    ).json()
    assert [i["metadata"]["name"] for i in fronts["items"]] == ["db"]
    one = (await setup.api.get(f"{METRICS}/namespaces/default/pods/db")).json()
    assert one["kind"] == "PodMetrics" and re.fullmatch(r"\d+n", one["containers"][0]["usage"]["cpu"])
    assert (await setup.api.get(f"{METRICS}/namespaces/other/pods")).json()["items"] == []
    gone = await setup.api.get(f"{METRICS}/namespaces/default/pods/pending")
    assert gone.status_code == 404


async def test_metrics_are_read_only(setup: Setup) -> None:
    response = await setup.api.post(f"{METRICS}/nodes", json={"kind": "NodeMetrics"})
    assert response.status_code == 405
    assert response.json()["reason"] == "MethodNotAllowed"
    assert (await setup.api.get(f"{METRICS}/widgets")).status_code == 404


def test_the_metrics_reader_role_is_aggregated_into_view_edit_and_admin() -> None:
    role: dict[str, Any] = next(
        r for r in cluster_roles() if r["metadata"]["name"] == "system:aggregated-metrics-reader"
    )
    labels = role["metadata"]["labels"]
    for target in ("view", "edit", "admin"):
        assert labels[f"rbac.authorization.k8s.io/aggregate-to-{target}"] == "true"
    [rule] = role["rules"]
    assert (rule["apiGroups"], sorted(rule["resources"])) == (["metrics.k8s.io"], ["nodes", "pods"])
    assert set(rule["verbs"]) >= {"get", "list"}
