"""StatefulSets end to end on ``up --nodes 2`` with real kubectl, as the upstream tutorial
("StatefulSet Basics") runs them: ``web`` behind the headless Service ``nginx`` makes ``web-0``
before ``web-1``, each pod resolves as ``<pod>.nginx.<ns>.svc.cluster.local``, each gets its own
claim ``www-web-<n>``, ``kubectl scale``, ``rollout status/history/undo`` and a partitioned
update; and a set whose Service is missing still gets its pods, with a Warning saying why."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import dns.message
import dns.query
import pytest
import yaml

from tests.cluster import Cluster, eventually, kubectl, kubectl_json, kubectl_ok, running_up

pytestmark = pytest.mark.e2e

SLEEP = ["sh", "-c", "exec sleep 3600"]


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    yield from running_up(tmp_path_factory.mktemp("statefulset"), flags=["--nodes", "2"])


def namespace(cluster: Cluster, name: str) -> str:
    kubectl_ok(cluster, "create", "namespace", name)
    eventually(
        lambda: kubectl(cluster, "-n", name, "get", "serviceaccount", "default").returncode == 0,
        f"the default service account in {name}",
    )
    return name


def headless(name: str = "nginx", app: str = "nginx") -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {"name": name, "labels": {"app": app}},
        "spec": {"clusterIP": "None", "selector": {"app": app}, "ports": [{"name": "web", "port": 80}]},
    }


def stateful_set(name: str = "web", replicas: int = 2, service: str = "nginx", **spec: Any) -> dict[str, Any]:
    return {
        "apiVersion": "apps/v1",
        "kind": "StatefulSet",
        "metadata": {"name": name},
        "spec": {
            "serviceName": service,
            "replicas": replicas,
            "selector": {"matchLabels": {"app": service}},
            "template": {
                "metadata": {"labels": {"app": service}},
                "spec": {
                    "terminationGracePeriodSeconds": 1,
                    "containers": [{"name": "nginx", "image": "busybox", "command": SLEEP}],
                },
            },
            **spec,
        },
    }


def apply(cluster: Cluster, ns: str, *objects: dict[str, Any]) -> None:
    kubectl_ok(cluster, "-n", ns, "apply", "-f", "-", stdin=yaml.safe_dump_all(objects))


def pods(cluster: Cluster, ns: str, app: str = "nginx") -> dict[str, dict[str, Any]]:
    items = kubectl_json(cluster, "-n", ns, "pods", "-l", f"app={app}")["items"]
    return {p["metadata"]["name"]: p for p in items if not p["metadata"].get("deletionTimestamp")}


def ready(pod: dict[str, Any]) -> bool:
    conditions = (pod.get("status") or {}).get("conditions") or []
    return any(c["type"] == "Ready" and c["status"] == "True" for c in conditions)


def wait_ready(cluster: Cluster, ns: str, names: list[str], app: str = "nginx") -> dict[str, dict[str, Any]]:
    def check() -> dict[str, dict[str, Any]] | None:
        found = pods(cluster, ns, app)
        return found if sorted(found) == sorted(names) and all(ready(p) for p in found.values()) else None

    result: dict[str, dict[str, Any]] = eventually(check, f"{names} Ready", timeout=90)
    return result


def events(cluster: Cluster, ns: str, name: str = "web") -> list[dict[str, Any]]:
    items = kubectl_json(cluster, "-n", ns, "events", "--field-selector", f"involvedObject.name={name}")[
        "items"
    ]
    return sorted(items, key=lambda e: e.get("firstTimestamp") or e["metadata"]["creationTimestamp"])


def messages(cluster: Cluster, ns: str, reason: str, name: str = "web") -> list[str]:
    return [e["message"] for e in events(cluster, ns, name) if e["reason"] == reason]


def dns_server(cluster: Cluster) -> tuple[str, int]:
    endpoints = kubectl_json(cluster, "-n", "kube-system", "endpoints", "kube-dns")
    [subset] = endpoints["subsets"]
    port = next(p["port"] for p in subset["ports"] if p["name"] == "dns")
    return subset["addresses"][0]["ip"], port


def resolve(where: tuple[str, int], name: str) -> list[str]:
    answer = dns.query.udp(dns.message.make_query(name, "A"), where[0], port=where[1], timeout=2).answer
    return sorted(str(r) for rrset in answer for r in rrset)


@pytest.fixture(scope="module")
def web(cluster: Cluster) -> str:
    """Namespace ``tutorial`` with ``nginx`` and ``web`` (2 replicas) up and Ready."""
    ns = namespace(cluster, "tutorial")
    apply(cluster, ns, headless(), stateful_set())
    wait_ready(cluster, ns, ["web-0", "web-1"])
    return ns


def test_web_0_is_created_and_ready_before_web_1(cluster: Cluster, web: str) -> None:
    found = pods(cluster, web)
    web0_ready = next(c for c in found["web-0"]["status"]["conditions"] if c["type"] == "Ready")
    assert found["web-1"]["metadata"]["creationTimestamp"] >= web0_ready["lastTransitionTime"]
    assert messages(cluster, web, "SuccessfulCreate")[:2] == [
        "create Pod web-0 in StatefulSet web successful",
        "create Pod web-1 in StatefulSet web successful",
    ]
    for ordinal, name in enumerate(("web-0", "web-1")):
        pod = found[name]
        assert pod["spec"]["hostname"] == name and pod["spec"]["subdomain"] == "nginx"
        labels = pod["metadata"]["labels"]
        assert labels["statefulset.kubernetes.io/pod-name"] == name
        assert labels["apps.kubernetes.io/pod-index"] == str(ordinal)
        assert labels["controller-revision-hash"].startswith("web-")
    sts = kubectl_json(cluster, "-n", web, "statefulset", "web")
    status = sts["status"]
    assert (status["replicas"], status["readyReplicas"], status["availableReplicas"]) == (2, 2, 2)
    assert status["currentRevision"] == status["updateRevision"]
    assert status["observedGeneration"] == sts["metadata"]["generation"]
    assert "2/2" in kubectl_ok(cluster, "-n", web, "get", "sts", "web")


def test_pod_dns_names_resolve(cluster: Cluster, web: str) -> None:
    where = dns_server(cluster)
    for name, pod in pods(cluster, web).items():
        fqdn, ip = f"{name}.nginx.{web}.svc.cluster.local", str(pod["status"]["podIP"])

        def answered(fqdn: str = fqdn, ip: str = ip) -> bool:
            return resolve(where, fqdn) == [ip]

        eventually(answered, fqdn)
    all_ips = sorted(p["status"]["podIP"] for p in pods(cluster, web).values())
    eventually(lambda: resolve(where, f"nginx.{web}.svc.cluster.local") == all_ips, "the headless Service")


def test_scale_up_and_down_in_order(cluster: Cluster, web: str) -> None:
    kubectl_ok(cluster, "-n", web, "scale", "sts", "web", "--replicas=4")
    wait_ready(cluster, web, ["web-0", "web-1", "web-2", "web-3"])
    created = {n: p["metadata"]["creationTimestamp"] for n, p in pods(cluster, web).items()}
    assert created["web-2"] <= created["web-3"]
    kubectl_ok(cluster, "-n", web, "scale", "sts", "web", "--replicas=2")
    wait_ready(cluster, web, ["web-0", "web-1"])
    assert messages(cluster, web, "SuccessfulDelete")[-2:] == [
        "delete Pod web-3 in StatefulSet web successful",
        "delete Pod web-2 in StatefulSet web successful",
    ]


def test_rollout_status_history_and_undo(cluster: Cluster, web: str) -> None:
    before = kubectl_json(cluster, "-n", web, "statefulset", "web")["status"]["currentRevision"]
    kubectl_ok(cluster, "-n", web, "set", "env", "sts/web", "COLOR=blue")
    out = kubectl_ok(cluster, "-n", web, "rollout", "status", "sts/web", "--timeout=120s")
    assert "partitioned roll out complete" in out or "roll out complete" in out
    status = kubectl_json(cluster, "-n", web, "statefulset", "web")["status"]
    assert status["currentRevision"] == status["updateRevision"] != before
    for pod in pods(cluster, web).values():
        assert pod["metadata"]["labels"]["controller-revision-hash"] == status["updateRevision"]
        assert {"name": "COLOR", "value": "blue"} in pod["spec"]["containers"][0]["env"]
    history = kubectl_ok(cluster, "-n", web, "rollout", "history", "sts/web")
    assert "REVISION" in history and "\n1 " in history and "\n2 " in history
    detail = kubectl_ok(cluster, "-n", web, "rollout", "history", "sts/web", "--revision=2")
    assert "COLOR:\tblue" in detail or "COLOR: blue" in detail
    kubectl_ok(cluster, "-n", web, "rollout", "undo", "sts/web")
    kubectl_ok(cluster, "-n", web, "rollout", "status", "sts/web", "--timeout=120s")
    status = kubectl_json(cluster, "-n", web, "statefulset", "web")["status"]
    assert status["updateRevision"] == before
    for pod in pods(cluster, web).values():
        assert not pod["spec"]["containers"][0].get("env")
    revisions = kubectl_json(cluster, "-n", web, "controllerrevisions")["items"]
    numbers = {r["metadata"]["name"]: r["revision"] for r in revisions}
    assert numbers[before] == 3  # undo renumbers the old revision rather than adding one


def test_partition_is_respected(cluster: Cluster, web: str) -> None:
    def partition(value: int) -> str:
        return json.dumps({"spec": {"updateStrategy": {"rollingUpdate": {"partition": value}}}})

    kubectl_ok(cluster, "-n", web, "patch", "sts", "web", "-p", partition(1))
    kubectl_ok(cluster, "-n", web, "set", "env", "sts/web", "COLOR=green")
    out = kubectl_ok(cluster, "-n", web, "rollout", "status", "sts/web", "--timeout=120s")
    assert "partitioned roll out complete: 1 new pods have been updated" in out
    status = kubectl_json(cluster, "-n", web, "statefulset", "web")["status"]
    found = pods(cluster, web)
    assert found["web-1"]["metadata"]["labels"]["controller-revision-hash"] == status["updateRevision"]
    assert found["web-0"]["metadata"]["labels"]["controller-revision-hash"] == status["currentRevision"]
    assert status["currentRevision"] != status["updateRevision"]
    assert (status["currentReplicas"], status["updatedReplicas"]) == (1, 1)
    kubectl_ok(cluster, "-n", web, "patch", "sts", "web", "-p", partition(0))
    kubectl_ok(cluster, "-n", web, "rollout", "status", "sts/web", "--timeout=120s")
    status = kubectl_json(cluster, "-n", web, "statefulset", "web")["status"]
    assert status["currentRevision"] == status["updateRevision"]


def test_parallel_pod_management_creates_all_at_once(cluster: Cluster) -> None:
    ns = namespace(cluster, "parallel")
    apply(cluster, ns, headless("par", "par"), stateful_set("par", 3, "par", podManagementPolicy="Parallel"))
    wait_ready(cluster, ns, ["par-0", "par-1", "par-2"], app="par")
    assert len(messages(cluster, ns, "SuccessfulCreate", "par")) == 3


def test_missing_governing_service_still_gets_pods_and_a_warning(cluster: Cluster) -> None:
    ns = namespace(cluster, "no-service")
    apply(cluster, ns, stateful_set("lonely", 1, "lonely"))
    wait_ready(cluster, ns, ["lonely-0"], app="lonely")
    warnings = eventually(
        lambda: [e for e in events(cluster, ns, "lonely") if e["reason"] == "GoverningServiceNotFound"],
        "the governing-Service warning",
    )
    assert warnings[0]["type"] == "Warning"
    assert 'governing Service "lonely" not found' in warnings[0]["message"]
    described = kubectl_ok(cluster, "-n", ns, "describe", "sts", "lonely")
    assert "GoverningServiceNotFound" in described
    apply(cluster, ns, headless("lonely", "lonely"))  # the DNS names appear once it exists
    where = dns_server(cluster)
    ip = pods(cluster, ns, "lonely")["lonely-0"]["status"]["podIP"]
    eventually(lambda: resolve(where, f"lonely-0.lonely.{ns}.svc.cluster.local") == [ip], "lonely-0's name")


CLAIM_TEMPLATE = {
    "metadata": {"name": "data"},
    "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}},
}


def with_data_volume(sts: dict[str, Any], **retention: str) -> dict[str, Any]:
    sts["spec"]["volumeClaimTemplates"] = [CLAIM_TEMPLATE]
    sts["spec"]["template"]["spec"]["containers"][0]["volumeMounts"] = [
        {"name": "data", "mountPath": "/data"}
    ]
    if retention:
        sts["spec"]["persistentVolumeClaimRetentionPolicy"] = retention
    return sts


def claims(cluster: Cluster, ns: str) -> dict[str, dict[str, Any]]:
    items = kubectl_json(cluster, "-n", ns, "pvc")["items"]
    return {c["metadata"]["name"]: c for c in items if not c["metadata"].get("deletionTimestamp")}


def test_each_member_gets_its_own_claim_and_its_data_survives_a_pod_delete(cluster: Cluster) -> None:
    ns = namespace(cluster, "volumes")
    apply(cluster, ns, headless("www", "www"), with_data_volume(stateful_set("www", 2, "www")))
    wait_ready(cluster, ns, ["www-0", "www-1"], app="www")

    def bound() -> dict[str, dict[str, Any]] | None:
        found = claims(cluster, ns)
        return found if all(c["status"].get("phase") == "Bound" for c in found.values()) else None

    found = eventually(bound, "Bound claims")
    assert sorted(found) == ["data-www-0", "data-www-1"]
    assert found["data-www-0"]["spec"]["storageClassName"] == "standard"
    assert found["data-www-0"]["metadata"]["labels"] == {"app": "www"}
    assert found["data-www-0"]["spec"]["volumeName"] != found["data-www-1"]["spec"]["volumeName"]
    for name, pod in pods(cluster, ns, "www").items():
        [volume] = [v for v in pod["spec"]["volumes"] if v["name"] == "data"]
        assert volume["persistentVolumeClaim"]["claimName"] == f"data-{name}"
    assert "create Claim data-www-0 Pod www-0 in StatefulSet www success" in messages(
        cluster, ns, "SuccessfulCreate", "www"
    )

    # Each member writes into its own claim's volume (a local-path directory, 0777 as rancher's)
    for ordinal in (0, 1):
        kubectl_ok(
            cluster, "-n", ns, "exec", f"www-{ordinal}", "--",
            "sh", "-c", f"echo hello from www-{ordinal} > /data/greeting",
        )  # fmt: skip

    def read(pod: str) -> str:
        return kubectl_ok(cluster, "-n", ns, "exec", pod, "--", "cat", "/data/greeting")

    assert read("www-0") == "hello from www-0\n" and read("www-1") == "hello from www-1\n"
    old_uid = pods(cluster, ns, "www")["www-0"]["metadata"]["uid"]
    kubectl_ok(cluster, "-n", ns, "delete", "pod", "www-0")

    def recreated() -> bool:
        pod = pods(cluster, ns, "www").get("www-0")
        return pod is not None and pod["metadata"]["uid"] != old_uid and ready(pod)

    eventually(recreated, "www-0 recreated and Ready", timeout=90)
    assert read("www-0") == "hello from www-0\n"  # the new www-0 has the old one's claim
    assert sorted(claims(cluster, ns)) == ["data-www-0", "data-www-1"]


def test_when_scaled_delete_removes_a_scaled_down_members_claim(cluster: Cluster) -> None:
    ns = namespace(cluster, "retention")
    sts = with_data_volume(stateful_set("keep", 2, "keep"), whenDeleted="Retain", whenScaled="Delete")
    apply(cluster, ns, headless("keep", "keep"), sts)
    wait_ready(cluster, ns, ["keep-0", "keep-1"], app="keep")
    eventually(lambda: sorted(claims(cluster, ns)) == ["data-keep-0", "data-keep-1"], "both claims")
    kubectl_ok(cluster, "-n", ns, "scale", "sts", "keep", "--replicas=1")
    eventually(
        lambda: sorted(claims(cluster, ns)) == ["data-keep-0"], "the scaled-down claim deleted", timeout=60
    )
    kubectl_ok(cluster, "-n", ns, "delete", "sts", "keep")
    eventually(lambda: not pods(cluster, ns, "keep"), "the set's pods gone", timeout=60)
    assert sorted(claims(cluster, ns)) == ["data-keep-0"]  # whenDeleted: Retain keeps it
