"""Backends from EndpointSlices and service ports from Services: conditions, the
terminating fallback, Local policies, loopback only, headless and ExternalName Services."""

from __future__ import annotations

import logging
from typing import Any

import pytest

from nodeagent.proxy.endpoints import Backend, EndpointsIndex, usable
from nodeagent.proxy.servicemap import DEFAULT_AFFINITY_TIMEOUT, ServiceMap


def endpoint(ip: str, node: str = "node-1", **conditions: bool) -> dict[str, Any]:
    return {"addresses": [ip], "nodeName": node, "conditions": conditions}


def slice_of(
    service: str, *endpoints: dict[str, Any], port: int = 8080, name: str = "http"
) -> dict[str, Any]:
    return {
        "metadata": {
            "namespace": "default",
            "name": f"{service}-x",
            "labels": {"kubernetes.io/service-name": service},
        },
        "addressType": "IPv4",
        "ports": [{"name": name, "port": port, "protocol": "TCP"}],
        "endpoints": list(endpoints),
    }


def test_backends_are_grouped_by_service_port_and_null_ready_counts_as_ready() -> None:
    index = EndpointsIndex().build(
        [slice_of("web", endpoint("127.1.0.2", ready=True), {"addresses": ["127.1.0.3"]}), slice_of("other")]
    )
    backends = index[("default", "web", "http", "TCP")]
    assert [b.address for b in backends] == ["127.1.0.2:8080", "127.1.0.3:8080"]
    assert all(b.ready and b.serving for b in backends)
    assert index[("default", "other", "http", "TCP")] == ()


def test_a_slice_without_the_service_name_label_is_ignored() -> None:
    unlabelled = slice_of("web", endpoint("127.1.0.2"))
    unlabelled["metadata"]["labels"] = {}
    assert EndpointsIndex().build([unlabelled]) == {}


def test_non_loopback_endpoints_are_ignored_and_logged_once(caplog: pytest.LogCaptureFixture) -> None:
    index = EndpointsIndex()
    slices = [slice_of("web", endpoint("10.0.0.5"), endpoint("127.1.0.2"))]
    with caplog.at_level(logging.WARNING, "proxy"):
        index.build(slices)
        built = index.build(slices)
    assert [b.ip for b in built[("default", "web", "http", "TCP")]] == ["127.1.0.2"]
    assert [r.getMessage() for r in caplog.records if "10.0.0.5" in r.getMessage()] == [
        "proxy: ignoring endpoint 10.0.0.5: not a loopback address (nothing is sent off this machine)"
    ]


READY = Backend("127.1.0.2", 80, "node-1")
UNREADY = Backend("127.1.0.3", 80, "node-1", ready=False, serving=False)
TERMINATING = Backend("127.1.0.4", 80, "node-2", ready=False, serving=True, terminating=True)
OTHER_NODE = Backend("127.2.0.2", 80, "node-2")


def test_only_ready_endpoints_are_used_while_any_is_ready() -> None:
    assert usable([READY, UNREADY, TERMINATING], None) == (READY,)


def test_serving_terminating_endpoints_are_the_fallback_when_none_is_ready() -> None:
    assert usable([UNREADY, TERMINATING], None) == (TERMINATING,)
    assert usable([UNREADY], None) == ()


def test_local_policy_keeps_the_proxys_nodes_only_and_never_falls_back_to_others() -> None:
    assert usable([READY, OTHER_NODE], frozenset({"node-2"})) == (OTHER_NODE,)
    assert usable([OTHER_NODE], frozenset({"node-1"})) == ()


def service(**spec: Any) -> dict[str, Any]:
    base = {"clusterIP": "127.96.0.20", "ports": [{"name": "http", "port": 80, "nodePort": 30080}]}
    return {"metadata": {"namespace": "default", "name": "web"}, "spec": {**base, **spec}}


def test_service_ports_carry_type_policies_and_affinity() -> None:
    (port,) = ServiceMap().build(
        [
            service(
                type="LoadBalancer",
                sessionAffinity="ClientIP",
                internalTrafficPolicy="Local",
                externalTrafficPolicy="Cluster",
            )
        ]
    )
    assert port.name == "default/web:http"
    assert (port.cluster_ips, port.port, port.node_port, port.protocol) == (
        ("127.96.0.20",),
        80,
        30080,
        "TCP",
    )
    assert port.load_balancer and port.internal_local and not port.external_local
    assert port.affinity_timeout == DEFAULT_AFFINITY_TIMEOUT


def test_a_cluster_ip_service_has_no_node_port_and_affinity_takes_its_timeout() -> None:
    (port,) = ServiceMap().build(
        [service(sessionAffinity="ClientIP", sessionAffinityConfig={"clientIP": {"timeoutSeconds": 5}})]
    )
    assert port.node_port == 0 and port.affinity_timeout == 5


@pytest.mark.parametrize(
    "spec",
    [
        {"clusterIP": "None"},
        {"type": "ExternalName", "externalName": "x.example"},
        {"clusterIP": "10.96.0.5"},
    ],
)
def test_headless_external_name_and_non_loopback_services_are_not_served(spec: dict[str, Any]) -> None:
    assert ServiceMap().build([service(**spec)]) == []
