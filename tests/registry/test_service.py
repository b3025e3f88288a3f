"""ServiceStrategy and its allocators: defaults, cluster IPs and node ports, validation, the row."""

from __future__ import annotations

import copy
import ipaddress
import random
from typing import Any

import pytest

from apiserver.registry.resources.service import ServiceStrategy
from apiserver.registry.resources.serviceallocator import (
    ClusterIPAllocator,
    RangeAllocator,
    node_port_allocator,
)
from minikube_py.api.errors import ApiError
from tests.registry.helpers import NOW, causes, meta, prepared_for_create, prepared_for_update


def strategy(seed: int = 1, used_ips: set[str] | None = None) -> ServiceStrategy:
    ips = ClusterIPAllocator(
        used=(lambda: [(ip, "other/svc") for ip in used_ips]) if used_ips is not None else None,
        rng=random.Random(seed),
    )
    return ServiceStrategy(ips, node_port_allocator(rng=random.Random(seed)))


def service(**spec: Any) -> dict[str, Any]:
    return {"metadata": meta("web"), "spec": {"ports": [{"port": 80}], "selector": {"app": "web"}, **spec}}


def created(obj: dict[str, Any], svc: ServiceStrategy | None = None) -> dict[str, Any]:
    prepared_for_create(svc or strategy(), obj)
    return obj


def test_cluster_ip_defaults() -> None:
    obj = service(ports=[{"port": 80, "targetPort": "http"}, {"port": 53, "protocol": "UDP"}])
    obj["status"] = {"loadBalancer": {"ingress": [{"ip": "1.1.1.1"}]}}
    spec = created(obj)["spec"]
    ip = spec["clusterIP"]
    assert ipaddress.IPv4Address(ip) in ipaddress.IPv4Network("127.96.0.0/12")
    assert ipaddress.IPv4Address(ip) > ipaddress.IPv4Address("127.96.1.0")  # the dynamic band first
    assert spec == {
        "ports": [
            {"port": 80, "targetPort": "http", "protocol": "TCP"},
            {"port": 53, "protocol": "UDP", "targetPort": 53},
        ],
        "selector": {"app": "web"},
        "type": "ClusterIP",
        "sessionAffinity": "None",
        "internalTrafficPolicy": "Cluster",
        "ipFamilyPolicy": "SingleStack",
        "ipFamilies": ["IPv4"],
        "clusterIP": ip,
        "clusterIPs": [ip],
    }
    assert obj["status"] == {"loadBalancer": {}}


def test_node_port_and_load_balancer_defaults() -> None:
    spec = created(service(type="LoadBalancer"))["spec"]
    assert spec["externalTrafficPolicy"] == "Cluster"
    assert spec["allocateLoadBalancerNodePorts"] is True
    assert 30086 <= spec["ports"][0]["nodePort"] <= 32767  # above the static band (2768/32 ports)


def test_chosen_values_are_kept_and_claimed() -> None:
    svc = strategy()
    spec = created(
        service(type="NodePort", clusterIP="127.96.0.10", ports=[{"port": 80, "nodePort": 30080}]), svc
    )["spec"]
    assert (spec["clusterIP"], spec["clusterIPs"], spec["ports"][0]["nodePort"]) == (
        "127.96.0.10",
        ["127.96.0.10"],
        30080,
    )
    assert int(ipaddress.IPv4Address("127.96.0.10")) in svc.cluster_ips._range.taken()
    assert 30080 in svc.node_ports.taken()


def test_headless_and_external_name() -> None:
    headless = created(service(clusterIP="None"))["spec"]
    assert (headless["clusterIPs"], headless["ipFamilyPolicy"]) == (["None"], "SingleStack")
    selectorless = service(clusterIP="None")
    del selectorless["spec"]["selector"]
    assert created(selectorless)["spec"]["ipFamilyPolicy"] == "RequireDualStack"
    external = created(service(type="ExternalName", externalName="example.com", ports=[]))["spec"]
    assert "clusterIP" not in external and "ipFamilies" not in external
    assert "internalTrafficPolicy" not in external


def test_allocations_are_unique_and_skip_used_and_reserved() -> None:
    used = [("127.9.0.2", "a/x"), ("127.9.0.3", "a/y")]
    allocator = ClusterIPAllocator("127.9.0.0/28", used=lambda: used, rng=random.Random(3))
    got = {allocator.allocate() for _ in range(11)}
    assert got == {f"127.9.0.{n}" for n in range(4, 15)}  # .0 network, .1 reserved, .15 broadcast
    assert allocator.allocate() is None


def test_handed_out_values_come_back_after_the_hold_when_used_is_known() -> None:
    clock = [0.0]
    ports = RangeAllocator(1, 2, 1, used=lambda: [], hold_seconds=60, clock=lambda: clock[0])
    assert {ports.allocate(), ports.allocate()} == {1, 2}
    assert ports.allocate() is None
    clock[0] = 61.0  # neither service showed up in ``used``: both values are free again
    assert ports.allocate() is not None


def test_without_used_nothing_is_ever_freed() -> None:
    clock = [0.0]
    ports = RangeAllocator(1, 1, 1, hold_seconds=60, clock=lambda: clock[0])
    assert ports.allocate() == 1
    clock[0] = 1e9
    assert ports.allocate() is None


def test_full_range_is_an_internal_error() -> None:
    svc = ServiceStrategy(ClusterIPAllocator("127.9.0.0/30"), node_port_allocator())
    created(service(), svc)  # takes 127.9.0.2, the only address besides the reserved .1
    with pytest.raises(ApiError) as caught:
        created(service(), svc)
    assert caught.value.code == 500
    assert caught.value.message == "Internal error occurred: failed to allocate a serviceIP: range is full"


def test_update_keeps_allocated_values() -> None:
    svc = strategy()
    old = created(service(type="NodePort", ports=[{"name": "http", "port": 80}]), svc)
    new = service(type="NodePort", ports=[{"name": "http", "port": 80}])
    prepared_for_update(svc, new, old)
    assert new["spec"]["clusterIP"] == old["spec"]["clusterIP"]
    assert new["spec"]["ports"][0]["nodePort"] == old["spec"]["ports"][0]["nodePort"]
    assert new["status"] == {"loadBalancer": {}}
    assert svc.validate_update(new, old) == []


def test_cluster_ip_may_not_change() -> None:
    svc = strategy()
    old = created(service(), svc)
    new = copy.deepcopy(old)
    new["spec"]["clusterIP"], new["spec"]["clusterIPs"] = "127.96.0.99", ["127.96.0.99"]
    assert causes(svc.validate_update(new, old)) == [
        ("FieldValueInvalid", "spec.clusterIPs[0]", 'Invalid value: "127.96.0.99": may not change once set')
    ]


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        ({}, []),
        ({"ports": []}, [("FieldValueRequired", "spec.ports", "Required value")]),
        (
            {"type": "Magic"},
            [
                (
                    "FieldValueNotSupported",
                    "spec.type",
                    'Unsupported value: "Magic": supported values: "ClusterIP", "ExternalName", '
                    '"LoadBalancer", "NodePort"',
                )
            ],
        ),
        (
            {"ports": [{"port": 0}]},
            [
                (
                    "FieldValueInvalid",
                    "spec.ports[0].port",
                    "Invalid value: 0: must be between 1 and 65535, inclusive",
                )
            ],
        ),
        (
            {"ports": [{"port": 80}, {"name": "b", "port": 81}]},
            [("FieldValueRequired", "spec.ports[0].name", "Required value")],
        ),
        (
            {"ports": [{"name": "a", "port": 80}, {"name": "a", "port": 81}]},
            [("FieldValueDuplicate", "spec.ports[1].name", 'Duplicate value: "a"')],
        ),
        (
            {"type": "ExternalName", "ports": []},
            [("FieldValueRequired", "spec.externalName", "Required value")],
        ),
    ],
)
def test_validation(spec: dict[str, Any], expected: list[tuple[str, str, str]]) -> None:
    svc = strategy()
    assert causes(svc.validate(created(service(**spec), svc))) == expected


def test_selectable_fields() -> None:
    obj = created(service(clusterIP="127.96.0.10"))
    assert strategy().selectable_fields(obj) == {
        "metadata.name": "web",
        "metadata.namespace": "default",
        "spec.clusterIP": "127.96.0.10",
        "spec.type": "ClusterIP",
    }


@pytest.mark.parametrize(
    ("spec", "status", "cells"),
    [
        (
            {"clusterIP": "127.96.0.1", "ports": [{"name": "https", "port": 443, "targetPort": 6443}]},
            {},
            ["ClusterIP", "127.96.0.1", "<none>", "443/TCP"],
        ),
        (
            {"type": "NodePort", "clusterIP": "127.96.0.20", "ports": [{"port": 80, "nodePort": 30080}]},
            {},
            ["NodePort", "127.96.0.20", "<none>", "80:30080/TCP"],
        ),
        (
            {"type": "LoadBalancer", "clusterIP": "127.96.0.21", "ports": [{"port": 80, "nodePort": 30081}]},
            {},
            ["LoadBalancer", "127.96.0.21", "<pending>", "80:30081/TCP"],
        ),
        (
            {
                "type": "LoadBalancer",
                "clusterIP": "127.96.0.22",
                "externalIPs": ["5.5.5.5"],
                "ports": [{"port": 80, "nodePort": 30128}],
            },
            {"loadBalancer": {"ingress": [{"ip": "9.9.9.9"}, {"hostname": "lb.example"}]}},
            ["LoadBalancer", "127.96.0.22", "9.9.9.9,lb.example,5.5.5.5", "80:30128/TCP"],
        ),
        (
            {
                "clusterIP": "127.96.0.23",
                "externalIPs": ["1.2.3.4", "1.2.3.5"],
                "ports": [{"port": 53, "protocol": "UDP"}],
            },
            {},
            ["ClusterIP", "127.96.0.23", "1.2.3.4,1.2.3.5", "53/UDP"],
        ),
        (
            {"type": "ExternalName", "externalName": "example.com", "ports": []},
            {},
            ["ExternalName", "<none>", "example.com", "<none>"],
        ),
        ({"clusterIP": "None"}, {}, ["ClusterIP", "None", "<none>", "80/TCP"]),
    ],
)
def test_row(spec: dict[str, Any], status: dict[str, Any], cells: list[str]) -> None:
    svc = ServiceStrategy()
    obj = created(service(**spec), svc)
    obj["status"] = status or obj["status"]
    row = svc.table_cells(obj, NOW)
    assert row[0] == "web" and row[5] == "60m"
    assert row[1:5] == cells
    assert row[6] == "app=web"
    assert len(row) == len(svc.table_columns())


def test_row_without_selector() -> None:
    obj = service(clusterIP="127.96.0.30")
    del obj["spec"]["selector"]
    assert strategy().table_cells(created(obj), NOW)[-1] == "<none>"


def test_load_balancer_without_node_ports() -> None:
    spec = created(service(type="LoadBalancer", allocateLoadBalancerNodePorts=False))["spec"]
    assert "nodePort" not in spec["ports"][0]


def test_changing_to_node_port_allocates_one_and_keeps_the_ip() -> None:
    svc = strategy()
    old = created(service(), svc)
    new = service(type="NodePort")
    prepared_for_update(svc, new, old)
    assert new["spec"]["clusterIP"] == old["spec"]["clusterIP"]
    assert 30000 <= new["spec"]["ports"][0]["nodePort"] <= 32767
    assert new["spec"]["externalTrafficPolicy"] == "Cluster"
