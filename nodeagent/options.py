"""The node agent's flags: ``minikube-py node-agent --kubeconfig F --node-name N --runtime
process|fake`` runs one node agent (a miniature kubelet), with the kubelet's flags for its
serving certificate and client CA, its address (``--node-ip``, ``--address``) and its pod
range (``--pod-cidr``); into ``AgentOptions`` and ``ServingTLS``."""

from __future__ import annotations

import argparse
import ipaddress
from pathlib import Path

from minikube_py.datadir import DEFAULT_DATA_DIR
from minikube_py.network import loopback_network
from minikube_py.pki import CertKeyPair
from nodeagent.agent import DEFAULT_PORT, AgentOptions, ServingTLS
from nodeagent.eviction.thresholds import DEFAULT_EVICTION_HARD, parse_thresholds
from nodeagent.runtime.podip import DEFAULT_POD_CIDR
from nodeagent.volumes.sourcewatch import DEFAULT_REFRESH_DELAY

RUNTIMES = ("process", "fake")


def add_flags(parser: argparse.ArgumentParser) -> None:
    """The ``node-agent`` command's flags."""
    parser.add_argument("--kubeconfig", type=Path, required=True, metavar="FILE", help="the node's identity")
    parser.add_argument("--node-name", required=True, metavar="NAME")
    parser.add_argument("--runtime", choices=RUNTIMES, default="process", help="(default %(default)s)")
    parser.add_argument(
        "--data-dir",
        type=Path,
        default=DEFAULT_DATA_DIR,
        metavar="DIR",
        help="the node's files go to DIR/nodes/NAME (default %(default)s)",
    )
    parser.add_argument(
        "--port", type=int, default=DEFAULT_PORT, help="the node API's HTTPS port (default %(default)s)"
    )
    parser.add_argument(
        "--address",
        type=_loopback_ip,
        metavar="IP",
        help="where the node API listens (default: the node's address, --node-ip)",
    )
    parser.add_argument(
        "--pod-cidr",
        type=_pod_cidr,
        default=DEFAULT_POD_CIDR,
        metavar="CIDR",
        help="the node's loopback range (its spec.podCIDR): the node's address is its first "
        "address, its pods get the next ones (default %(default)s; give each node agent started "
        "alone a range of its own)",
    )
    parser.add_argument(
        "--node-ip",
        type=_loopback_ip,
        metavar="IP",
        help="the node's address, reported as its InternalIP (default: the first address of --pod-cidr)",
    )
    parser.add_argument(
        "--tls-cert-file", type=Path, required=True, metavar="FILE", help="the node API's certificate"
    )
    parser.add_argument("--tls-private-key-file", type=Path, required=True, metavar="FILE")
    parser.add_argument(
        "--client-ca-file",
        type=Path,
        required=True,
        metavar="FILE",
        help="CA of the apiserver's client certificate",
    )
    parser.add_argument(
        "--eviction-hard",
        type=_thresholds,
        default=DEFAULT_EVICTION_HARD,
        metavar="THRESHOLDS",
        help="hard eviction thresholds, as the kubelet's flag (default %(default)s)",
    )
    parser.add_argument(
        "--volume-refresh-delay",
        type=float,
        default=DEFAULT_REFRESH_DELAY,
        metavar="SECONDS",
        help="from a change of a mounted ConfigMap or Secret to the refresh of its pods' files "
        "(upstream: the sync period, about a minute; default %(default)s)",
    )
    add_dns_flags(parser)


def add_dns_flags(parser: argparse.ArgumentParser) -> None:
    """The kubelet's flags for the pods' resolver (``pod/dnsconfig.py``)."""
    parser.add_argument(
        "--cluster-dns",
        type=_addresses,
        default=(),
        metavar="IP[,IP...]",
        help="the cluster DNS servers of ClusterFirst pods (default none: they fall back to Default)",
    )
    parser.add_argument("--cluster-domain", default="cluster.local", help="(default %(default)s)")
    parser.add_argument(
        "--resolv-conf",
        default="/etc/resolv.conf",
        metavar="FILE",
        help="the node's resolver, the base of pods' resolv.conf (default %(default)s)",
    )


def _addresses(text: str) -> tuple[str, ...]:
    try:
        return tuple(str(ipaddress.ip_address(part.strip())) for part in text.split(",") if part.strip())
    except ValueError as err:
        raise argparse.ArgumentTypeError(str(err)) from None


def _pod_cidr(text: str) -> str:
    try:
        network = loopback_network(text, "--pod-cidr")
    except ValueError as err:
        raise argparse.ArgumentTypeError(str(err)) from None
    if network.num_addresses < 4:
        raise argparse.ArgumentTypeError(f"--pod-cidr {text} has no room for pods (want a /30 or larger)")
    return str(network)


def _loopback_ip(text: str) -> str:
    try:
        address = ipaddress.IPv4Address(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"invalid IP address {text!r}") from None
    if not address.is_loopback:
        raise argparse.ArgumentTypeError(f"{text} is not a loopback address (want one of 127.0.0.0/8)")
    return text


def _thresholds(text: str) -> str:
    try:
        parse_thresholds(text)
    except ValueError as err:
        raise argparse.ArgumentTypeError(str(err)) from None
    return text


def agent_options(args: argparse.Namespace) -> tuple[AgentOptions, ServingTLS]:
    """The agent's options and its serving certificate, from the flags."""
    tls = ServingTLS(CertKeyPair(args.tls_cert_file, args.tls_private_key_file), args.client_ca_file)
    options = AgentOptions(
        args.node_name,
        args.data_dir.expanduser(),
        args.runtime,
        args.port,
        args.address or "",
        pod_cidr=args.pod_cidr,
        node_ip=args.node_ip or "",
        eviction_hard=args.eviction_hard,
        volume_refresh_delay=max(args.volume_refresh_delay, 0.0),
        cluster_dns=args.cluster_dns,
        cluster_domain=args.cluster_domain,
        resolv_conf=args.resolv_conf,
    )
    return options, tls
