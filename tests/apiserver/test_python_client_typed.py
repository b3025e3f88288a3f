"""The official Python client's typed models against a cluster that ran pods (issue 13 items 1,
16, 17): every list it decodes must fit its models (no ValidationError for anyone), and bodies
that do not decode into upstream's types are refused before they can break those lists."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from kubernetes import client, config

from tests.cluster import Cluster, eventually, running_up

pytestmark = pytest.mark.e2e
LABELS = {"app": "typed"}


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    yield from running_up(tmp_path_factory.mktemp("pytyped"), flags=["--nodes", "1", "--fake-nodes", "1"])


@pytest.fixture(scope="module")
def api(cluster: Cluster) -> client.ApiClient:
    return config.new_client_from_config(config_file=str(cluster.kubeconfig))


def deployment(name: str, replicas: object) -> dict[str, object]:
    container = {"name": "c", "image": "busybox", "command": ["sleep", "3600"]}
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name},
        "spec": {
            "replicas": replicas,
            "selector": {"matchLabels": LABELS},
            "template": {"metadata": {"labels": LABELS}, "spec": {"containers": [container]}},
        },
    }


def test_typed_lists_decode_after_pods_ran(api: client.ApiClient) -> None:
    core, apps = client.CoreV1Api(api), client.AppsV1Api(api)
    eventually(lambda: len(core.list_node().items) == 2, "both nodes to register")
    created = apps.create_namespaced_deployment("default", deployment("typed", 2))
    assert created.status is not None  # "status": {} from the start

    def running() -> bool:
        pods = core.list_namespaced_pod("default", label_selector="app=typed").items
        return len(pods) == 2 and all(p.status.phase == "Running" for p in pods)

    eventually(running, "the deployment's pods to run", timeout=90)
    nodes = core.list_node().items
    assert all(n.status.node_info.kube_proxy_version == "" for n in nodes)
    assert core.list_pod_for_all_namespaces().items
    assert apps.list_deployment_for_all_namespaces().items[0].status.ready_replicas == 2
    assert apps.list_replica_set_for_all_namespaces().items
    core.list_event_for_all_namespaces()
    core.list_namespace()
    core.list_service_for_all_namespaces()
    core.list_endpoints_for_all_namespaces()
    client.DiscoveryV1Api(api).list_endpoint_slice_for_all_namespaces()
    client.CoordinationV1Api(api).list_lease_for_all_namespaces()


CONTAINERS = '"containers": [{"name": "c", "image": "busybox"}]'


@pytest.mark.parametrize(
    ("meta", "spec", "message"),
    [
        (
            '"labels": {"a": 1}',
            CONTAINERS,
            "cannot unmarshal number into Go struct field ObjectMeta.metadata.labels",
        ),
        (
            '"generation": "x"',
            CONTAINERS,
            "cannot unmarshal string into Go struct field ObjectMeta.metadata.generation",
        ),
        (
            '"labels": {}',
            '"terminationGracePeriodSeconds": 1e308, ' + CONTAINERS,
            "cannot unmarshal number 1e308 into Go struct field PodSpec.spec.terminationGracePeriodSeconds",
        ),
    ],
)
def test_pods_that_would_break_typed_lists_are_refused(
    cluster: Cluster, api: client.ApiClient, meta: str, spec: str, message: str
) -> None:
    """Sent as raw JSON: the client's own models refuse to send such values at all."""
    body = (
        '{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "bad", '
        + meta
        + '}, "spec": {'
        + spec
        + "}}"
    )
    with cluster.admin_client() as http:
        refused = http.post(
            "/api/v1/namespaces/default/pods", content=body, headers={"Content-Type": "application/json"}
        )
    assert refused.status_code == 400, refused.text
    assert refused.json()["reason"] == "BadRequest" and message in refused.json()["message"]
    client.CoreV1Api(api).list_pod_for_all_namespaces()  # still decodes for everyone


def test_absurd_replicas_are_refused(cluster: Cluster) -> None:
    with cluster.admin_client() as http:
        for literal in ("1e308", "2.5", "2147483648", '"3"'):
            body = json.dumps(deployment("absurd", "R")).replace('"R"', literal)
            refused = http.post(
                "/apis/apps/v1/namespaces/default/deployments",
                content=body,
                headers={"Content-Type": "application/json"},
            )
            assert refused.status_code == 400, refused.text
            assert "DeploymentSpec.spec.replicas of type int32" in refused.json()["message"]
        assert http.get("/apis/apps/v1/namespaces/default/deployments/absurd").status_code == 404
