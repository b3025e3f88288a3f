"""In-process helpers: the real handler chain around a controllable handler (``Gate``), with
users presented as client certificates (the TLS extension the HTTPS server would set)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator

import httpx
import pytest
from starlette.requests import Request
from starlette.types import ASGIApp, Receive, Scope, Send

from apiserver.filters.chain import build_handler_chain
from apiserver.flowcontrol.metrics import metrics_endpoint
from apiserver.request.context import current_user
from apiserver.security import SecurityConfig

# Small limits: 4 + 2 = 6 seats for priority and fairness, 1 of them global-default's.
SMALL = SecurityConfig(
    max_requests_inflight=4, max_mutating_requests_inflight=2, enable_priority_and_fairness=True
)


def as_client_certificates(app: ASGIApp) -> ASGIApp:
    """``x-test-user: name`` and ``x-test-groups: g1,g2`` become a verified client certificate."""

    async def shim(scope: Scope, receive: Receive, send: Send) -> None:
        headers = dict(scope.get("headers") or [])
        if scope["type"] == "http" and b"x-test-user" in headers:
            subject = [("commonName", headers[b"x-test-user"].decode())]
            groups = headers.get(b"x-test-groups", b"").decode()
            subject += [("organizationName", group) for group in groups.split(",") if group]
            scope = {
                **scope,
                "extensions": {**scope.get("extensions", {}), "tls": {"client_subject": subject}},
            }
        await app(scope, receive, send)

    return shim


class Gate:
    """The handler: answers 200 at once, or, for requests with ``x-test-hold``, once
    ``release`` is set. A watch (``?watch=true``) starts its response at once and ends it on
    ``release``. ``entered`` counts the requests that reached it, ``users`` their users in
    order. ``/metrics`` is served as the apiserver serves it."""

    def __init__(self) -> None:
        self.release = asyncio.Event()
        self.entered = 0
        self.users: list[str] = []  # in the order they reached the handler

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["path"] == "/metrics":
            response = await metrics_endpoint(Request(scope, receive))
            await response(scope, receive, send)
            return
        self.entered += 1
        self.users.append(current_user.get().name)
        headers = [(b"content-type", b"application/json")]
        watch = b"watch=true" in scope.get("query_string", b"")
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        if watch or b"x-test-hold" in dict(scope.get("headers") or []):
            await self.release.wait()
        body = json.dumps({"path": scope["path"]}).encode()
        await send({"type": "http.response.body", "body": body})


def user_headers(name: str, *groups: str, hold: bool = False) -> dict[str, str]:
    headers = {"x-test-user": name, "x-test-groups": ",".join((*groups, "system:authenticated"))}
    if hold:
        headers["x-test-hold"] = "1"
    return headers


async def settle(client: httpx.AsyncClient, gate: Gate, entered: int) -> None:
    """Let in-flight requests run until ``entered`` reached the gate (or queued/rejected)."""
    for _ in range(200):
        if gate.entered >= entered:
            break
        await asyncio.sleep(0)
    for _ in range(20):
        await asyncio.sleep(0)


def client_for(app: ASGIApp) -> httpx.AsyncClient:
    transport = httpx.ASGITransport(app=as_client_certificates(app))
    return httpx.AsyncClient(transport=transport, base_url="http://apiserver", timeout=30)


@pytest.fixture
def gate() -> Gate:
    return Gate()


@pytest.fixture
async def small(gate: Gate) -> AsyncIterator[httpx.AsyncClient]:
    """The real chain with priority and fairness at small limits, around ``gate``."""
    async with client_for(build_handler_chain(gate, SMALL)) as client:
        yield client
