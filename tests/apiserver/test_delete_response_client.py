"""DELETE answers through the official ``kubernetes`` Python client, unmodified, against a
running cluster: a ``Status`` for a removed ConfigMap, the ``V1Pod`` itself for a pod, the
object for one finalizers keep, and upstream's 422 for bad options."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from kubernetes import client, config
from kubernetes.client.rest import ApiException

from tests.cluster import free_port, start_up

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def core(tmp_path_factory: pytest.TempPathFactory) -> Iterator[client.CoreV1Api]:
    running = start_up(tmp_path_factory.mktemp("pydelete"), free_port())
    running.wait_ready()
    yield client.CoreV1Api(config.new_client_from_config(config_file=str(running.kubeconfig)))
    if running.process.poll() is None:
        running.stop()


def configmap(name: str, finalizers: list[str] | None = None) -> client.V1ConfigMap:
    return client.V1ConfigMap(metadata=client.V1ObjectMeta(name=name, finalizers=finalizers))


def test_removed_configmap_is_a_status(core: client.CoreV1Api) -> None:
    """The client (whose OpenAPI types this answer as ``object``) hands back the Status as is."""
    uid = core.create_namespaced_config_map("default", configmap("st")).metadata.uid
    assert core.delete_namespaced_config_map("st", "default") == {
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Success",
        "details": {"name": "st", "kind": "configmaps", "uid": uid},
    }


def test_dry_run_removal_is_a_status_and_keeps_the_configmap(core: client.CoreV1Api) -> None:
    core.create_namespaced_config_map("default", configmap("dry"))
    status = core.delete_namespaced_config_map("dry", "default", dry_run="All")
    assert (status["kind"], status["status"], status["details"]["name"]) == ("Status", "Success", "dry")
    assert core.read_namespaced_config_map("dry", "default").metadata.name == "dry"


def test_pod_is_answered_with_itself(core: client.CoreV1Api) -> None:
    spec = client.V1PodSpec(containers=[client.V1Container(name="c", image="i")])
    body = client.V1Pod(metadata=client.V1ObjectMeta(name="gone"), spec=spec)
    uid = core.create_namespaced_pod("default", body).metadata.uid
    deleted = core.delete_namespaced_pod("gone", "default", grace_period_seconds=0)
    assert isinstance(deleted, client.V1Pod)
    assert (deleted.kind, deleted.metadata.name, deleted.metadata.uid) == ("Pod", "gone", uid)


def test_kept_configmap_is_answered_with_itself(core: client.CoreV1Api) -> None:
    core.create_namespaced_config_map("default", configmap("kept", ["example.com/hold"]))
    kept = core.delete_namespaced_config_map("kept", "default", propagation_policy="Orphan")
    assert kept["kind"] == "ConfigMap" and kept["metadata"]["deletionTimestamp"]
    assert kept["metadata"]["finalizers"] == ["example.com/hold", "orphan"]


def test_bad_options_are_422(core: client.CoreV1Api) -> None:
    with pytest.raises(ApiException) as bad:
        core.delete_namespaced_config_map("any", "default", propagation_policy="")
    assert bad.value.status == 422
    assert json.loads(bad.value.body)["message"] == (
        'DeleteOptions.meta.k8s.io "" is invalid: propagationPolicy: Unsupported value: "": '
        'supported values: "Foreground", "Background", "Orphan", "nil"'
    )
    with pytest.raises(ApiException) as dry:
        core.create_namespaced_config_map("default", configmap("never"), dry_run="Yes")
    assert dry.value.status == 422
    assert json.loads(dry.value.body)["details"]["kind"] == "CreateOptions"
    assert json.loads(dry.value.body)["details"]["causes"] == [
        {
            "reason": "FieldValueNotSupported",
            "message": 'Unsupported value: ["Yes"]: supported values: "All"',
            "field": "dryRun",
        }
    ]
