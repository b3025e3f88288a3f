"""The flags of ``minikube-py dns`` (the cluster DNS server) into ``DNSOptions``."""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from pathlib import Path

from nodeagent.dns.forward import Upstream, parse_host_port, parse_upstream

DEFAULT_DOMAIN = "cluster.local"
DEFAULT_RESOLV_CONF = Path("/etc/resolv.conf")
METRICS_PORT = 9153  # CoreDNS's prometheus plugin


@dataclass(frozen=True)
class DNSOptions:
    host: str = "127.0.0.1"
    port: int = 0  # 0: a free port (the kube-dns Endpoints say which)
    domain: str = DEFAULT_DOMAIN
    cluster_ip: str = ""  # the kube-dns Service's; "": the kubernetes Service's + 9
    upstreams: tuple[Upstream, ...] | None = None  # None: the nameservers of resolv_conf
    resolv_conf: Path = DEFAULT_RESOLV_CONF
    metrics_port: int = METRICS_PORT  # /metrics, /health and /ready (0: a free port)
    write_service: bool = True  # keep kube-system/kube-dns and its Endpoints right


def add_flags(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--kubeconfig", type=Path, required=True, metavar="FILE", help="the server's identity"
    )
    parser.add_argument(
        "--listen",
        type=_listen,
        default=("127.0.0.1", 0),
        metavar="HOST:PORT",
        help="where DNS is served, UDP and TCP (default 127.0.0.1:0, a free port; the kube-dns "
        "Endpoints name it)",
    )
    parser.add_argument("--cluster-domain", default=DEFAULT_DOMAIN, help="(default %(default)s)")
    parser.add_argument(
        "--cluster-ip",
        default="",
        metavar="IP",
        help="the kube-dns Service's ClusterIP (default: the kubernetes Service's + 9, the service "
        "range's tenth address, as kubeadm)",
    )
    parser.add_argument(
        "--upstream",
        action="append",
        type=_upstream,
        default=None,
        metavar="HOST[:PORT]",
        help="where names outside the cluster go (repeatable; 'none': refused); default: the "
        "nameservers of --resolv-conf",
    )
    parser.add_argument("--resolv-conf", type=Path, default=DEFAULT_RESOLV_CONF, metavar="FILE")
    parser.add_argument(
        "--metrics-port",
        type=int,
        default=METRICS_PORT,
        help="/metrics, /health and /ready on the listen host (default %(default)s; 0: a free port)",
    )


def dns_options(args: argparse.Namespace) -> DNSOptions:
    host, port = args.listen
    upstreams: tuple[Upstream, ...] | None = None
    if args.upstream is not None:  # "none" (None here) alone: no upstream at all
        upstreams = tuple(u for u in args.upstream if u is not None)
    return DNSOptions(
        host, port, args.cluster_domain, args.cluster_ip, upstreams, args.resolv_conf, args.metrics_port
    )


def _upstream(text: str) -> Upstream | None:
    if text == "none":
        return None
    try:
        return parse_upstream(text)
    except ValueError as err:
        raise argparse.ArgumentTypeError(str(err)) from None


def _listen(text: str) -> tuple[str, int]:
    try:
        return parse_host_port(text, 0)
    except ValueError as err:
        raise argparse.ArgumentTypeError(str(err)) from None
