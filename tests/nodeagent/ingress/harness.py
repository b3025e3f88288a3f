"""The ingress controller over a fake API (informers from ``FakeClient``) with its real HTTP
front on a loopback port, and the objects the tests seed."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

from minikube_py.cache.factory import SharedInformerFactory
from minikube_py.client.resourcetypes import SECRETS, SERVICES
from minikube_py.events import FakeRecorder
from minikube_py.testing.fakeclient import FakeClient
from nodeagent.ingress.classes import INGRESS_CLASSES, class_manifest
from nodeagent.ingress.controller import ENDPOINT_SLICES, INGRESSES, IngressController
from nodeagent.ingress.proxy import IngressProxy
from tests.waiting import eventually


@dataclass
class Running:
    url: str
    port: int
    tls_port: int
    controller: IngressController
    proxy: IngressProxy


@contextlib.asynccontextmanager
async def running_controller(fake: FakeClient) -> AsyncIterator[Running]:
    factory = SharedInformerFactory(fake)
    controller = IngressController(fake, factory, recorder=FakeRecorder())
    proxy = IngressProxy(controller.route)
    tls_proxy = IngressProxy(controller.route, scheme="https")
    server = await asyncio.start_server(proxy.serve_connection, "127.0.0.1", 0)
    tls_server = await asyncio.start_server(
        tls_proxy.serve_connection, "127.0.0.1", 0, ssl=controller.certificates.default
    )
    controller.port = proxy.port = int(server.sockets[0].getsockname()[1])
    controller.tls_port = tls_proxy.port = int(tls_server.sockets[0].getsockname()[1])

    async def run() -> None:
        async with asyncio.TaskGroup() as tasks:
            factory.start(tasks)
            tasks.create_task(controller.run())

    runner = asyncio.create_task(run())
    try:
        await eventually(controller.has_synced, "the controller's caches")
        yield Running(
            f"http://127.0.0.1:{controller.port}", controller.port, controller.tls_port, controller, proxy
        )
    finally:
        server.close()
        tls_server.close()
        proxy.close()
        tls_proxy.close()
        runner.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await runner


def seeded(
    *ingresses: dict[str, Any],
    services: list[dict[str, Any]],
    slices: list[dict[str, Any]],
    secrets: tuple[dict[str, Any], ...] = (),
) -> FakeClient:
    fake = FakeClient()
    fake.seed(INGRESS_CLASSES, class_manifest())
    fake.seed(INGRESSES, *ingresses)
    fake.seed(SERVICES, *services)
    fake.seed(ENDPOINT_SLICES, *slices)
    if secrets:
        fake.seed(SECRETS, *secrets)
    return fake


def ingress(
    name: str, *rules: dict[str, Any], class_name: str | None = "minikube-py", **spec: Any
) -> dict[str, Any]:
    body: dict[str, Any] = {"rules": list(rules), **spec}
    if class_name is not None:
        body["ingressClassName"] = class_name
    return {"metadata": {"name": name, "namespace": "default"}, "spec": body}


def rule(host: str, *paths: tuple[str, str, str, int | str]) -> dict[str, Any]:
    items = [
        {"path": p, "pathType": kind, "backend": {"service": {"name": svc, "port": _port(port)}}}
        for p, kind, svc, port in paths
    ]
    return {"host": host, "http": {"paths": items}}


def _port(port: int | str) -> dict[str, Any]:
    return {"number": port} if isinstance(port, int) else {"name": port}


def service(name: str, port: int = 80, port_name: str = "") -> dict[str, Any]:
    entry: dict[str, Any] = {"port": port, "protocol": "TCP", "targetPort": port}
    if port_name:
        entry["name"] = port_name
    return {"metadata": {"name": name, "namespace": "default"}, "spec": {"ports": [entry]}}


def endpoint_slice(service_name: str, *ports: int, ready: bool = True, port_name: str = "") -> dict[str, Any]:
    """One slice of ``service_name``; each endpoint is 127.0.0.1 on its own port (real
    slices share one port per slice: here a slice per port keeps the test backends apart)."""
    return {
        "metadata": {
            "name": f"{service_name}-{'-'.join(map(str, ports))}",
            "namespace": "default",
            "labels": {"kubernetes.io/service-name": service_name},
        },
        "addressType": "IPv4",
        "ports": [{"name": port_name, "port": ports[0], "protocol": "TCP"}],
        "endpoints": [{"addresses": ["127.0.0.1"], "conditions": {"ready": ready}}],
    }
