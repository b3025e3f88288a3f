"""The admission chain through the REST API: every built-in plugin on, as ``up`` plus
ServiceAccount."""

from __future__ import annotations

import asyncio

import httpx

from tests.admission.conftest import NS, make_namespace, pod

RESTRICTED = {"pod-security.kubernetes.io/enforce": "restricted"}


async def test_deleting_an_immortal_namespace_is_forbidden(admitted: httpx.AsyncClient) -> None:
    for name in ("kube-system", "default", "kube-public"):
        r = await admitted.delete(f"{NS}/{name}")
        assert r.status_code == 403, r.text
        assert r.json()["reason"] == "Forbidden"
        assert r.json()["message"] == f'namespaces "{name}" is forbidden: this namespace may not be deleted'
    assert (await admitted.get(f"{NS}/kube-system")).json()["status"]["phase"] == "Active"


async def test_no_objects_in_a_missing_namespace(admitted: httpx.AsyncClient) -> None:
    cm = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "x"}}
    r = await admitted.post(f"{NS}/nowhere/configmaps", json=cm)
    assert r.status_code == 404, r.text
    assert r.json()["message"] == 'namespaces "nowhere" not found'


async def test_no_new_objects_in_a_terminating_namespace(admitted: httpx.AsyncClient) -> None:
    await make_namespace(admitted, "doomed")
    assert (await admitted.delete(f"{NS}/doomed")).status_code == 200
    cm = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "late"}}
    r = await admitted.post(f"{NS}/doomed/configmaps", json=cm)
    assert r.status_code == 403, r.text
    assert r.json()["message"] == (
        'configmaps "late" is forbidden: unable to create new content in namespace doomed '
        "because it is being terminated"
    )
    assert r.json()["details"]["causes"] == [
        {
            "reason": "NamespaceTerminating",
            "message": "namespace doomed is being terminated",
            "field": "metadata.namespace",
        }
    ]


async def test_a_quota_of_one_pod_refuses_the_second(admitted: httpx.AsyncClient) -> None:
    await make_namespace(admitted, "q")
    quota = {
        "apiVersion": "v1",
        "kind": "ResourceQuota",
        "metadata": {"name": "pods"},
        "spec": {"hard": {"pods": "1"}},
    }
    assert (await admitted.post(f"{NS}/q/resourcequotas", json=quota)).status_code == 201
    assert (await admitted.post(f"{NS}/q/pods", json=pod("one"))).status_code == 201
    r = await admitted.post(f"{NS}/q/pods", json=pod("two"))
    assert r.status_code == 403, r.text
    assert r.json()["message"] == (
        'pods "two" is forbidden: exceeded quota: pods, requested: pods=1, used: pods=1, limited: pods=1'
    )
    status = (await admitted.get(f"{NS}/q/resourcequotas/pods")).json()["status"]
    assert status == {"hard": {"pods": "1"}, "used": {"pods": "1"}}
    assert (await admitted.delete(f"{NS}/q/pods/one")).status_code == 200
    status = (await admitted.get(f"{NS}/q/resourcequotas/pods")).json()["status"]
    assert status["used"] == {"pods": "0"}
    assert (await admitted.post(f"{NS}/q/pods", json=pod("two"))).status_code == 201


async def test_a_dry_run_does_not_charge_the_quota(admitted: httpx.AsyncClient) -> None:
    await make_namespace(admitted, "dry")
    quota = {
        "apiVersion": "v1",
        "kind": "ResourceQuota",
        "metadata": {"name": "cm"},
        "spec": {"hard": {"count/configmaps": "1"}},
    }
    assert (await admitted.post(f"{NS}/dry/resourcequotas", json=quota)).status_code == 201
    cm = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a"}}
    assert (await admitted.post(f"{NS}/dry/configmaps?dryRun=All", json=cm)).status_code == 201
    assert (await admitted.post(f"{NS}/dry/configmaps", json=cm)).status_code == 201
    r = await admitted.post(f"{NS}/dry/configmaps", json={**cm, "metadata": {"name": "b"}})
    assert r.status_code == 403
    assert r.json()["message"].endswith(
        "exceeded quota: cm, requested: count/configmaps=1, used: count/configmaps=1, limited: "
        "count/configmaps=1"
    )


async def test_a_cpu_quota_needs_requests(admitted: httpx.AsyncClient) -> None:
    await make_namespace(admitted, "cpu")
    quota = {
        "apiVersion": "v1",
        "kind": "ResourceQuota",
        "metadata": {"name": "compute"},
        "spec": {"hard": {"requests.cpu": "1"}},
    }
    assert (await admitted.post(f"{NS}/cpu/resourcequotas", json=quota)).status_code == 201
    r = await admitted.post(f"{NS}/cpu/pods", json=pod("bare"))
    assert r.status_code == 403
    assert (
        r.json()["message"]
        == 'pods "bare" is forbidden: failed quota: compute: must specify requests.cpu for: c'
    )
    big = pod("big", containers=[{"name": "c", "image": "nginx", "resources": {"requests": {"cpu": "800m"}}}])
    assert (await admitted.post(f"{NS}/cpu/pods", json=big)).status_code == 201
    r = await admitted.post(f"{NS}/cpu/pods", json={**big, "metadata": {"name": "big2"}})
    assert r.json()["message"] == (
        'pods "big2" is forbidden: exceeded quota: compute, requested: requests.cpu=800m, '
        "used: requests.cpu=800m, limited: requests.cpu=1"
    )


async def test_a_limit_range_default_shows_in_the_pod(admitted: httpx.AsyncClient) -> None:
    await make_namespace(admitted, "lr")
    limits = {
        "type": "Container",
        "default": {"cpu": "500m"},
        "defaultRequest": {"cpu": "200m"},
        "max": {"memory": "1Gi"},
    }
    lr = {"apiVersion": "v1", "kind": "LimitRange", "metadata": {"name": "d"}, "spec": {"limits": [limits]}}
    assert (await admitted.post(f"{NS}/lr/limitranges", json=lr)).status_code == 201
    created = await admitted.post(f"{NS}/lr/pods", json=pod("p"))
    assert created.status_code == 201, created.text
    body = created.json()
    assert body["spec"]["containers"][0]["resources"] == {
        "limits": {"cpu": "500m", "memory": "1Gi"},
        "requests": {"cpu": "200m", "memory": "1Gi"},
    }
    assert body["metadata"]["annotations"]["kubernetes.io/limit-ranger"] == (
        "LimitRanger plugin set: cpu, memory request for container c; cpu, memory limit for container c"
    )
    big = pod("big", containers=[{"name": "c", "image": "nginx", "resources": {"limits": {"memory": "2Gi"}}}])
    r = await admitted.post(f"{NS}/lr/pods", json=big)
    assert r.status_code == 403
    assert (
        r.json()["message"]
        == 'pods "big" is forbidden: maximum memory usage per Container is 1Gi, but limit is 2Gi'
    )


async def test_restricted_namespace_rejects_a_privileged_pod(admitted: httpx.AsyncClient) -> None:
    await make_namespace(admitted, "secure", RESTRICTED)
    bad = pod("root", containers=[{"name": "c", "image": "nginx", "securityContext": {"privileged": True}}])
    r = await admitted.post(f"{NS}/secure/pods", json=bad)
    assert r.status_code == 403, r.text
    assert r.json()["message"] == (
        'pods "root" is forbidden: violates PodSecurity "restricted:latest": '
        'privileged (container "c" must not set securityContext.privileged=true), '
        'allowPrivilegeEscalation != false (container "c" must set '
        "securityContext.allowPrivilegeEscalation=false), "
        'unrestricted capabilities (container "c" must set securityContext.capabilities.drop=["ALL"]), '
        'runAsNonRoot != true (pod or container "c" must set securityContext.runAsNonRoot=true), '
        'seccompProfile (pod or container "c" must set securityContext.seccompProfile.type to '
        '"RuntimeDefault" or "Localhost")'
    )
    good_context = {
        "allowPrivilegeEscalation": False,
        "capabilities": {"drop": ["ALL"]},
        "runAsNonRoot": True,
        "seccompProfile": {"type": "RuntimeDefault"},
    }
    good = pod("ok", containers=[{"name": "c", "image": "nginx", "securityContext": good_context}])
    assert (await admitted.post(f"{NS}/secure/pods", json=good)).status_code == 201


async def test_warn_mode_answers_with_a_warning(admitted: httpx.AsyncClient) -> None:
    await make_namespace(admitted, "warned", {"pod-security.kubernetes.io/warn": "baseline"})
    r = await admitted.post(f"{NS}/warned/pods", json=pod("h", hostNetwork=True))
    assert r.status_code == 201, r.text
    assert r.headers.get_list("warning") == [
        '299 - "would violate PodSecurity \\"baseline:latest\\": host namespaces (hostNetwork)"'
    ]


async def test_pod_defaults_from_the_mutating_plugins(admitted: httpx.AsyncClient) -> None:
    await make_namespace(admitted, "m")
    created = await admitted.post(f"{NS}/m/pods", json=pod("p"))
    assert created.status_code == 201, created.text
    spec = created.json()["spec"]
    assert spec["tolerations"] == [
        {
            "key": "node.kubernetes.io/not-ready",
            "operator": "Exists",
            "effect": "NoExecute",
            "tolerationSeconds": 300,
        },
        {
            "key": "node.kubernetes.io/unreachable",
            "operator": "Exists",
            "effect": "NoExecute",
            "tolerationSeconds": 300,
        },
    ]
    assert spec["priority"] == 0 and spec["preemptionPolicy"] == "PreemptLowerPriority"
    assert spec["serviceAccountName"] == "default"
    volume = spec["volumes"][0]
    assert (
        volume["name"].startswith("kube-api-access-") and len(volume["name"]) == len("kube-api-access-") + 5
    )
    assert [s for source in volume["projected"]["sources"] for s in source] == [
        "serviceAccountToken",
        "configMap",
        "downwardAPI",
    ]
    assert spec["containers"][0]["volumeMounts"] == [
        {
            "name": volume["name"],
            "readOnly": True,
            "mountPath": "/var/run/secrets/kubernetes.io/serviceaccount",
        }
    ]


async def test_a_pod_needs_its_service_account(admitted: httpx.AsyncClient) -> None:
    assert (
        await admitted.post(NS, json={"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "nosa"}})
    ).status_code == 201
    r = await admitted.post(f"{NS}/nosa/pods", json=pod("p"))
    assert r.status_code == 403
    assert r.json()["message"] == (
        'pods "p" is forbidden: error looking up service account nosa/default: serviceaccount '
        '"default" not found'
    )


async def test_a_pod_waits_briefly_for_the_default_service_account(admitted: httpx.AsyncClient) -> None:
    """Regression: a pod created right after its namespace, before the service-account
    controller made ``default``, is admitted once ``default`` appears (upstream retries)."""
    namespace = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "late-sa"}}
    assert (await admitted.post(NS, json=namespace)).status_code == 201

    async def make_default_later() -> int:
        await asyncio.sleep(0.3)
        account = {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": "default"}}
        return (await admitted.post(f"{NS}/late-sa/serviceaccounts", json=account)).status_code

    created, made = await asyncio.gather(
        admitted.post(f"{NS}/late-sa/pods", json=pod("p")), make_default_later()
    )
    assert made == 201
    assert created.status_code == 201, created.text
    assert created.json()["spec"]["serviceAccountName"] == "default"


async def test_priority_classes(admitted: httpx.AsyncClient) -> None:
    await make_namespace(admitted, "prio")
    classes = (await admitted.get("/apis/scheduling.k8s.io/v1/priorityclasses")).json()["items"]
    assert {c["metadata"]["name"]: c["value"] for c in classes} == {
        "system-cluster-critical": 2000000000,
        "system-node-critical": 2000001000,
    }
    r = await admitted.post(f"{NS}/prio/pods", json=pod("x", priorityClassName="nope"))
    assert r.status_code == 403
    assert r.json()["message"] == 'pods "x" is forbidden: no PriorityClass with name nope was found'
    high = {
        "apiVersion": "scheduling.k8s.io/v1",
        "kind": "PriorityClass",
        "metadata": {"name": "high"},
        "value": 1000,
        "globalDefault": True,
    }
    assert (await admitted.post("/apis/scheduling.k8s.io/v1/priorityclasses", json=high)).status_code == 201
    other = {**high, "metadata": {"name": "other"}}
    r = await admitted.post("/apis/scheduling.k8s.io/v1/priorityclasses", json=other)
    assert r.status_code == 403
    assert r.json()["message"] == (
        'priorityclasses.scheduling.k8s.io "other" is forbidden: PriorityClass high is already '
        "marked as default. "
        "Only one default can exist"
    )
    created = (await admitted.post(f"{NS}/prio/pods", json=pod("d"))).json()
    assert created["spec"]["priorityClassName"] == "high" and created["spec"]["priority"] == 1000
    critical = (
        await admitted.post(f"{NS}/prio/pods", json=pod("c", priorityClassName="system-node-critical"))
    ).json()
    assert critical["spec"]["priority"] == 2000001000
