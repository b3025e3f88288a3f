"""An in-process apiserver with authentication configured: a service-account signing key, a
static token file and bootstrap tokens (``authn_api``), and the key pair for minting tokens
in tests."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec

from apiserver.registry.catalog import Catalog
from apiserver.security import SecurityConfig
from apiserver.server import build_app
from apiserver.storage.memory import MemoryKV

ISSUER = "https://kubernetes.default.svc.cluster.local"
TOKEN_FILE = 'static-token,alice,1001,"dev,ops"\nbob-token,bob,1002\n'


@dataclass
class AuthnCluster:
    client: httpx.AsyncClient
    catalog: Catalog
    key: ec.EllipticCurvePrivateKey
    security: SecurityConfig


def write_key(path: Path) -> ec.EllipticCurvePrivateKey:
    key = ec.generate_private_key(ec.SECP256R1())
    pem = key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )
    path.write_bytes(pem)
    return key


def authn_security(tmp: Path, *, anonymous: bool = True) -> tuple[SecurityConfig, ec.EllipticCurvePrivateKey]:
    key = write_key(tmp / "sa.key")
    (tmp / "tokens.csv").write_text(TOKEN_FILE)
    security = SecurityConfig(
        anonymous=anonymous,
        token_auth_file=tmp / "tokens.csv",
        service_account_signing_key_file=tmp / "sa.key",
        service_account_issuers=(ISSUER,),
        bootstrap_tokens=True,
        token_cache_ttl=0,  # revocation tests see every check; tests/authn/test_tokencache.py caches
    )
    return security, key


@contextlib.asynccontextmanager
async def serving(security: SecurityConfig, key: ec.EllipticCurvePrivateKey) -> AsyncIterator[AuthnCluster]:
    kv = MemoryKV()
    catalog = Catalog(kv)
    caches = asyncio.create_task(catalog.run())
    try:
        await catalog.wait_ready()
        namespaces = catalog.store("", "v1", "namespaces")
        assert namespaces is not None
        for name in ("default", "kube-system"):  # what these tests need of the bootstrap objects
            await namespaces.create("", {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}})
        transport = httpx.ASGITransport(app=build_app(kv, catalog, security=security))
        async with httpx.AsyncClient(transport=transport, base_url="http://apiserver") as client:
            yield AuthnCluster(client, catalog, key, security)
    finally:
        caches.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await caches
        await kv.close()


@pytest.fixture
async def authn(tmp_path: Path) -> AsyncIterator[AuthnCluster]:
    async with serving(*authn_security(tmp_path)) as cluster:
        yield cluster


@pytest.fixture
async def authn_no_anonymous(tmp_path: Path) -> AsyncIterator[AuthnCluster]:
    async with serving(*authn_security(tmp_path, anonymous=False)) as cluster:
        yield cluster
