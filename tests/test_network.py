"""minikube_py.network: the loopback address plan and its flags' parsers."""

from __future__ import annotations

import pytest

from apiserver.options.serverrun import server_run_options
from apiserver.registry.resources.serviceallocator import ServiceNetwork
from minikube_py.cli.main import build_parser
from minikube_py.network import (
    DEFAULT_CLUSTER_CIDR,
    DEFAULT_SERVICE_CIDR,
    dns_service_ip,
    kubernetes_service_ip,
    loopback_network,
    node_cidr,
    node_cidr_count,
    node_cidrs,
    node_ip,
    node_port_range,
    service_network,
)


def test_the_default_plan() -> None:
    assert (DEFAULT_SERVICE_CIDR, DEFAULT_CLUSTER_CIDR) == ("127.96.0.0/12", "127.128.0.0/9")
    assert kubernetes_service_ip(DEFAULT_SERVICE_CIDR) == "127.96.0.1"
    assert dns_service_ip(DEFAULT_SERVICE_CIDR) == "127.96.0.10"
    assert node_cidr_count(DEFAULT_CLUSTER_CIDR, 24) == 32768
    ranges = node_cidrs(DEFAULT_CLUSTER_CIDR, 24)
    assert [next(ranges) for _ in range(3)] == ["127.128.0.0/24", "127.128.1.0/24", "127.128.2.0/24"]
    assert node_cidr(DEFAULT_CLUSTER_CIDR, 24, 256) == "127.129.0.0/24"
    assert node_cidr(DEFAULT_CLUSTER_CIDR, 24, 32767) == "127.255.255.0/24"
    assert node_ip("127.128.1.0/24") == "127.128.1.1"
    with pytest.raises(IndexError):
        node_cidr(DEFAULT_CLUSTER_CIDR, 24, 32768)


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("10.96.0.0/12", "must be inside 127.0.0.0/8"),
        ("127.96.0.1/12", "has host bits set"),
        ("nonsense", "invalid --service-cluster-ip-range 'nonsense'"),
        ("127.0.0.0/8", "too large; for 32-bit addresses, the mask must be >= 12"),
        ("127.96.0.0/29", "too small"),
    ],
)
def test_bad_service_ranges(text: str, says: str) -> None:
    with pytest.raises(ValueError, match=says):
        service_network(text)


def test_good_ranges() -> None:
    assert str(service_network("127.96.0.0/12")) == "127.96.0.0/12"
    assert str(loopback_network("127.64.0.0/17", "--cluster-cidr")) == "127.64.0.0/17"


@pytest.mark.parametrize(
    ("text", "ports"), [("30000-32767", (30000, 32767)), ("30000+100", (30000, 30099)), ("80-80", (80, 80))]
)
def test_node_port_ranges(text: str, ports: tuple[int, int]) -> None:
    assert node_port_range(text) == ports


@pytest.mark.parametrize("text", ["30000", "a-b", "32767-30000", "0-10", "65000-65536"])
def test_bad_node_port_ranges(text: str) -> None:
    with pytest.raises(ValueError, match="invalid --service-node-port-range"):
        node_port_range(text)


BASE = ["apiserver", "--store", "memory://", "--tls-cert-file", "c", "--tls-private-key-file", "k"]
BASE += ["--client-ca-file", "ca"]


def test_the_apiserver_takes_upstreams_service_flags() -> None:
    defaults = server_run_options(build_parser().parse_args(BASE))
    assert defaults.service_network == ServiceNetwork("127.96.0.0/12", "30000-32767")
    flags = ["--service-cluster-ip-range", "127.70.0.0/16", "--service-node-port-range", "31000-31999"]
    given = server_run_options(build_parser().parse_args([*BASE, *flags]))
    assert given.service_network == ServiceNetwork("127.70.0.0/16", "31000-31999")
    assert given.service_network.kubernetes_ip == "127.70.0.1"


@pytest.mark.parametrize("value", ["10.96.0.0/12", "127.0.0.0/8"])
def test_the_apiserver_refuses_service_ranges_off_loopback_or_too_large(
    value: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit):
        build_parser().parse_args([*BASE, "--service-cluster-ip-range", value])
    assert "argument --service-cluster-ip-range" in capsys.readouterr().err
