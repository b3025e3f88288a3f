"""An in-process apiserver audited into a log file, and the events read back from it."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

from apiserver.audit.backend import log_backend
from apiserver.audit.config import AuditConfig
from apiserver.audit.defaultpolicy import default_policy
from apiserver.audit.policy import Policy
from apiserver.registry.catalog import Catalog
from apiserver.security import SecurityConfig
from apiserver.server import build_app
from apiserver.storage.memory import MemoryKV
from minikube_py import jsonutil

NAMESPACE = "audited"
CONFIGMAPS = f"/api/v1/namespaces/{NAMESPACE}/configmaps"


@dataclass
class AuditLog:
    path: Path
    config: AuditConfig

    def events(self) -> list[dict[str, Any]]:
        """Every event written so far (flushes the background writer first)."""
        self.config.sink.flush()
        return [jsonutil.loads(line) for line in self.path.read_bytes().splitlines()]

    def for_uri(self, uri: str) -> list[dict[str, Any]]:
        return [e for e in self.events() if e["requestURI"] == uri]


def audit_log(tmp_path: Path, policy: Policy | None = None) -> AuditLog:
    path = tmp_path / "audit.log"
    return AuditLog(path, AuditConfig.of(policy or default_policy(), log_backend(str(path))))


@contextlib.asynccontextmanager
async def audited_apiserver(
    security: SecurityConfig, *, create_namespace: bool = True
) -> AsyncIterator[httpx.AsyncClient]:
    """The apiserver (memory store, running caches) with ``security``; creates the
    ``audited`` namespace unless told not to (without credentials that would be refused)."""
    kv = MemoryKV()
    catalog = Catalog(kv)
    caches = asyncio.create_task(catalog.run())
    try:
        await catalog.wait_ready()
        app = build_app(kv, catalog, security=security)
        transport = httpx.ASGITransport(app=app, client=("10.0.0.7", 5555))
        async with httpx.AsyncClient(transport=transport, base_url="http://apiserver") as client:
            if create_namespace:
                created = await client.post("/api/v1/namespaces", json={"metadata": {"name": NAMESPACE}})
                assert created.status_code == 201, created.text
            yield client
    finally:
        caches.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await caches
        await kv.close()
        if security.audit is not None:
            security.audit.sink.close()


@pytest.fixture
def log(tmp_path: Path) -> AuditLog:
    """The default policy (``up``'s) into ``tmp_path/audit.log``."""
    return audit_log(tmp_path)


@pytest.fixture
async def api(log: AuditLog) -> AsyncIterator[httpx.AsyncClient]:
    async with audited_apiserver(SecurityConfig(audit=log.config)) as client:
        yield client
