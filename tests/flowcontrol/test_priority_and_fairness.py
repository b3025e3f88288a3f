"""The priority-and-fairness filter in the real handler chain (small limits: global-default
has 1 seat and upstream's 128 queues of 50, 6 per flow)."""

from __future__ import annotations

import asyncio

import httpx

from apiserver.flowcontrol.schema import object_uid
from tests.flowcontrol.conftest import Gate, settle, user_headers

GLOBAL_DEFAULT = {
    "x-kubernetes-pf-flowschema-uid": object_uid("flowschemas", "global-default"),
    "x-kubernetes-pf-prioritylevel-uid": object_uid("prioritylevelconfigurations", "global-default"),
}
EXEMPT = {
    "x-kubernetes-pf-flowschema-uid": object_uid("flowschemas", "exempt"),
    "x-kubernetes-pf-prioritylevel-uid": object_uid("prioritylevelconfigurations", "exempt"),
}
PODS = "/api/v1/namespaces/default/pods"
FLOOD = 1 + 6 * 50 + 20  # one executing, alice's six queues full, then twenty more


def pf_headers(response: httpx.Response) -> dict[str, str]:
    return {k: v for k, v in response.headers.items() if k.startswith("x-kubernetes-pf-")}


async def test_a_flood_from_one_user_is_rejected_while_another_user_is_served(
    small: httpx.AsyncClient, gate: Gate
) -> None:
    flood = [
        asyncio.create_task(small.get(PODS, headers=user_headers("alice", hold=True))) for _ in range(FLOOD)
    ]
    await settle(small, gate, 1)
    rejected = [task.result() for task in flood if task.done()]
    assert len(rejected) == 20 and {r.status_code for r in rejected} == {429}
    bob = asyncio.create_task(small.get(PODS, headers=user_headers("bob")))
    await settle(small, gate, 1)
    assert not bob.done()  # queued behind alice's seat, not rejected

    gate.release.set()
    response = await bob
    assert response.status_code == 200
    assert pf_headers(response) == GLOBAL_DEFAULT
    # Fair queuing: bob ran within one round of alice's busy queues, not after her 300.
    assert gate.users.index("bob") <= 1 + 6, gate.users.index("bob")
    served = await asyncio.gather(*flood)
    assert sum(r.status_code == 200 for r in served) == FLOOD - 20


async def test_the_429_is_upstreams_plain_text_with_retry_after_and_classification(
    small: httpx.AsyncClient, gate: Gate
) -> None:
    flood = [
        asyncio.create_task(small.get(PODS, headers=user_headers("alice", hold=True))) for _ in range(FLOOD)
    ]
    await settle(small, gate, 1)
    response = next(task.result() for task in flood if task.done())
    assert response.status_code == 429
    assert response.text == "Too many requests, please try again later.\n"
    assert response.headers["content-type"] == "text/plain; charset=utf-8"
    assert response.headers["x-content-type-options"] == "nosniff"
    assert response.headers["retry-after"] == "1"
    assert pf_headers(response) == GLOBAL_DEFAULT
    assert "audit-id" in response.headers  # audit sits outside flow control

    metrics = await small.get("/metrics", headers=user_headers("admin", "system:masters"))
    assert metrics.headers["content-type"] == "text/plain; version=0.0.4; charset=utf-8"
    lines = metrics.text.splitlines()
    labels = 'flow_schema="global-default",priority_level="global-default"'
    assert f'apiserver_flowcontrol_rejected_requests_total{{{labels},reason="queue-full"}} 20' in lines
    assert f"apiserver_flowcontrol_current_inqueue_requests{{{labels}}} 300" in lines
    assert f"apiserver_flowcontrol_current_executing_requests{{{labels}}} 1" in lines
    gate.release.set()
    await asyncio.gather(*flood)


async def test_system_masters_and_probes_are_exempt(small: httpx.AsyncClient, gate: Gate) -> None:
    held = asyncio.create_task(small.get(PODS, headers=user_headers("alice", hold=True)))
    await settle(small, gate, 1)
    admin = [small.delete(f"{PODS}/p{i}", headers=user_headers("admin", "system:masters")) for i in range(10)]
    responses = await asyncio.gather(*admin)
    assert {r.status_code for r in responses} == {200}
    assert pf_headers(responses[0]) == EXEMPT
    probe = await small.get("/readyz")
    assert probe.status_code == 200
    assert probe.headers["x-kubernetes-pf-flowschema-uid"] == object_uid("flowschemas", "probes")
    gate.release.set()
    assert (await held).status_code == 200


async def test_a_watch_holds_its_seat_only_until_it_starts(small: httpx.AsyncClient, gate: Gate) -> None:
    watches = [
        asyncio.create_task(small.get(PODS, params={"watch": "true"}, headers=user_headers("alice")))
        for _ in range(3)
    ]
    await settle(small, gate, 3)
    assert gate.entered == 3 and not any(w.done() for w in watches)  # all three streaming
    response = await small.get(PODS, headers=user_headers("alice"))  # the one seat is free
    assert response.status_code == 200
    gate.release.set()
    for watch in watches:
        assert pf_headers(await watch) == GLOBAL_DEFAULT


async def test_other_long_running_requests_are_not_classified(small: httpx.AsyncClient, gate: Gate) -> None:
    held = asyncio.create_task(small.get(PODS, headers=user_headers("alice", hold=True)))
    await settle(small, gate, 1)
    logs = [small.get(f"{PODS}/p{i}/log", headers=user_headers("alice", hold=True)) for i in range(3)]
    tasks = [asyncio.create_task(request) for request in logs]
    await settle(small, gate, 4)
    assert gate.entered == 4  # none queued behind alice's seat
    gate.release.set()
    for response in await asyncio.gather(held, *tasks):
        assert response.status_code == 200
    assert pf_headers(response) == {}
