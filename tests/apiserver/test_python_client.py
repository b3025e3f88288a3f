"""The official ``kubernetes`` Python client, unmodified, against a running cluster."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from datetime import UTC, datetime

import pytest
from kubernetes import client, config, watch
from kubernetes.client.rest import ApiException

from tests.cluster import Cluster, running_up

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    yield from running_up(tmp_path_factory.mktemp("pyclient"))


@pytest.fixture
def core(cluster: Cluster) -> client.CoreV1Api:
    api_client = config.new_client_from_config(config_file=str(cluster.kubeconfig))
    return client.CoreV1Api(api_client)


@pytest.fixture
def events(cluster: Cluster) -> client.EventsV1Api:
    return client.EventsV1Api(config.new_client_from_config(config_file=str(cluster.kubeconfig)))


def test_create_get_list_patch_delete(core: client.CoreV1Api) -> None:
    body = client.V1ConfigMap(metadata=client.V1ObjectMeta(name="py", labels={"app": "py"}), data={"a": "1"})
    created = core.create_namespaced_config_map("default", body)
    assert created.metadata.uid and created.metadata.resource_version
    listed = core.list_namespaced_config_map("default", label_selector="app=py")
    assert [cm.metadata.name for cm in listed.items] == ["py"]
    assert listed.metadata.resource_version
    patched = core.patch_namespaced_config_map("py", "default", {"data": {"b": "2"}})
    assert patched.data == {"a": "1", "b": "2"}
    core.delete_namespaced_config_map("py", "default")
    with pytest.raises(ApiException) as missing:
        core.read_namespaced_config_map("py", "default")
    assert missing.value.status == 404


def test_watch_from_a_resource_version(core: client.CoreV1Api) -> None:
    start = core.list_namespaced_config_map("default").metadata.resource_version
    seen: list[tuple[str, str]] = []

    def consume() -> None:
        stream = watch.Watch().stream(
            core.list_namespaced_config_map, "default", resource_version=start, timeout_seconds=5
        )
        for event in stream:
            seen.append((event["type"], event["object"].metadata.name))
            if len(seen) == 3:
                break

    thread = threading.Thread(target=consume)
    thread.start()
    core.create_namespaced_config_map("default", client.V1ConfigMap(metadata=client.V1ObjectMeta(name="w1")))
    core.patch_namespaced_config_map("w1", "default", {"data": {"x": "y"}})
    core.delete_namespaced_config_map("w1", "default")
    thread.join(timeout=10)
    assert seen == [("ADDED", "w1"), ("MODIFIED", "w1"), ("DELETED", "w1")]


def test_namespaces_and_the_kubernetes_service(core: client.CoreV1Api, cluster: Cluster) -> None:
    names = {ns.metadata.name for ns in core.list_namespace().items}
    assert {"default", "kube-system", "kube-public", "kube-node-lease"} <= names
    svc = core.read_namespaced_service("kubernetes", "default")
    assert cluster.network is not None  # the first address of the cluster's service range
    assert svc.spec.cluster_ip == cluster.network.kubernetes_ip and svc.spec.ports[0].port == 443


def test_micro_time_without_its_fraction_is_refused(events: client.EventsV1Api) -> None:
    pod = client.V1ObjectReference(kind="Pod", namespace="default", name="web", uid="p-1")
    event = client.EventsV1Event(
        metadata=client.V1ObjectMeta(name="ev-whole-second"),
        event_time=datetime(2024, 5, 1, 12, 0, tzinfo=UTC),
        reporting_controller="c",
        reporting_instance="c-1",
        action="Binding",
        reason="Scheduled",
        regarding=pod,
        type="Normal",
    )
    with pytest.raises(ApiException) as refused:
        events.create_namespaced_event("default", event)
    assert refused.value.status == 400
    assert 'cannot parse \\"+00:00\\" as \\".000000\\"' in str(refused.value.body)


def test_events_through_both_versions(core: client.CoreV1Api, events: client.EventsV1Api) -> None:
    """The official client's two Event types over one storage: each reads what the other wrote."""
    pod = client.V1ObjectReference(kind="Pod", namespace="default", name="web", uid="p-1")
    # A MicroTime needs its six fraction digits (upstream's layout), which this client's
    # isoformat() leaves out when the microseconds are 0: such an Event is a 400 upstream too.
    now = datetime(2024, 5, 1, 12, 0, 0, 250000, tzinfo=UTC)
    new = client.EventsV1Event(
        metadata=client.V1ObjectMeta(name="ev-new"),
        event_time=now,
        reporting_controller="default-scheduler",
        reporting_instance="default-scheduler-cp",
        action="Binding",
        reason="Scheduled",
        regarding=pod,
        note="assigned",
        type="Normal",
    )
    events.create_namespaced_event("default", new)
    read = core.read_namespaced_event("ev-new", "default")
    assert (read.message, read.involved_object.name, read.reporting_component) == (
        "assigned",
        "web",
        "default-scheduler",
    )
    old = client.CoreV1Event(
        metadata=client.V1ObjectMeta(name="ev-old"),
        event_time=now,  # events.k8s.io's client insists on it
        involved_object=pod,
        reason="Pulled",
        message="present",
        source=client.V1EventSource(component="kubelet", host="n1"),
        count=3,
        type="Normal",
    )
    core.create_namespaced_event("default", old)
    other = events.read_namespaced_event("ev-old", "default")
    assert (other.note, other.regarding.name, other.deprecated_source.component, other.deprecated_count) == (
        "present",
        "web",
        "kubelet",
        3,
    )
    listed = events.list_namespaced_event("default", field_selector="regarding.name=web")
    assert sorted(e.metadata.name for e in listed.items) == ["ev-new", "ev-old"]
    events.delete_namespaced_event("ev-new", "default")
    core.delete_namespaced_event("ev-old", "default")
