"""policy/v1 PodDisruptionBudgets: upstream's validation of the spec and of the status, the
status subresource, generation bumps and ``kubectl get pdb``'s Table."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

PDBS = "/apis/policy/v1/namespaces/default/poddisruptionbudgets"
TABLE = {"accept": "application/json;as=Table;v=v1;g=meta.k8s.io"}
PERCENT = (
    "a valid percent string must be a numeric string followed by an ending '%' "
    "(e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')"
)


def pdb(name: str = "pdb", **spec: Any) -> dict[str, Any]:
    spec.setdefault("selector", {"matchLabels": {"app": "web"}})
    return {
        "apiVersion": "policy/v1",
        "kind": "PodDisruptionBudget",
        "metadata": {"name": name},
        "spec": spec,
    }


@pytest.mark.parametrize(
    ("spec", "field", "message"),
    [
        (
            {"minAvailable": 1, "maxUnavailable": 1},
            "spec",
            "minAvailable and maxUnavailable cannot be both set",
        ),
        ({"minAvailable": -1}, "spec.minAvailable", "Invalid value: -1: must be greater than or equal to 0"),
        ({"maxUnavailable": "abc"}, "spec.maxUnavailable", f'Invalid value: "abc": {PERCENT}'),
        (
            {"maxUnavailable": "101%"},
            "spec.maxUnavailable",
            'Invalid value: "101%": must not be greater than 100%',
        ),
        (
            {"minAvailable": 1, "unhealthyPodEvictionPolicy": "Never"},
            "spec.unhealthyPodEvictionPolicy",
            'Unsupported value: "Never": supported values: "AlwaysAllow", "IfHealthyBudget"',
        ),
        (
            {"minAvailable": 1, "selector": {"matchExpressions": [{"key": "a", "operator": "In"}]}},
            "spec.selector.matchExpressions[0].values",
            "Required value: must be specified when `operator` is 'In' or 'NotIn'",
        ),
    ],
)
async def test_invalid_spec_is_422(
    api: httpx.AsyncClient, spec: dict[str, Any], field: str, message: str
) -> None:
    answer = await api.post(PDBS, json=pdb(**spec))
    assert answer.status_code == 422, answer.text
    causes = answer.json()["details"]["causes"]
    assert any(c["field"] == field and c["message"].endswith(message) for c in causes), causes


async def test_status_is_reset_on_create_and_validated_on_update(api: httpx.AsyncClient) -> None:
    body = pdb(minAvailable="50%")
    body["status"] = {"disruptionsAllowed": 5}
    created = (await api.post(PDBS, json=body)).json()
    assert created["status"]["disruptionsAllowed"] == 0
    assert created["metadata"]["generation"] == 1
    created["status"] = {
        "disruptionsAllowed": -1,
        "conditions": [{"type": "DisruptionAllowed", "status": "Maybe"}],
    }
    answer = await api.put(f"{PDBS}/pdb/status", json=created)
    assert answer.status_code == 422
    fields = {c["field"] for c in answer.json()["details"]["causes"]}
    assert fields == {
        "status.disruptionsAllowed",
        "status.conditions[0].status",
        "status.conditions[0].lastTransitionTime",
        "status.conditions[0].reason",
    }


async def test_spec_changes_bump_the_generation_and_status_writes_keep_the_spec(
    api: httpx.AsyncClient,
) -> None:
    created = (await api.post(PDBS, json=pdb(minAvailable=1))).json()
    created["spec"]["minAvailable"] = 2
    updated = (await api.put(f"{PDBS}/pdb", json=created)).json()
    assert (updated["metadata"]["generation"], updated["spec"]["minAvailable"]) == (2, 2)
    updated["spec"]["minAvailable"] = 3
    updated["status"]["observedGeneration"] = 2
    written = (await api.put(f"{PDBS}/pdb/status", json=updated)).json()
    assert (written["spec"]["minAvailable"], written["status"]["observedGeneration"]) == (2, 2)
    assert written["metadata"]["generation"] == 2


async def test_table_has_kubectls_columns(api: httpx.AsyncClient) -> None:
    await api.post(PDBS, json=pdb("a", minAvailable="50%"))
    await api.post(PDBS, json=pdb("b", maxUnavailable=1))
    table = (await api.get(PDBS, headers=TABLE)).json()
    names = [c["name"] for c in table["columnDefinitions"]]
    assert names == ["Name", "Min Available", "Max Unavailable", "Allowed Disruptions", "Age"]
    assert [r["cells"][:4] for r in table["rows"]] == [["a", "50%", "N/A", 0], ["b", "N/A", "1", 0]]


async def test_discovery_serves_pdb_with_its_short_name(api: httpx.AsyncClient) -> None:
    resources = (await api.get("/apis/policy/v1")).json()["resources"]
    served = {r["name"]: r for r in resources}
    assert served["poddisruptionbudgets"]["shortNames"] == ["pdb"]
    assert served["poddisruptionbudgets"]["namespaced"] is True
    assert "poddisruptionbudgets/status" in served
