"""422 messages name the kind as upstream's ``NewInvalid`` does: qualified by its group for
grouped kinds (``Deployment.apps "x" is invalid``), bare for the core group, and each repeated
message once."""

from __future__ import annotations

from minikube_py.api import errors

DEPLOYMENTS = "/apis/apps/v1/namespaces/default/deployments"


async def test_a_grouped_kind_is_qualified_by_its_group(api):
    bad = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "web"},
        "spec": {
            "selector": {"matchLabels": {"app": "web"}},
            "template": {"metadata": {"labels": {"app": "x"}}},
        },
    }
    r = await api.post(DEPLOYMENTS, json=bad)
    assert r.status_code == 422, r.text
    status = r.json()
    assert status["message"].startswith('Deployment.apps "web" is invalid: '), status["message"]
    assert (status["details"]["kind"], status["details"]["group"]) == ("Deployment", "apps")


async def test_a_core_kind_is_bare(api):
    r = await api.post("/api/v1/namespaces/default/configmaps", json={"metadata": {"name": "Bad_Name"}})
    assert r.status_code == 422, r.text
    assert r.json()["message"].startswith('ConfigMap "Bad_Name" is invalid: ')


def test_repeated_messages_are_listed_once() -> None:
    cause = errors.Cause("FieldValueInvalid", "Invalid value: 1", "spec.x")
    other = errors.Cause("FieldValueRequired", "Required value", "spec.y")
    error = errors.invalid("Event", "e", "events.k8s.io", [cause, other, cause])
    assert (
        error.message
        == 'Event.events.k8s.io "e" is invalid: [spec.x: Invalid value: 1, spec.y: Required value]'
    )
    assert len(error.causes) == 3  # the causes themselves are all kept, as upstream's
