"""Addresses on loopback (issue 15 item 1) in ``up --nodes 2 --fake-nodes 1`` with real kubectl:
each node has its own /24 of the cluster's pod network as ``spec.podCIDR``, a process node its
own ``InternalIP`` (the first address of its range, where its API listens: logs go there), the
``kubernetes`` Service the first address of the service range (named by the apiserver's
certificate), and node ports and cluster IPs are refused with upstream's messages."""

from __future__ import annotations

import ipaddress
import json
import socket
import ssl
from collections.abc import Iterator

import pytest

from tests.cluster import Cluster, eventually, kubectl, running_up
from tests.cluster import kubectl_json as get
from tests.cluster import kubectl_ok as ok

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    yield from running_up(tmp_path_factory.mktemp("addresses"), flags=["--nodes", "2", "--fake-nodes", "1"])


def nodes(cluster: Cluster) -> dict[str, dict[str, object]]:
    listed = get(cluster, "nodes")["items"]
    return {n["metadata"]["name"]: n for n in listed} if len(listed) == 3 else {}


def test_each_node_has_its_own_range_and_each_process_node_its_own_address(cluster: Cluster) -> None:
    network = cluster.network
    assert network is not None
    found = eventually(lambda: nodes(cluster), "three nodes registered")
    for index, name in enumerate(["node-1", "node-2", "fake-1"]):
        spec = found[name]["spec"]
        assert spec == {"podCIDR": network.node_cidr(index), "podCIDRs": [network.node_cidr(index)]}
    for index, name in enumerate(["node-1", "node-2"]):
        addresses = found[name]["status"]["addresses"]  # type: ignore[index]
        assert addresses == [
            {"type": "InternalIP", "address": network.node_ip(index)},
            {"type": "Hostname", "address": name},
        ]
        port = found[name]["status"]["daemonEndpoints"]["kubeletEndpoint"]["Port"]  # type: ignore[index]
        with socket.create_connection((network.node_ip(index), port), timeout=5):
            pass  # the node's API listens on the node's own address
        with pytest.raises(OSError):
            socket.create_connection(("127.0.0.1", port), timeout=5).close()
    wide = ok(cluster, "get", "nodes", "-o", "wide")
    assert network.node_ip(0) in wide and network.node_ip(1) in wide


def test_pods_get_addresses_of_their_nodes_range_and_logs_reach_them(cluster: Cluster) -> None:
    network = cluster.network
    assert network is not None
    eventually(lambda: nodes(cluster), "three nodes registered")
    for index, node in enumerate(["node-2", "fake-1"], start=1):
        pod = {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {"name": f"on-{node}"},
            "spec": {
                "nodeName": node,
                "automountServiceAccountToken": False,
                "containers": [
                    {"name": "c", "image": "busybox", "command": ["sh", "-c", "echo hi; sleep 600"]}
                ],
            },
        }
        ok(cluster, "create", "-f", "-", stdin=json.dumps(pod))
        ip = eventually(
            lambda n=node: get(cluster, "pod", f"on-{n}")["status"].get("podIP"), f"a pod IP on {node}"
        )
        assert ipaddress.ip_address(ip) in ipaddress.ip_network(network.node_cidr(index))
        assert ip != network.node_ip(index)
    # through the apiserver to node-2's agent at node-2's own address
    eventually(lambda: ok(cluster, "logs", "on-node-2").strip() == "hi", "the log of the pod on node-2")


def test_the_kubernetes_service_is_the_first_address_and_the_certificate_names_it(cluster: Cluster) -> None:
    network = cluster.network
    assert network is not None
    spec = get(cluster, "service", "kubernetes")["spec"]
    assert spec["clusterIPs"] == [network.kubernetes_ip]
    context = ssl.create_default_context(cafile=str(cluster.ca_file))
    for name in (network.kubernetes_ip, "kubernetes.default.svc", "kubernetes.default.svc.cluster.local"):
        with (
            socket.create_connection(("127.0.0.1", cluster.port), timeout=5) as raw,
            context.wrap_socket(raw, server_hostname=name) as tls,
        ):
            assert tls.version()  # verified for the name a pod uses


def test_node_ports_and_cluster_ips_are_refused_as_upstream(cluster: Cluster) -> None:
    network = cluster.network
    assert network is not None
    ok(cluster, "create", "service", "nodeport", "first", "--tcp=80:80", "--node-port=30080")
    taken = kubectl(cluster, "create", "service", "nodeport", "second", "--tcp=80:80", "--node-port=30080")
    assert taken.returncode == 1
    assert taken.stderr.strip().endswith(
        'Service "second" is invalid: spec.ports[0].nodePort: Invalid value: 30080: '
        "provided port is already allocated"
    )
    outside = kubectl(cluster, "create", "service", "nodeport", "third", "--tcp=80:80", "--node-port=29999")
    assert outside.stderr.strip().endswith(
        "spec.ports[0].nodePort: Invalid value: 29999: provided port is not in the valid range. "
        "The range of valid ports is 30000-32767"
    )
    # the cluster DNS Service holds the tenth address (kubeadm's); another static one is free
    kube_dns = eventually(lambda: get(cluster, "service", "kube-dns", "-n", "kube-system"), "kube-dns")
    assert kube_dns["spec"]["clusterIP"] == network.dns_ip
    static = str(ipaddress.ip_address(network.dns_ip) + 10)
    ok(cluster, "create", "service", "clusterip", "static", "--tcp=53:53", f"--clusterip={static}")
    for name, address in (("static2", static), ("dns", network.dns_ip)):
        again = kubectl(
            cluster, "create", "service", "clusterip", name, "--tcp=53:53", f"--clusterip={address}"
        )
        assert again.stderr.strip().endswith(
            f'spec.clusterIPs: Invalid value: ["{address}"]: failed to allocate IP {address}: '
            "provided IP is already allocated"
        )
    far = kubectl(cluster, "create", "service", "clusterip", "far", "--tcp=80:80", "--clusterip=10.96.0.10")
    assert far.stderr.strip().endswith(
        "failed to allocate IP 10.96.0.10: the provided IP (10.96.0.10) is not in the valid range. "
        f"The range of valid IPs is {network.service_cidr}"
    )
    dynamic = get(cluster, "service", "first")["spec"]["clusterIP"]
    assert ipaddress.ip_address(dynamic) in ipaddress.ip_network(network.service_cidr)
