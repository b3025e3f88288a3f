"""The Service address flags of ``minikube-py apiserver`` and ``up``, upstream's names:
``--service-cluster-ip-range`` (a loopback CIDR here, default ``127.96.0.0/12``: the
``kubernetes`` Service gets its first address, cluster DNS its tenth) and
``--service-node-port-range`` (default ``30000-32767``), into a ``ServiceNetwork``."""

from __future__ import annotations

import argparse
from collections.abc import Callable

from apiserver.registry.resources.serviceallocator import ServiceNetwork
from minikube_py.network import (
    DEFAULT_NODE_PORT_RANGE,
    DEFAULT_SERVICE_CIDR,
    node_port_range,
    service_network,
)


def add_service_network_flags(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--service-cluster-ip-range",
        type=_checked(service_network),
        default=DEFAULT_SERVICE_CIDR,
        metavar="CIDR",
        help="where Services' cluster IPs come from, a loopback range: the kubernetes Service gets "
        "its first address, cluster DNS its tenth (default %(default)s)",
    )
    parser.add_argument(
        "--service-node-port-range",
        type=_checked(node_port_range),
        default=DEFAULT_NODE_PORT_RANGE,
        metavar="RANGE",
        help="the node ports of NodePort and LoadBalancer Services, FIRST-LAST (default %(default)s)",
    )


def service_network_from_args(args: argparse.Namespace) -> ServiceNetwork:
    return ServiceNetwork(args.service_cluster_ip_range, args.service_node_port_range)


def _checked(parse: Callable[[str], object]) -> Callable[[str], str]:
    """An argparse ``type``: the text, once ``parse`` accepts it (its error is the message)."""

    def checked(text: str) -> str:
        try:
            parse(text)
        except ValueError as err:
            raise argparse.ArgumentTypeError(str(err)) from None
        return text.strip()

    return checked
