"""An in-process apiserver (as ``tests/apiserver/conftest.py``) whose stores run the two
webhook admission plugins, and a real HTTPS webhook server with its own test CA."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import httpx
import pytest

from apiserver.admission.chain import AdmissionChain
from apiserver.admission.webhook.mutating import MutatingAdmissionWebhook
from apiserver.admission.webhook.validating import ValidatingAdmissionWebhook
from apiserver.registry.catalog import Catalog
from apiserver.server import build_app
from apiserver.storage.cacher import Cacher
from apiserver.storage.memory import MemoryKV
from tests.webhook_server import WebhookServer

GROUP = "admissionregistration.k8s.io"
MUTATING = f"/apis/{GROUP}/v1/mutatingwebhookconfigurations"
VALIDATING = f"/apis/{GROUP}/v1/validatingwebhookconfigurations"
# The namespaces the tests use (bootstrap objects are not needed), each labelled team=<name>.
NAMESPACES = ("default", "webhooks", "other")


@dataclass
class Served:
    client: httpx.AsyncClient
    catalog: Catalog


@pytest.fixture
async def served() -> AsyncIterator[Served]:
    kv = MemoryKV()
    catalog = Catalog(kv)
    caches = asyncio.create_task(catalog.run())
    try:
        await catalog.wait_ready()
        namespaces = catalog.store("", "v1", "namespaces")
        assert namespaces is not None
        for name in NAMESPACES:
            labels = {"team": name}
            await namespaces.create("", {"metadata": {"name": name, "labels": labels}})
        catalog.install_admission(
            AdmissionChain([MutatingAdmissionWebhook(catalog), ValidatingAdmissionWebhook(catalog)])
        )
        transport = httpx.ASGITransport(app=build_app(kv, catalog))
        async with httpx.AsyncClient(transport=transport, base_url="http://apiserver", timeout=40) as client:
            yield Served(client, catalog)
    finally:
        caches.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await caches
        await kv.close()


@pytest.fixture
async def api(served: Served) -> httpx.AsyncClient:
    return served.client


@pytest.fixture
async def webhook() -> AsyncIterator[WebhookServer]:
    async with WebhookServer(dns_names=("hooks.webhooks.svc",)) as server:
        yield server


def hook(name: str, url: str, ca_bundle: str, **fields: Any) -> dict[str, Any]:
    """A webhook on pods (CREATE/UPDATE) reached at ``url``, with ``fields`` overriding."""
    spec: dict[str, Any] = {
        "name": name,
        "clientConfig": {"url": url, "caBundle": ca_bundle},
        "rules": [
            {
                "operations": ["CREATE", "UPDATE"],
                "apiGroups": [""],
                "apiVersions": ["v1"],
                "resources": ["pods"],
            }
        ],
        "sideEffects": "None",
        "admissionReviewVersions": ["v1"],
    }
    spec.update(fields)
    return spec


def configuration(kind: str, name: str, *hooks: dict[str, Any]) -> dict[str, Any]:
    return {
        "apiVersion": "admissionregistration.k8s.io/v1",
        "kind": kind,
        "metadata": {"name": name},
        "webhooks": list(hooks),
    }


async def install(served: Served, kind: str, name: str, *hooks: dict[str, Any]) -> dict[str, Any]:
    """Create the configuration and wait until the webhook plugins see it: they read the watch
    cache, which (as upstream's informers) follows the store a moment later."""
    resource = MUTATING if kind == "MutatingWebhookConfiguration" else VALIDATING
    answer = await served.client.post(resource, json=configuration(kind, name, *hooks))
    assert answer.status_code == 201, answer.text
    store = served.catalog.store(GROUP, "v1", resource.rsplit("/", 1)[1])
    assert store is not None and isinstance(store.storage, Cacher)
    await store.storage.wait_until_fresh(int(answer.json()["metadata"]["resourceVersion"]))
    created: dict[str, Any] = answer.json()
    return created


def pod(name: str, **labels: str) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "labels": labels},
        "spec": {"containers": [{"name": "c", "image": "nginx"}]},
    }
