"""Field ownership is recorded after defaulting, as upstream's field manager sees the decoded
(defaulted) object: the creator owns the defaulted fields, and a later PUT that leaves them
out (they are defaulted again, unchanged) takes nothing away from it."""

from __future__ import annotations

PODS = "/api/v1/namespaces/default/pods"
POD = {
    "apiVersion": "v1",
    "kind": "Pod",
    "metadata": {"name": "web", "labels": {"app": "web"}},
    "spec": {"containers": [{"name": "app", "image": "nginx"}]},
}


def entry(obj: dict, manager: str) -> dict:
    (found,) = [e for e in obj["metadata"]["managedFields"] if e["manager"] == manager]
    return found["fieldsV1"]


async def test_the_creator_owns_the_defaulted_fields(api):
    r = await api.post(PODS, json=POD, params={"fieldManager": "kubectl-create"})
    assert r.status_code == 201, r.text
    fields = entry(r.json(), "kubectl-create")
    spec = fields["f:spec"]
    for defaulted in ("f:dnsPolicy", "f:restartPolicy", "f:schedulerName", "f:terminationGracePeriodSeconds"):
        assert defaulted in spec, spec
    container = spec["f:containers"]['k:{"name":"app"}']
    for defaulted in ("f:imagePullPolicy", "f:terminationMessagePath", "f:terminationMessagePolicy"):
        assert defaulted in container, container
    assert "f:status" not in fields


async def test_a_put_without_the_defaulted_fields_keeps_their_owner(api):
    created = (await api.post(PODS, json=POD, params={"fieldManager": "kubectl-create"})).json()
    body = {**POD, "metadata": {**POD["metadata"], "labels": {"app": "web", "tier": "x"}}}
    body["metadata"]["resourceVersion"] = created["metadata"]["resourceVersion"]
    r = await api.put(f"{PODS}/web", json=body, params={"fieldManager": "editor"})
    assert r.status_code == 200, r.text
    creator = entry(r.json(), "kubectl-create")
    assert "f:imagePullPolicy" in creator["f:spec"]["f:containers"]['k:{"name":"app"}']
    assert entry(r.json(), "editor") == {"f:metadata": {"f:labels": {"f:tier": {}}}}
