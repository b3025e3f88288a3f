"""Namespaces always carry ``kubernetes.io/metadata.name=<name>`` (upstream's defaulting), on
create and after an update that drops or changes it."""

from __future__ import annotations

LABEL = "kubernetes.io/metadata.name"


async def test_the_name_label_is_set_and_kept(api):
    r = await api.post("/api/v1/namespaces", json={"metadata": {"name": "team-a", "labels": {"x": "1"}}})
    assert r.status_code == 201, r.text
    assert r.json()["metadata"]["labels"] == {"x": "1", LABEL: "team-a"}
    body = r.json()
    body["metadata"]["labels"] = {LABEL: "other"}
    r = await api.put("/api/v1/namespaces/team-a", json=body)
    assert r.status_code == 200, r.text
    assert r.json()["metadata"]["labels"] == {LABEL: "team-a"}
