"""``KubeDNSService.reconcile`` against the fake client: created when missing, the ClusterIP
derived from the kubernetes Service, a Service with another ClusterIP left as it is, a
refusal reported once per message (not raised), and an unchanged pair not written again."""

from __future__ import annotations

import logging

import pytest

from minikube_py.api.errors import ApiError
from minikube_py.client.resourcetypes import SERVICES
from minikube_py.clock import FakeClock
from minikube_py.testing.fakeclient import FakeClient
from nodeagent.dns.kubedns import ENDPOINTS, KubeDNSService, Listening, desired_service

WHERE = Listening("127.0.0.1", 40053, 40153)


def cluster(kubernetes_ip: str = "127.96.0.1") -> FakeClient:
    client = FakeClient()
    client.seed(
        SERVICES,
        {"metadata": {"name": "kubernetes", "namespace": "default"}, "spec": {"clusterIP": kubernetes_ip}},
    )
    return client


async def test_created_with_the_tenth_address_and_the_real_ports() -> None:
    client = cluster()
    assert await KubeDNSService(client, WHERE, clock=FakeClock()).reconcile()
    svc = client.stored(SERVICES, "kube-system", "kube-dns")
    endpoints = client.stored(ENDPOINTS, "kube-system", "kube-dns")
    assert svc is not None and endpoints is not None
    assert svc["spec"]["clusterIP"] == "127.96.0.10"
    assert [(p["name"], p["port"]) for p in endpoints["subsets"][0]["ports"]] == [
        ("dns", 40053), ("dns-tcp", 40053), ("metrics", 40153),
    ]  # fmt: skip
    client.clear_actions()
    assert await KubeDNSService(client, WHERE, clock=FakeClock()).reconcile()
    assert client.filter_actions("update") == [] and client.filter_actions("create") == []


async def test_an_existing_service_with_another_cluster_ip_is_left_and_logged(
    caplog: pytest.LogCaptureFixture,
) -> None:
    client = cluster()
    client.seed(
        SERVICES,
        {**desired_service("127.96.0.99"), "metadata": {"name": "kube-dns", "namespace": "kube-system"}},
    )
    with caplog.at_level(logging.WARNING, "dns"):
        assert not await KubeDNSService(client, WHERE, clock=FakeClock()).reconcile()
    stored = client.stored(SERVICES, "kube-system", "kube-dns")
    assert stored is not None and stored["spec"]["clusterIP"] == "127.96.0.99"
    assert stored["metadata"]["labels"]["k8s-app"] == "kube-dns"  # its labels were put right
    assert "has clusterIP 127.96.0.99, not 127.96.0.10" in caplog.text


async def test_a_refusal_is_reported_once_and_retried(caplog: pytest.LogCaptureFixture) -> None:
    client = cluster()
    refusal = ApiError(
        422, "Invalid", 'Endpoints "kube-dns" is invalid: subsets[0].addresses[0].ip: loopback'
    )
    client.fail("create", "endpoints", refusal, times=2)
    reconciler = KubeDNSService(client, WHERE, clock=FakeClock())
    with caplog.at_level(logging.WARNING, "dns"):
        assert not await reconciler.reconcile()
        assert not await reconciler.reconcile()
    assert caplog.text.count("is invalid") == 1
    assert await reconciler.reconcile()  # the next pass, once accepted
    assert client.stored(ENDPOINTS, "kube-system", "kube-dns") is not None


async def test_a_kubernetes_service_without_cluster_ip_is_reported_not_raised() -> None:
    client = FakeClient()
    client.seed(SERVICES, {"metadata": {"name": "kubernetes", "namespace": "default"}, "spec": {}})
    assert not await KubeDNSService(client, WHERE, clock=FakeClock()).reconcile()
    explicit = KubeDNSService(client, WHERE, cluster_ip="127.96.0.10", clock=FakeClock())
    assert await explicit.reconcile()
