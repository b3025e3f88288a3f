"""The max-in-flight filter (priority and fairness off): separate read-only and mutating
limits, long-running requests not counted, system:masters served over the limit."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import httpx
import pytest

from apiserver.filters.chain import build_handler_chain
from apiserver.security import SecurityConfig
from tests.flowcontrol.conftest import Gate, client_for, settle, user_headers

PODS = "/api/v1/namespaces/default/pods"


@pytest.fixture
async def limited(gate: Gate) -> AsyncIterator[httpx.AsyncClient]:
    security = SecurityConfig(max_requests_inflight=1, max_mutating_requests_inflight=1)
    async with client_for(build_handler_chain(gate, security)) as client:
        yield client


async def test_a_read_over_the_limit_is_rejected_at_once(limited: httpx.AsyncClient, gate: Gate) -> None:
    held = asyncio.create_task(limited.get(PODS, headers=user_headers("alice", hold=True)))
    await settle(limited, gate, 1)
    response = await limited.get(PODS, headers=user_headers("bob"))
    assert response.status_code == 429
    assert response.text == "Too many requests, please try again later.\n"
    assert response.headers["retry-after"] == "1"
    assert response.headers["content-type"] == "text/plain; charset=utf-8"
    assert not any(k.startswith("x-kubernetes-pf-") for k in response.headers)
    # the mutating budget is separate
    assert (await limited.post(PODS, headers=user_headers("bob"))).status_code == 200
    gate.release.set()
    assert (await held).status_code == 200
    assert (await limited.get(PODS, headers=user_headers("bob"))).status_code == 200  # slot freed


async def test_system_masters_is_served_over_the_limit(limited: httpx.AsyncClient, gate: Gate) -> None:
    held = asyncio.create_task(limited.get(PODS, headers=user_headers("alice", hold=True)))
    await settle(limited, gate, 1)
    response = await limited.get(PODS, headers=user_headers("admin", "system:masters"))
    assert response.status_code == 200
    gate.release.set()
    await held


async def test_watches_and_other_long_running_requests_are_not_counted(
    limited: httpx.AsyncClient, gate: Gate
) -> None:
    long_running = [
        limited.get(PODS, params={"watch": "true"}, headers=user_headers("alice")),
        limited.get(f"{PODS}/p/log", headers=user_headers("alice", hold=True)),
        limited.post(f"{PODS}/p/exec", headers=user_headers("alice", hold=True)),
    ]
    tasks = [asyncio.create_task(request) for request in long_running]
    await settle(limited, gate, 3)
    assert (await limited.get(PODS, headers=user_headers("bob"))).status_code == 200
    assert (await limited.put(f"{PODS}/p", headers=user_headers("bob"))).status_code == 200
    gate.release.set()
    assert {r.status_code for r in await asyncio.gather(*tasks)} == {200}
