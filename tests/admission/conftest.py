"""An in-process apiserver with admission plugins on (``admitted``: every plugin ``up`` runs
plus ServiceAccount), and helpers to build pods."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest

from apiserver.admission.registry import enabled_plugins
from apiserver.bootstrap.objects import ensure_bootstrap_objects
from apiserver.bootstrap.priorityclasses import ensure_system_priority_classes
from apiserver.registry.catalog import Catalog
from apiserver.security import SecurityConfig
from apiserver.server import build_app
from apiserver.storage.memory import MemoryKV

NS = "/api/v1/namespaces"


@contextlib.asynccontextmanager
async def admitted_apiserver(plugins: tuple[str, ...]) -> AsyncIterator[httpx.AsyncClient]:
    kv = MemoryKV()
    catalog = Catalog(kv)
    caches = asyncio.create_task(catalog.run())
    try:
        await catalog.wait_ready()
        await ensure_bootstrap_objects(catalog)
        await ensure_system_priority_classes(catalog)
        app = build_app(kv, catalog, security=SecurityConfig(admission_plugins=plugins))
        async with httpx.AsyncClient(
            transport=httpx.ASGITransport(app=app), base_url="http://apiserver"
        ) as client:
            yield client
    finally:
        caches.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await caches
        await kv.close()


@pytest.fixture
async def admitted() -> AsyncIterator[httpx.AsyncClient]:
    async with admitted_apiserver(enabled_plugins(["NodeRestriction"])) as client:
        yield client


def pod(name: str, **spec: Any) -> dict[str, Any]:
    containers = spec.pop("containers", [{"name": "c", "image": "nginx"}])
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name},
        "spec": {"containers": containers, **spec},
    }


def namespace(name: str, labels: dict[str, str] | None = None) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name, "labels": labels or {}}}


async def make_namespace(api: httpx.AsyncClient, name: str, labels: dict[str, str] | None = None) -> None:
    created = await api.post(NS, json=namespace(name, labels))
    assert created.status_code == 201, created.text
    account = {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": "default"}}
    made = await api.post(f"{NS}/{name}/serviceaccounts", json=account)  # no SA controller yet
    assert made.status_code == 201, made.text
