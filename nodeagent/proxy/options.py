"""The flags of ``minikube-py proxy`` (upstream kube-proxy's names where it has one) into
``ProxyOptions``; and the node agent's own proxy flags (``--no-proxy``, ``--proxy-kubeconfig``)."""

from __future__ import annotations

import argparse
from pathlib import Path

from minikube_py.flags import duration_seconds
from nodeagent.proxy.app import DEFAULT_HEALTHZ_ADDRESS, DEFAULT_METRICS_ADDRESS, ProxyOptions
from nodeagent.proxy.balancer import RANDOM, SELECTIONS
from nodeagent.proxy.listeners import DEFAULT_RETRY_PERIOD
from nodeagent.proxy.proxier import DEFAULT_MIN_SYNC_PERIOD, DEFAULT_SYNC_PERIOD, ProxyConfig
from nodeagent.proxy.udp import DEFAULT_UDP_TIMEOUT


def add_proxy_flags(parser: argparse.ArgumentParser) -> None:
    """The ``proxy`` command's flags."""
    parser.add_argument(
        "--kubeconfig",
        type=Path,
        required=True,
        metavar="FILE",
        help="the proxy's identity (system:kube-proxy)",
    )
    parser.add_argument(
        "--node-name",
        metavar="NAME",
        help="the node this proxy serves: its NodePorts listen on the node's loopback InternalIP and "
        "'Local' traffic policies keep its endpoints (default: every node)",
    )
    add_tuning_flags(parser)


def add_tuning_flags(parser: argparse.ArgumentParser, prefix: str = "") -> None:
    """The flags a proxy inside another command shares (``prefix`` ``proxy-`` there)."""
    parser.add_argument(
        f"--{prefix}healthz-bind-address",
        default=DEFAULT_HEALTHZ_ADDRESS,
        metavar="HOST:PORT",
        help="where /healthz listens, port 0 for a free one (default %(default)s)",
    )
    parser.add_argument(
        f"--{prefix}metrics-bind-address",
        default=DEFAULT_METRICS_ADDRESS,
        metavar="HOST:PORT",
        help="where /metrics listens, port 0 for a free one (default %(default)s)",
    )
    parser.add_argument(
        f"--{prefix}sync-period",
        type=duration_seconds,
        default=DEFAULT_SYNC_PERIOD,
        metavar="DURATION",
        help="a full sync at least this often (default 30s)",
    )
    parser.add_argument(
        f"--{prefix}min-sync-period",
        type=duration_seconds,
        default=DEFAULT_MIN_SYNC_PERIOD,
        metavar="DURATION",
        help="changes within this period are applied in one sync (upstream: 1s; default 20ms)",
    )
    parser.add_argument(
        f"--{prefix}backend-selection",
        choices=SELECTIONS,
        default=RANDOM,
        help="how a connection picks its backend: random (as iptables/nftables modes) or "
        "round-robin (as IPVS' rr) (default %(default)s)",
    )
    parser.add_argument(
        f"--{prefix}udp-timeout",
        type=duration_seconds,
        default=DEFAULT_UDP_TIMEOUT,
        metavar="DURATION",
        help="an idle UDP flow is closed after this long (conntrack's UDP timeout; default 30s)",
    )


def proxy_options(
    args: argparse.Namespace, prefix: str = "", node_names: frozenset[str] | None = None
) -> ProxyOptions:
    """``ProxyOptions`` from the flags (``node_names`` overrides ``--node-name``)."""
    flag = prefix.replace("-", "_")
    if node_names is None and getattr(args, "node_name", None):
        node_names = frozenset([args.node_name])
    return ProxyOptions(
        ProxyConfig(
            node_names=node_names,
            selection=getattr(args, f"{flag}backend_selection"),
            sync_period=max(getattr(args, f"{flag}sync_period"), 0.001),
            min_sync_period=max(getattr(args, f"{flag}min_sync_period"), 0.0),
            udp_timeout=max(getattr(args, f"{flag}udp_timeout"), 0.001),
            bind_retry_period=DEFAULT_RETRY_PERIOD,
        ),
        healthz_bind_address=getattr(args, f"{flag}healthz_bind_address"),
        metrics_bind_address=getattr(args, f"{flag}metrics_bind_address"),
    )


def add_node_agent_proxy_flags(parser: argparse.ArgumentParser) -> None:
    """A node agent on the process runtime runs its node's proxy unless ``--no-proxy``."""
    parser.add_argument(
        "--no-proxy",
        action="store_true",
        help="do not run this node's service proxy (runtime process only; it runs by default)",
    )
    parser.add_argument(
        "--proxy-kubeconfig",
        type=Path,
        metavar="FILE",
        help="the proxy's identity (default: --kubeconfig; a node's identity may not list "
        "EndpointSlices, system:kube-proxy may)",
    )
    add_tuning_flags(parser, "proxy-")
