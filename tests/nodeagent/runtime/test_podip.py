"""Pod IPs from the node's range: the first address is the node's, pods get the rest."""

from __future__ import annotations

import argparse

import pytest

from nodeagent.options import add_flags, agent_options
from nodeagent.runtime.podip import DEFAULT_POD_CIDR, PodIPAllocator, PodIPExhaustedError, node_address


def test_pods_never_get_the_nodes_address() -> None:
    ips = PodIPAllocator("127.128.0.0/24")
    handed_out = [ips.allocate() for _ in range(253)]
    assert handed_out[0] == "127.128.0.2" and handed_out[-1] == "127.128.0.254"
    assert node_address("127.128.0.0/24") == "127.128.0.1" not in handed_out
    with pytest.raises(PodIPExhaustedError, match=r"pod IP range 127.128.0.0/24 is exhausted \(253"):
        ips.allocate()


def test_the_default_range_is_the_last_of_the_default_pod_network() -> None:
    assert DEFAULT_POD_CIDR == "127.255.255.0/24"


def parse(*flags: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    add_flags(parser)
    required = ["--kubeconfig", "k", "--node-name", "n", "--tls-cert-file", "c"]
    required += ["--tls-private-key-file", "k", "--client-ca-file", "ca"]
    return parser.parse_args([*required, *flags])


def test_node_agent_flags_give_its_range_and_address() -> None:
    options, _ = agent_options(parse())
    assert (options.pod_cidr, options.address, options.host) == ("127.255.255.0/24", "127.255.255.1", "")
    options, _ = agent_options(parse("--pod-cidr", "127.70.3.0/24"))
    assert options.address == "127.70.3.1"
    options, _ = agent_options(parse("--pod-cidr", "127.70.3.0/24", "--node-ip", "127.70.9.9"))
    assert options.address == "127.70.9.9"


@pytest.mark.parametrize(
    "flags",
    [
        ["--pod-cidr", "10.244.1.0/24"],
        ["--pod-cidr", "127.1.0.0/31"],
        ["--node-ip", "192.168.1.2"],
        ["--address", "x"],
    ],
)
def test_addresses_off_loopback_are_refused(flags: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        parse(*flags)
    assert "error: argument" in capsys.readouterr().err
