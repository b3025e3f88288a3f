"""An in-process apiserver with authorization on (``Node,RBAC``) and the bootstrap policy,
and clients that act as any user: a wrapper puts the subject of a (pretend) verified client
certificate into the ASGI TLS extension, as ``minikube_py.clientcert`` does for a real one."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass

import httpx
import pytest
from starlette.types import ASGIApp, Receive, Scope, Send

from apiserver.bootstrap.objects import ensure_bootstrap_objects
from apiserver.registry.catalog import Catalog
from apiserver.security import SecurityConfig
from apiserver.server import build_app
from apiserver.storage.memory import MemoryKV

ADMIN = ("admin", ("system:masters",))


class ClientCertificate:
    """Gives requests the client certificate subject named by the test-only headers
    ``x-test-user`` and ``x-test-groups`` (comma-separated)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        headers = dict(scope.get("headers", []))
        user = headers.get(b"x-test-user", b"").decode()
        if scope["type"] == "http" and user:
            groups = [g for g in headers.get(b"x-test-groups", b"").decode().split(",") if g]
            subject = [("commonName", user)] + [("organizationName", g) for g in groups]
            scope = {
                **scope,
                "extensions": {**scope.get("extensions", {}), "tls": {"client_subject": subject}},
            }
        await self.app(scope, receive, send)


@dataclass
class Cluster:
    catalog: Catalog
    transport: httpx.ASGITransport

    def client(self, user: str = "", groups: tuple[str, ...] = ()) -> httpx.AsyncClient:
        """A client authenticated as ``user`` in ``groups`` (anonymous without a user)."""
        headers = {"x-test-user": user, "x-test-groups": ",".join(groups)} if user else {}
        return httpx.AsyncClient(transport=self.transport, base_url="http://apiserver", headers=headers)

    def admin(self) -> httpx.AsyncClient:
        return self.client(*ADMIN)


@contextlib.asynccontextmanager
async def rbac_cluster(modes: tuple[str, ...] = ("Node", "RBAC")) -> AsyncIterator[Cluster]:
    kv = MemoryKV()
    catalog = Catalog(kv)
    caches = asyncio.create_task(catalog.run())
    try:
        await catalog.wait_ready()
        await ensure_bootstrap_objects(catalog)
        app = build_app(kv, catalog, security=SecurityConfig(authorization_modes=modes))
        yield Cluster(catalog, httpx.ASGITransport(app=ClientCertificate(app)))
    finally:
        caches.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await caches
        await kv.close()


@pytest.fixture
async def cluster() -> AsyncIterator[Cluster]:
    async with rbac_cluster() as running:
        yield running


UserClient = Callable[..., httpx.AsyncClient]
