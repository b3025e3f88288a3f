"""The proxier's syncs on a fake API, fake sockets and a fake clock: which frontends it
listens on, backend swaps, NodePorts and traffic policies, LoadBalancer status, bind
failures, metrics."""

from __future__ import annotations

import logging

import pytest

from minikube_py.api.errors import ApiError
from minikube_py.client.resourcetypes import SERVICES
from minikube_py.clock import FakeClock
from nodeagent.proxy.proxier import ProxyConfig
from tests.nodeagent.proxy.fakes import FakeNetwork, settle
from tests.nodeagent.proxy.harness import Harness, endpoint, endpoint_slice, node, running, service
from tests.waiting import eventually

IP = "127.96.0.20"
WEB = ("TCP", IP, 80)
NODES = (node("node-1", "127.0.0.1", "10.0.0.9"), node("node-2", "127.2.0.1"))


def harness(network: FakeNetwork | None = None, **config: object) -> Harness:
    options = {"min_sync_period": 0.0, **config}
    return Harness(network or FakeNetwork(), FakeClock(), ProxyConfig(**options))  # type: ignore[arg-type]


async def test_a_cluster_ip_is_served_only_while_it_has_ready_endpoints() -> None:
    h = harness()
    await h.apply(service("web", IP))
    async with running(h):
        await eventually(lambda: h.proxier.health.last_updated, "a first sync")
        assert h.frontends() == set()  # no endpoints: refused by the kernel, at once
        await h.apply(endpoint_slice("web", endpoint("127.1.0.2"), endpoint("127.1.0.3", ready=False)))
        await eventually(lambda: h.frontends() == {WEB}, "the ClusterIP listener")
        route = h.proxier.listeners.open[WEB].ref.route
        assert [b.address for b in route.backends] == ["127.1.0.2:8080"] and route.name == "default/web:http"
        await h.apply(endpoint_slice("web", endpoint("127.1.0.2", ready=False)))
        await eventually(lambda: h.frontends() == set(), "the listener closed")


async def test_a_backend_swap_keeps_established_connections() -> None:
    network = FakeNetwork()
    h = harness(network)
    await h.apply(service("web", IP), endpoint_slice("web", endpoint("127.1.0.2")))
    async with running(h):
        await eventually(lambda: h.frontends() == {WEB}, "the listener")
        old = network.accept(IP, 80)
        await settle()
        await h.apply(endpoint_slice("web", endpoint("127.1.0.3")))
        await eventually(
            lambda: h.proxier.listeners.open[WEB].ref.route.backends[0].ip == "127.1.0.3", "the swap"
        )
        network.accept(IP, 80)
        await settle()
        assert [d.host for d in network.dials] == ["127.1.0.2", "127.1.0.3"]
        assert not old.closed and not network.dials[0].transport.closed


async def test_udp_ports_and_headless_services() -> None:
    h = harness()
    dns = {"name": "dns", "port": 53, "protocol": "UDP"}
    await h.apply(
        service("dns", "127.96.0.10", dns),
        endpoint_slice("dns", endpoint("127.0.0.1"), port=5353, name="dns", protocol="UDP"),
        service("headless", "None"),
        endpoint_slice("headless", endpoint("127.1.0.9")),
    )
    async with running(h):
        await eventually(lambda: h.frontends() == {("UDP", "127.96.0.10", 53)}, "the UDP listener only")


async def test_node_ports_listen_on_the_loopback_internal_ips_of_the_proxys_nodes() -> None:
    h = harness(node_names=frozenset({"node-1", "node-2"}))
    ports = {"name": "http", "port": 80, "nodePort": 30080, "protocol": "TCP"}
    await h.apply(
        *NODES, service("web", IP, ports, type="NodePort"), endpoint_slice("web", endpoint("127.1.0.2"))
    )
    async with running(h):
        expected = {WEB, ("TCP", "127.0.0.1", 30080), ("TCP", "127.2.0.1", 30080)}
        await eventually(lambda: h.frontends() == expected, "ClusterIP and both nodes' NodePorts")


async def test_local_policies_keep_the_proxys_own_nodes_endpoints() -> None:
    h = harness(node_names=frozenset({"node-1"}))
    ports = {"name": "http", "port": 80, "nodePort": 30080, "protocol": "TCP"}
    await h.apply(
        *NODES,
        service("web", IP, ports, type="NodePort", externalTrafficPolicy="Local"),
        endpoint_slice("web", endpoint("127.2.0.5", node="node-2")),
    )
    async with running(h):
        # the ClusterIP (internal policy Cluster) reaches node-2's pod; node-1's NodePort has no
        # local endpoint, so it is not served; node-2's address is another proxy's
        await eventually(lambda: h.frontends() == {WEB}, "the ClusterIP only")
        await h.apply(
            endpoint_slice("web", endpoint("127.2.0.5", node="node-2"), endpoint("127.0.0.5", node="node-1"))
        )
        await eventually(lambda: ("TCP", "127.0.0.1", 30080) in h.frontends(), "the local NodePort")
        route = h.proxier.listeners.open[("TCP", "127.0.0.1", 30080)].ref.route
        assert [b.ip for b in route.backends] == ["127.0.0.5"]
        await h.apply(service("web", IP, ports, type="NodePort", internalTrafficPolicy="Local"))
        await eventually(
            lambda: [b.ip for b in h.proxier.listeners.open[WEB].ref.route.backends] == ["127.0.0.5"],
            "the internal Local policy",
        )


async def test_a_load_balancer_gets_its_cluster_ip_as_ingress_and_loses_it_as_cluster_ip() -> None:
    h = harness()
    await h.apply(
        service("web", IP, type="LoadBalancer"),
        service("other", "127.96.0.21", type="LoadBalancer", loadBalancerClass="example.com/lb"),
    )

    def ingress(name: str) -> object:
        stored = h.api.stored(SERVICES, "default", name) or {}
        return (stored.get("status") or {}).get("loadBalancer", {}).get("ingress")

    async with running(h):
        await eventually(lambda: ingress("web") == [{"ip": IP, "ipMode": "VIP"}], "the ingress")
        stored = h.api.stored(SERVICES, "default", "web") or {}
        await h.apply({**service("web", IP), "status": stored["status"]})
        await eventually(lambda: ingress("web") is None, "the ingress cleared")
        assert ingress("other") is None  # another implementation's class
        patches = [a for a in h.api.filter_actions("patch", "services")]
        assert [(a.name, a.subresource) for a in patches] == [("web", "status"), ("web", "status")]


async def test_an_address_in_use_is_logged_once_and_retried(caplog: pytest.LogCaptureFixture) -> None:
    network = FakeNetwork(in_use={(IP, 80)}, denied={("127.96.0.21", 80)})
    clock = FakeClock()
    h = Harness(network, clock, ProxyConfig(min_sync_period=0.0, bind_retry_period=5))
    await h.apply(
        service("web", IP),
        endpoint_slice("web", endpoint("127.1.0.2")),
        service("low", "127.96.0.21"),
        endpoint_slice("low", endpoint("127.1.0.2")),
    )
    with caplog.at_level(logging.ERROR, "proxy"):
        async with running(h):
            await eventually(lambda: ("TCP", IP, 80) in h.proxier.listeners.failed, "a failed bind")
            for _ in range(3):
                await clock.step(5)
                await settle()
            assert network.bind_attempts.count(WEB) == 4
            network.in_use.clear()
            await clock.step(5)
            await eventually(lambda: h.frontends() == {WEB}, "the retried bind")
    errors = [r.getMessage() for r in caplog.records if r.levelno == logging.ERROR]
    assert (
        errors.count(
            "proxy: another process (another cluster on this machine?) "
            "serves 127.96.0.20:80; retrying every 5s"
        )
        == 1
    )
    assert [e for e in errors if "127.96.0.21" in e] == [
        "proxy: cannot serve 127.96.0.21:80: ports below 1024 need root (or CAP_NET_BIND_SERVICE): "
        "Permission denied; retrying every 5s"
    ]


async def test_sync_metrics_count_changes_and_network_programming_latency() -> None:
    clock = FakeClock()
    h = Harness(FakeNetwork(), clock, ProxyConfig(min_sync_period=0.0))
    trigger = "2027-01-15T08:00:00Z"  # FakeClock starts at 1_800_000_000 = 2027-01-15T08:00:00Z
    await h.apply(service("web", IP), endpoint_slice("web", endpoint("127.1.0.2"), annotations={
        "endpoints.kubernetes.io/last-change-trigger-time": trigger}))  # fmt: skip
    async with running(h):
        await eventually(lambda: h.frontends() == {WEB}, "the listener")
        await clock.step(2)
        await h.apply(endpoint_slice("web", endpoint("127.1.0.3"), annotations={
            "endpoints.kubernetes.io/last-change-trigger-time": trigger}))  # fmt: skip
        await eventually(lambda: h.proxier.metrics.network_programming.count == 2, "two observations")
    text = h.proxier.metrics.registry.render()
    assert "kubeproxy_sync_proxy_rules_service_changes_total 1\n" in text
    assert "kubeproxy_sync_proxy_rules_endpoint_changes_total 2\n" in text
    assert "kubeproxy_sync_proxy_rules_duration_seconds_count" in text
    assert h.proxier.metrics.network_programming.total == pytest.approx(2.0)
    assert 'kubeproxy_network_programming_duration_seconds_bucket{le="+Inf"} 2' in text
    assert "kubeproxy_sync_proxy_rules_last_timestamp_seconds 18000000" in text
    assert 'minikube_py_proxy_listeners{protocol="TCP"} 1' in text


async def test_node_heartbeats_do_not_sync_and_an_address_change_does() -> None:
    h = harness(node_names=frozenset({"node-1"}))
    ports = {"name": "http", "port": 80, "nodePort": 30080, "protocol": "TCP"}
    await h.apply(node("node-1", "127.0.0.1"), node("node-9", "127.9.0.1"))
    await h.apply(service("web", IP, ports, type="NodePort"), endpoint_slice("web", endpoint("127.1.0.2")))
    async with running(h):
        await eventually(lambda: ("TCP", "127.0.0.1", 30080) in h.frontends(), "the NodePort")
        synced = h.proxier.metrics.sync_duration.count
        beat = node("node-1", "127.0.0.1")
        beat["status"]["conditions"] = [{"type": "Ready", "status": "True"}]
        await h.apply(beat, node("node-9", "127.9.0.2"))  # a heartbeat; another proxy's node

        def delivered() -> bool:
            cached = h.proxier._nodes.indexer.get_by_key("node-1") or {}
            other = h.proxier._nodes.indexer.get_by_key("node-9") or {}
            return bool(cached.get("status", {}).get("conditions")) and "127.9.0.2" in str(other)

        await eventually(delivered, "the heartbeat in the cache")
        await settle()  # its handler ran meanwhile
        assert h.proxier.metrics.sync_duration.count == synced
        assert h.proxier.health.oldest_pending is None  # nothing queued
        await h.apply(node("node-1", "127.1.0.1"))
        await eventually(lambda: ("TCP", "127.1.0.1", 30080) in h.frontends(), "the new address")
        assert ("TCP", "127.0.0.1", 30080) not in h.frontends()


async def test_udp_flows_to_a_removed_endpoint_are_closed_at_the_sync() -> None:
    network = FakeNetwork()
    h = harness(network)
    dns = {"name": "dns", "port": 53, "protocol": "UDP"}
    key = ("UDP", "127.96.0.10", 53)
    slice_a = endpoint_slice("dns", endpoint("127.1.0.2"), port=5353, name="dns", protocol="UDP")
    await h.apply(service("dns", "127.96.0.10", dns), slice_a)
    async with running(h):
        await eventually(lambda: key in network.udp, "the UDP listener")
        frontend, _ = network.udp[key]
        frontend.datagram_received(b"q", ("127.0.0.5", 40000))
        await eventually(lambda: frontend.flows, "a flow")
        flow = next(iter(frontend.flows.values()))
        both = endpoint_slice(
            "dns", endpoint("127.1.0.2"), endpoint("127.1.0.3"), port=5353, name="dns", protocol="UDP"
        )
        await h.apply(both)
        await eventually(lambda: len(h.proxier.listeners.open[key].ref.route.backends) == 2, "two")
        assert not flow.closed  # its backend stays
        await h.apply(endpoint_slice("dns", endpoint("127.1.0.3"), port=5353, name="dns", protocol="UDP"))
        await eventually(lambda: flow.closed, "the stale flow closed")
        assert frontend.flows == {}


async def test_a_refused_status_write_is_logged_once_and_retried(caplog: pytest.LogCaptureFixture) -> None:
    clock = FakeClock()
    h = Harness(FakeNetwork(), clock, ProxyConfig(min_sync_period=0.0))
    h.api.fail("patch", "services", ApiError(403, "Forbidden", 'services "web" is forbidden'), times=3)
    await h.apply(service("web", IP, type="LoadBalancer"))
    with caplog.at_level(logging.WARNING, "proxy"):
        async with running(h):
            await eventually(lambda: h.api.filter_actions("patch", "services"), "a first attempt")
            for _ in range(3):
                await clock.step(1)

            def ingress() -> object:
                status = (h.api.stored(SERVICES, "default", "web") or {}).get("status", {})
                return status.get("loadBalancer", {}).get("ingress")

            await eventually(ingress, "the ingress")
    assert len(h.api.filter_actions("patch", "services")) == 4
    assert [r.getMessage() for r in caplog.records if "load balancer" in r.getMessage()] == [
        'proxy: cannot write the load balancer status of default/web: services "web" is forbidden'
    ]


async def test_an_empty_node_set_serves_no_node_ports_and_nothing_is_local() -> None:
    h = harness(node_names=frozenset())  # up with simulated nodes only
    ports = {"name": "http", "port": 80, "nodePort": 30080, "protocol": "TCP"}
    await h.apply(
        *NODES, service("web", IP, ports, type="NodePort"), endpoint_slice("web", endpoint("127.1.0.2"))
    )
    await h.apply(service("local", "127.96.0.21", internalTrafficPolicy="Local"))
    await h.apply(endpoint_slice("local", endpoint("127.1.0.3")))
    async with running(h):

        def synced_all() -> bool:  # both slices seen and no change waiting for a sync
            changes = h.proxier.metrics.endpoint_changes.values.get((), 0)
            return changes == 2 and h.proxier.health.oldest_pending is None

        await eventually(synced_all, "a sync of everything")
        assert h.frontends() == {WEB}


async def test_an_endpoint_change_is_timed_until_the_sync_that_applies_it() -> None:
    """``minikube_py_proxy_endpoint_change_to_programmed_seconds``: from the first EndpointSlice
    event a sync has not applied yet to the end of the sync that does (what a client waits for
    the proxy, after the slice; the sync waits out ``min_sync_period`` since the last one)."""
    clock = FakeClock()
    h = Harness(FakeNetwork(), clock, ProxyConfig(min_sync_period=0.5))
    await h.apply(service("web", IP), endpoint_slice("web", endpoint("127.1.0.2")))
    histogram = h.proxier.metrics.endpoints_programming
    async with running(h):
        await eventually(lambda: h.frontends() == {WEB}, "the listener")
        synced, total = histogram.count, histogram.total
        changes = h.proxier.metrics.registry.render().count("endpoint_changes_total 1\n")
        assert changes == 1  # the first slice's
        await h.apply(endpoint_slice("web", endpoint("127.1.0.2"), endpoint("127.1.0.3")))
        await eventually(
            lambda: "endpoint_changes_total 2\n" in h.proxier.metrics.registry.render(), "the event"
        )
        await clock.step(0.25)
        await clock.step(0.25)
        await eventually(lambda: histogram.count == synced + 1, "the change timed")
    assert histogram.total - total == pytest.approx(0.5)
    assert 'minikube_py_proxy_endpoint_change_to_programmed_seconds_bucket{le="0.512"}' in (
        h.proxier.metrics.registry.render()
    )
