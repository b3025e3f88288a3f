"""PodSecurity judges ``pods/ephemeralcontainers`` as upstream: a debug container added to a pod
in an enforcing namespace must meet the level (``kubectl debug --profile=sysadmin`` does not)."""

from __future__ import annotations

import httpx

from tests.admission.conftest import NS, make_namespace, pod

SMP = {"Content-Type": "application/strategic-merge-patch+json"}


def debug(name: str, **fields: object) -> dict[str, object]:
    return {"spec": {"ephemeralContainers": [{"name": name, "image": "busybox", **fields}]}}


async def test_pod_security_judges_the_new_ephemeral_container(admitted: httpx.AsyncClient) -> None:
    await make_namespace(admitted, "guarded", {"pod-security.kubernetes.io/enforce": "baseline"})
    created = await admitted.post(f"{NS}/guarded/pods", json=pod("web"))
    assert created.status_code == 201, created.text
    url = f"{NS}/guarded/pods/web/ephemeralcontainers"
    r = await admitted.patch(url, json=debug("dbg", securityContext={"privileged": True}), headers=SMP)
    assert r.status_code == 403, r.text
    assert r.json()["message"] == (
        'pods "web" is forbidden: violates PodSecurity "baseline:latest": '
        'privileged (container "dbg" must not set securityContext.privileged=true)'
    )
    r = await admitted.patch(url, json=debug("plain"), headers=SMP)
    assert r.status_code == 200, r.text
    assert [c["name"] for c in r.json()["spec"]["ephemeralContainers"]] == ["plain"]
