"""pods/eviction against PodDisruptionBudgets over real HTTPS (upstream's ``EvictionREST``): the
429 with the DisruptionBudget cause, a 500 for two budgets, dry run, preconditions, the
DisruptionTarget condition, and two concurrent evictions racing for one allowed disruption."""

from __future__ import annotations

import asyncio
import ssl
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest

from tests.client.apiserver import RunningApiserver

NS = "/api/v1/namespaces/default"
PDBS = "/apis/policy/v1/namespaces/default/poddisruptionbudgets"
VIOLATION = "Cannot evict pod as it would violate the pod's disruption budget."


@pytest.fixture
async def api(https_api: RunningApiserver) -> AsyncIterator[httpx.AsyncClient]:
    context = ssl.create_default_context(cafile=str(https_api.pki.ca.cert))
    context.load_cert_chain(str(https_api.pki.admin.cert), str(https_api.pki.admin.key))
    async with httpx.AsyncClient(base_url=https_api.url, verify=context, timeout=30) as client:
        yield client


async def running_pod(
    api: httpx.AsyncClient, name: str, *, ready: bool = True, phase: str = "Running"
) -> None:
    body = {
        "metadata": {"name": name, "labels": {"app": "web"}},
        "spec": {"nodeName": "n1", "containers": [{"name": "c", "image": "nginx"}]},
    }
    created = await api.post(f"{NS}/pods", json=body)
    assert created.status_code == 201, created.text
    pod = created.json()
    condition = {
        "type": "Ready",
        "status": "True" if ready else "False",
        "lastTransitionTime": "2024-01-01T00:00:00Z",
    }
    pod["status"] = {"phase": phase, "conditions": [condition]}
    updated = await api.put(f"{NS}/pods/{name}/status", json=pod)
    assert updated.status_code == 200, updated.text


async def budget(
    api: httpx.AsyncClient,
    name: str,
    allowed: int,
    *,
    observed: bool = True,
    healthy: int | None = None,
    **spec: Any,
) -> None:
    body = {
        "metadata": {"name": name},
        "spec": {"selector": {"matchLabels": {"app": "web"}}, "minAvailable": 1, **spec},
    }
    created = await api.post(PDBS, json=body)
    assert created.status_code == 201, created.text
    pdb = created.json()
    assert pdb["metadata"]["generation"] == 1
    pdb["status"] = {
        "observedGeneration": 1 if observed else 0,
        "disruptionsAllowed": allowed,
        "currentHealthy": 1 + allowed if healthy is None else healthy,
        "desiredHealthy": 1,
        "expectedPods": 1 + allowed,
    }
    updated = await api.put(f"{PDBS}/{name}/status", json=pdb)
    assert updated.status_code == 200, updated.text


async def evict(api: httpx.AsyncClient, pod: str, query: str = "", **options: Any) -> httpx.Response:
    body: dict[str, Any] = {"apiVersion": "policy/v1", "kind": "Eviction", "metadata": {"name": pod}}
    if options:
        body["deleteOptions"] = options
    return await api.post(f"{NS}/pods/{pod}/eviction{query}", json=body)


async def exists(api: httpx.AsyncClient, pod: str) -> bool:
    """Present and not being deleted (a scheduled pod's deletion is graceful)."""
    got = await api.get(f"{NS}/pods/{pod}")
    return got.status_code == 200 and not got.json()["metadata"].get("deletionTimestamp")


async def test_no_budget_deletes_with_the_disruption_target_condition(api: httpx.AsyncClient) -> None:
    await running_pod(api, "p")
    answer = await evict(api, "p", gracePeriodSeconds=30)
    assert answer.status_code == 201, answer.text
    assert answer.json()["status"] == "Success"
    pod = (await api.get(f"{NS}/pods/p")).json()  # graceful: still there, marked
    assert pod["metadata"]["deletionTimestamp"]
    (target,) = [c for c in pod["status"]["conditions"] if c["type"] == "DisruptionTarget"]
    assert (target["status"], target["reason"], target["message"]) == (
        "True",
        "EvictionByEvictionAPI",
        "Eviction API: evicting",
    )


async def test_no_disruption_allowed_is_429_with_the_budget_cause(api: httpx.AsyncClient) -> None:
    await running_pod(api, "p")
    await budget(api, "pdb", 0)
    answer = await evict(api, "p")
    assert answer.status_code == 429
    status = answer.json()
    assert (status["reason"], status["message"]) == ("TooManyRequests", VIOLATION)
    assert status["details"]["causes"] == [
        {
            "reason": "DisruptionBudget",
            "message": "The disruption budget pdb needs 1 healthy pods and has 1 currently",
        }
    ]
    assert await exists(api, "p")


async def test_unobserved_budget_is_429_still_being_processed(api: httpx.AsyncClient) -> None:
    await running_pod(api, "p")
    await budget(api, "pdb", 1, observed=False)
    answer = await evict(api, "p")
    assert answer.status_code == 429
    assert answer.headers["retry-after"] == "10"
    cause = answer.json()["details"]["causes"][0]["message"]
    assert cause == "The disruption budget pdb is still being processed by the server."


async def test_allowed_eviction_spends_the_budget_and_records_the_pod(api: httpx.AsyncClient) -> None:
    await running_pod(api, "p")
    await budget(api, "pdb", 1)
    assert (await evict(api, "p")).status_code == 201
    assert not await exists(api, "p")
    status = (await api.get(f"{PDBS}/pdb")).json()["status"]
    assert status["disruptionsAllowed"] == 0
    assert list(status["disruptedPods"]) == ["p"]
    (condition,) = status["conditions"]
    assert (condition["type"], condition["status"], condition["reason"]) == (
        "DisruptionAllowed",
        "False",
        "InsufficientPods",
    )


async def test_dry_run_changes_neither_pod_nor_budget(api: httpx.AsyncClient) -> None:
    await running_pod(api, "p")
    await budget(api, "pdb", 1)
    assert (await evict(api, "p", "?dryRun=All")).status_code == 201
    assert (await evict(api, "p", dryRun=["All"])).status_code == 201
    assert await exists(api, "p")
    pod = (await api.get(f"{NS}/pods/p")).json()
    assert all(c["type"] != "DisruptionTarget" for c in pod["status"]["conditions"])
    status = (await api.get(f"{PDBS}/pdb")).json()["status"]
    assert status["disruptionsAllowed"] == 1 and "disruptedPods" not in status


async def test_two_budgets_are_500(api: httpx.AsyncClient) -> None:
    await running_pod(api, "p")
    await budget(api, "a", 1)
    await budget(api, "b", 1)
    answer = await evict(api, "p")
    assert answer.status_code == 500
    assert answer.json()["message"] == (
        "This pod has more than one PodDisruptionBudget, which the eviction subresource does not support."
    )
    assert await exists(api, "p")


async def test_terminal_and_pending_pods_ignore_the_budget(api: httpx.AsyncClient) -> None:
    await running_pod(api, "done", phase="Succeeded")
    await running_pod(api, "pending", ready=False, phase="Pending")
    await budget(api, "pdb", 0)
    assert (await evict(api, "done")).status_code == 201
    assert (await evict(api, "pending")).status_code == 201
    assert not await exists(api, "done") and not await exists(api, "pending")


async def test_unready_pod_goes_while_the_budget_is_met_or_always_allowed(api: httpx.AsyncClient) -> None:
    await running_pod(api, "sick", ready=False)
    await budget(api, "pdb", 0)  # currentHealthy 1 >= desiredHealthy 1: an unready pod is spare
    assert (await evict(api, "sick")).status_code == 201
    status = (await api.get(f"{PDBS}/pdb")).json()["status"]
    assert status["disruptionsAllowed"] == 0 and "disruptedPods" not in status


async def test_stale_resource_version_precondition_is_409(api: httpx.AsyncClient) -> None:
    await running_pod(api, "p")
    answer = await evict(api, "p", preconditions={"resourceVersion": "1"})
    assert answer.status_code == 409
    assert "the ResourceVersion in the precondition (1) does not match" in answer.json()["message"]
    assert await exists(api, "p")


async def test_two_concurrent_evictions_spend_one_disruption_once(api: httpx.AsyncClient) -> None:
    await running_pod(api, "a")
    await running_pod(api, "b")
    await budget(api, "pdb", 1)
    answers = await asyncio.gather(evict(api, "a"), evict(api, "b"))
    assert sorted(a.status_code for a in answers) == [201, 429]
    assert [await exists(api, "a"), await exists(api, "b")].count(True) == 1
    status = (await api.get(f"{PDBS}/pdb")).json()["status"]
    assert status["disruptionsAllowed"] == 0 and len(status["disruptedPods"]) == 1


@pytest.mark.parametrize(("policy", "code"), [("IfHealthyBudget", 429), ("AlwaysAllow", 201)])
async def test_unready_pod_of_an_unmet_budget_goes_only_when_always_allowed(
    api: httpx.AsyncClient, policy: str, code: int
) -> None:
    await running_pod(api, "sick", ready=False)
    await budget(api, "pdb", 0, healthy=0, unhealthyPodEvictionPolicy=policy)
    answer = await evict(api, "sick")
    assert answer.status_code == code, answer.text
    assert await exists(api, "sick") == (code == 429)
    pod = (await api.get(f"{NS}/pods/sick")).json()
    targeted = any(c["type"] == "DisruptionTarget" for c in pod["status"]["conditions"])
    assert targeted == (code == 201)  # a refused eviction leaves no condition
