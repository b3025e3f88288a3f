"""Cluster IPs and node ports as upstream's allocators hand them out: the static band of
KEP-3070, upstream's refusals, and values held per service."""

from __future__ import annotations

import random
from typing import Any

import pytest

from apiserver.registry.resources.service import ServiceStrategy
from apiserver.registry.resources.serviceallocator import (
    AllocationError,
    ClusterIPAllocator,
    NodePortAllocator,
    static_band,
)
from minikube_py.api.errors import ApiError
from tests.registry.helpers import meta, prepared_for_create, prepared_for_update


@pytest.mark.parametrize(
    ("size", "minimum", "step", "maximum", "band"),
    [
        (2**20, 16, 16, 256, 256),  # a /12: 256 static addresses (127.96.0.1-127.96.1.0)
        (256, 16, 16, 256, 16),  # a /24: .1-.16
        (16, 16, 16, 256, 0),  # a /28: no static band
        (2768, 16, 32, 128, 86),  # 30000-32767
        (100, 16, 32, 128, 16),
    ],
)
def test_static_band_is_upstreams_calculate_range_offset(
    size: int, minimum: int, step: int, maximum: int, band: int
) -> None:
    assert static_band(size, minimum, step, maximum) == band


def test_dynamic_allocation_prefers_the_upper_band_then_fills_the_static_one() -> None:
    allocator = ClusterIPAllocator("127.77.0.0/24", used=lambda: [], rng=random.Random(5))
    first = {allocator.allocate(f"ns/s{i}") for i in range(238)}
    assert first == {f"127.77.0.{n}" for n in range(17, 255)}  # the dynamic band: .17-.254
    rest = {allocator.allocate(f"ns/t{i}") for i in range(15)}
    assert rest == {f"127.77.0.{n}" for n in range(2, 17)}  # the static band, .1 never
    assert allocator.allocate("ns/full") is None


def test_the_dns_address_stays_free_for_the_client_that_asks_for_it() -> None:
    allocator = ClusterIPAllocator("127.96.0.0/12", used=lambda: [], rng=random.Random(1))
    handed_out = {allocator.allocate(f"ns/s{i}") for i in range(500)}
    assert "127.96.0.10" not in handed_out and "127.96.0.1" not in handed_out
    allocator.claim("127.96.0.10", "kube-system/kube-dns")


@pytest.mark.parametrize(
    ("ip", "message"),
    [
        ("127.95.255.254", "the provided IP (127.95.255.254) is not in the valid range. "),
        ("127.96.0.0", "the provided IP (127.96.0.0) is not in the valid range. "),  # the network
        ("127.111.255.255", "the provided IP (127.111.255.255) is not in the valid range. "),
        ("10.96.0.10", "the provided IP (10.96.0.10) is not in the valid range. "),
    ],
)
def test_an_ip_outside_the_range_is_refused(ip: str, message: str) -> None:
    with pytest.raises(AllocationError) as caught:
        ClusterIPAllocator().claim(ip, "ns/a")
    assert str(caught.value) == message + "The range of valid IPs is 127.96.0.0/12"


def test_values_are_held_per_service() -> None:
    stored = [("127.96.0.20", "ns/a")]
    allocator = ClusterIPAllocator(used=lambda: stored)
    allocator.claim("127.96.0.20", "ns/a")  # its own: no conflict (an update, a retried create)
    with pytest.raises(AllocationError, match=r"^provided IP is already allocated$"):
        allocator.claim("127.96.0.20", "ns/b")
    allocator.claim("127.96.0.21", "ns/c")  # held for ns/c until the store shows it
    with pytest.raises(AllocationError):
        allocator.claim("127.96.0.21", "ns/d")
    stored.clear()  # ns/a deleted: its address is free again at once
    allocator.claim("127.96.0.20", "ns/b")


def test_a_deleted_service_frees_its_node_port_at_once() -> None:
    stored = [(30080, "ns/a")]
    ports = NodePortAllocator(used=lambda: stored)
    ports.claim(30080, "ns/a")
    stored.clear()
    ports.claim(30080, "ns/b")


@pytest.mark.parametrize(
    ("port", "message"),
    [
        (29999, "provided port is not in the valid range. The range of valid ports is 30000-32767"),
        (32768, "provided port is not in the valid range. The range of valid ports is 30000-32767"),
    ],
)
def test_a_node_port_outside_the_range_is_refused(port: int, message: str) -> None:
    with pytest.raises(AllocationError) as caught:
        NodePortAllocator().claim(port, "ns/a")
    assert str(caught.value) == message


def service(name: str, **spec: Any) -> dict[str, Any]:
    return {"metadata": meta(name), "spec": {"selector": {"app": name}, **spec}}


def invalid(obj: dict[str, Any], svc: ServiceStrategy) -> tuple[int, str]:
    with pytest.raises(ApiError) as caught:
        prepared_for_create(svc, obj)
    return caught.value.code, caught.value.message


def test_a_taken_node_port_is_upstreams_422() -> None:
    svc = ServiceStrategy()
    prepared_for_create(svc, service("a", type="NodePort", ports=[{"port": 80, "nodePort": 30080}]))
    taken = service("b", type="NodePort", ports=[{"port": 80, "nodePort": 30080}])
    assert invalid(taken, svc) == (
        422,
        'Service "b" is invalid: spec.ports[0].nodePort: Invalid value: 30080: '
        "provided port is already allocated",
    )


def test_a_taken_cluster_ip_is_upstreams_422() -> None:
    svc = ServiceStrategy()
    prepared_for_create(svc, service("a", clusterIP="127.96.0.10", ports=[{"port": 53}]))
    assert invalid(service("b", clusterIP="127.96.0.10", ports=[{"port": 53}]), svc) == (
        422,
        'Service "b" is invalid: spec.clusterIPs: Invalid value: ["127.96.0.10"]: '
        "failed to allocate IP 127.96.0.10: provided IP is already allocated",
    )


def test_ports_of_one_number_share_a_node_port_and_two_numbers_may_not() -> None:
    svc = ServiceStrategy()
    dns = service("dns", type="NodePort", ports=[{"name": "u", "port": 53, "protocol": "UDP"}])
    dns["spec"]["ports"].append({"name": "t", "port": 53, "protocol": "TCP", "nodePort": 30053})
    prepared_for_create(svc, dns)
    assert [p["nodePort"] for p in dns["spec"]["ports"]] == [30053, 30053]
    twice = service("x", type="NodePort", ports=[{"name": "a", "port": 80, "nodePort": 30081}])
    twice["spec"]["ports"].append({"name": "b", "port": 81, "nodePort": 30081})
    assert invalid(twice, svc)[1].endswith(
        "spec.ports[1].nodePort: Invalid value: 30081: provided port is already allocated"
    )


def test_an_update_keeps_its_own_node_ports_and_releases_dropped_ones() -> None:
    svc = ServiceStrategy()
    old = service("a", type="NodePort", ports=[{"name": "h", "port": 80, "nodePort": 30090}])
    prepared_for_create(svc, old)
    same = service("a", type="NodePort", ports=[{"name": "h", "port": 80, "nodePort": 30090}])
    prepared_for_update(svc, same, old)  # no "already allocated" for the service's own port
    moved = service("a", type="NodePort", ports=[{"name": "h", "port": 80, "nodePort": 30091}])
    prepared_for_update(svc, moved, old)
    prepared_for_create(svc, service("b", type="NodePort", ports=[{"port": 80, "nodePort": 30090}]))
