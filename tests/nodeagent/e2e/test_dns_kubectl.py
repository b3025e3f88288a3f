"""Cluster DNS end to end: ``up --nodes 1``, Services and pods created by real kubectl, the DNS
server asked with dnspython from the host at its real address (the kube-dns Endpoints name
it), and a process-runtime pod that reads its resolv.conf and hosts file.

The headless Service here is selector-less with an EndpointSlice of the test's own (pods with
``hostname``/``subdomain``, the slice naming them as the EndpointSlice controller would), so
the test needs no controller but the DNS component's; the name queries go straight to the
server's listen address, not through the ClusterIP (the service proxy's business)."""

from __future__ import annotations

import ipaddress
from collections.abc import Iterator
from typing import Any

import dns.message
import dns.query
import dns.rcode
import dns.rdatatype
import pytest
import yaml

from tests.cluster import Cluster, eventually, kubectl, kubectl_json, kubectl_ok, running_up

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    yield from running_up(tmp_path_factory.mktemp("dns"), flags=["--nodes", "1"])


def pod(name: str, command: str, **spec: Any) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "labels": {"app": "db"}},
        "spec": {
            "automountServiceAccountToken": False,
            "containers": [{"name": "c", "image": "busybox", "command": ["sh", "-c", command]}],
            **spec,
        },
    }


def apply(cluster: Cluster, *objects: dict[str, Any]) -> None:
    kubectl_ok(cluster, "apply", "-f", "-", stdin=yaml.safe_dump_all(objects))


def dns_server(cluster: Cluster) -> tuple[str, int]:
    """Where the DNS server listens, from the Endpoints it writes."""
    endpoints = eventually(
        lambda: kubectl_json(cluster, "-n", "kube-system", "endpoints", "kube-dns"), "kube-dns"
    )
    [subset] = endpoints["subsets"]
    port = next(p["port"] for p in subset["ports"] if p["name"] == "dns")
    return subset["addresses"][0]["ip"], port


def ask(where: tuple[str, int], name: str, rdtype: str = "A", tcp: bool = False) -> dns.message.Message:
    query = dns.message.make_query(name, rdtype)
    if tcp:
        return dns.query.tcp(query, where[0], port=where[1], timeout=2)
    return dns.query.udp(query, where[0], port=where[1], timeout=2)


def values(response: dns.message.Message) -> list[str]:
    return sorted(str(r) for rrset in response.answer for r in rrset)


def test_kube_dns_service_and_endpoints(cluster: Cluster) -> None:
    where = dns_server(cluster)
    assert where[0] == "127.0.0.1"
    svc = kubectl_json(cluster, "-n", "kube-system", "service", "kube-dns")
    kubernetes = kubectl_json(cluster, "service", "kubernetes")
    assert svc["spec"]["clusterIP"] == str(ipaddress.ip_address(kubernetes["spec"]["clusterIP"]) + 9)
    assert svc["metadata"]["labels"]["k8s-app"] == "kube-dns"
    assert [(p["name"], p["port"], p["protocol"]) for p in svc["spec"]["ports"]] == [
        ("dns", 53, "UDP"), ("dns-tcp", 53, "TCP"), ("metrics", 9153, "TCP"),
    ]  # fmt: skip
    assert values(ask(where, "kube-dns.kube-system.svc.cluster.local")) == [svc["spec"]["clusterIP"]]


def test_services_and_pods_resolve_from_the_host(cluster: Cluster) -> None:
    where = dns_server(cluster)
    kubectl_ok(cluster, "create", "service", "clusterip", "web", "--tcp=80:8080")
    web_ip = kubectl_json(cluster, "service", "web")["spec"]["clusterIP"]
    headless = {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {"name": "db"},
        "spec": {"clusterIP": "None", "ports": [{"name": "pg", "port": 5432}]},
    }
    sleep = "cat /etc/hosts; sleep 3600"
    apply(
        cluster,
        headless,
        pod("db-0", sleep, hostname="db-0", subdomain="db"),
        pod("db-1", sleep, hostname="db-1", subdomain="db"),
    )
    ips = {
        name: eventually(lambda n=name: kubectl_json(cluster, "pod", n)["status"]["podIP"], name)
        for name in ("db-0", "db-1")
    }
    apply(
        cluster,
        {
            "apiVersion": "discovery.k8s.io/v1",
            "kind": "EndpointSlice",
            "metadata": {"name": "db-manual", "labels": {"kubernetes.io/service-name": "db"}},
            "addressType": "IPv4",
            "ports": [{"name": "pg", "port": 5432, "protocol": "TCP"}],
            "endpoints": [
                {"addresses": [ip], "hostname": name, "conditions": {"ready": True}}
                for name, ip in ips.items()
            ],
        },
    )
    eventually(lambda: values(ask(where, "web.default.svc.cluster.local")) == [web_ip], "web's A record")
    eventually(
        lambda: values(ask(where, "db.default.svc.cluster.local")) == sorted(ips.values()), "db's pods"
    )
    assert values(ask(where, "db-0.db.default.svc.cluster.local")) == [ips["db-0"]]
    srv = values(ask(where, "_pg._tcp.db.default.svc.cluster.local", "SRV", tcp=True))
    assert srv == [
        "0 50 5432 db-0.db.default.svc.cluster.local.",
        "0 50 5432 db-1.db.default.svc.cluster.local.",
    ]
    dashed = ips["db-1"].replace(".", "-")
    assert values(ask(where, f"{dashed}.default.pod.cluster.local")) == [ips["db-1"]]
    missing = ask(where, "nosuch.default.svc.cluster.local")
    assert missing.rcode() == dns.rcode.NXDOMAIN and missing.authority[0].rdtype == dns.rdatatype.SOA
    hosts = eventually(lambda: kubectl_ok(cluster, "logs", "db-0"), "db-0's hosts file")
    assert f"{ips['db-0']}\tdb-0.db.default.svc.cluster.local\tdb-0" in hosts


def test_a_pod_reads_the_cluster_resolv_conf(cluster: Cluster) -> None:
    apply(cluster, pod("reader", "cat /etc/resolv.conf; sleep 3600"))
    text = eventually(lambda: kubectl(cluster, "logs", "reader").stdout, "the reader's log")
    lines = text.splitlines()
    assert cluster.network is not None  # the test slot: its service range, its DNS address
    assert lines[0] == f"nameserver {cluster.network.dns_ip}"
    assert lines[1].startswith("search default.svc.cluster.local svc.cluster.local cluster.local")
    assert lines[-1] == "options ndots:5"


def test_dns_none_with_dns_config(cluster: Cluster) -> None:
    config = {
        "nameservers": ["127.0.0.53"],
        "searches": ["my.dns.search.suffix"],
        "options": [{"name": "ndots", "value": "2"}],
    }
    apply(cluster, pod("custom", "cat /etc/resolv.conf; sleep 3600", dnsPolicy="None", dnsConfig=config))
    text = eventually(lambda: kubectl(cluster, "logs", "custom").stdout, "the custom pod's log")
    assert text == "nameserver 127.0.0.53\nsearch my.dns.search.suffix\noptions ndots:2\n"
    refused = kubectl(
        cluster, "run", "bad", "--image=busybox", "--overrides", '{"spec": {"dnsPolicy": "None"}}'
    )
    assert refused.returncode != 0 and "must provide `dnsConfig` when `dnsPolicy` is None" in refused.stderr
