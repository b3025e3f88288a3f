"""The cluster's address plan, all on loopback (every address of 127.0.0.0/8 is local on Linux,
so nothing the cluster does by default sends a packet off the machine).

- Service cluster IPs: ``127.96.0.0/12`` (``--service-cluster-ip-range``); the ``kubernetes``
  Service at its first address, cluster DNS at its tenth.
- node ports: ``30000-32767`` (``--service-node-port-range``).
- pod network: ``127.128.0.0/9`` (``--cluster-cidr``), one ``/24`` (``--node-cidr-mask-size``)
  per node, in order.

A process node's own address (its ``InternalIP``) is the first address of its node range; its
pods get the next ones. Upstream's flag names, parsed here so that the apiserver, ``up`` and
the node agent agree on them.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterator

DEFAULT_SERVICE_CIDR = "127.96.0.0/12"
DEFAULT_NODE_PORT_RANGE = "30000-32767"
DEFAULT_CLUSTER_CIDR = "127.128.0.0/9"
DEFAULT_NODE_CIDR_MASK_SIZE = 24
# upstream's kube-apiserver refuses an IPv4 service range with more than 20 host bits
MAX_SERVICE_HOST_BITS = 20
LOOPBACK_NETWORK = ipaddress.IPv4Network("127.0.0.0/8")


def loopback_network(text: str, flag: str) -> ipaddress.IPv4Network:
    """``text`` as an IPv4 CIDR inside 127.0.0.0/8; ``ValueError`` naming ``flag`` otherwise."""
    try:
        network = ipaddress.IPv4Network(text.strip(), strict=True)
    except ValueError as err:
        raise ValueError(f"invalid {flag} {text!r}: {err}") from None
    if not network.subnet_of(LOOPBACK_NETWORK):
        raise ValueError(
            f"invalid {flag} {text!r}: must be inside 127.0.0.0/8 "
            "(minikube-py keeps every address on loopback)"
        )
    return network


def service_network(text: str) -> ipaddress.IPv4Network:
    """``--service-cluster-ip-range``: a loopback CIDR of at most 2^20 addresses, room for the
    ``kubernetes`` Service and the DNS Service (its tenth address)."""
    network = loopback_network(text, "--service-cluster-ip-range")
    if 32 - network.prefixlen > MAX_SERVICE_HOST_BITS:
        raise ValueError(
            "specified --service-cluster-ip-range is too large; "
            f"for 32-bit addresses, the mask must be >= {32 - MAX_SERVICE_HOST_BITS}"
        )
    if network.num_addresses < 16:
        raise ValueError(f"--service-cluster-ip-range {text} is too small (want a /28 or larger)")
    return network


def node_port_range(text: str) -> tuple[int, int]:
    """``--service-node-port-range``: ``first-last`` (or ``first+size``, as upstream's
    ``PortRange``), inside 1-65535."""
    try:
        if "+" in text:
            base, size = (int(part) for part in text.split("+", 1))
            first, last = base, base + size - 1
        else:
            first, last = (int(part) for part in text.split("-", 1))
    except ValueError:
        raise ValueError(f"invalid --service-node-port-range {text!r} (want e.g. 30000-32767)") from None
    if not 1 <= first <= last <= 65535:
        raise ValueError(f"invalid --service-node-port-range {text!r} (want 1 <= first <= last <= 65535)")
    return first, last


def kubernetes_service_ip(service_cidr: str) -> str:
    """The first address of the range: the ``kubernetes`` Service's (upstream too)."""
    return str(ipaddress.IPv4Network(service_cidr)[1])


def dns_service_ip(service_cidr: str) -> str:
    """The tenth address of the range: the cluster DNS Service's (kubeadm's convention)."""
    return str(ipaddress.IPv4Network(service_cidr)[10])


def node_cidr_count(cluster_cidr: str, mask_size: int) -> int:
    """How many node ranges of ``/mask_size`` the cluster CIDR holds."""
    network = ipaddress.IPv4Network(cluster_cidr)
    if not network.prefixlen <= mask_size <= 30:
        return 0
    return 1 << (mask_size - network.prefixlen)


def node_cidrs(cluster_cidr: str, mask_size: int) -> Iterator[str]:
    """The node ranges in order (upstream's node IPAM hands them out the same way)."""
    for subnet in ipaddress.IPv4Network(cluster_cidr).subnets(new_prefix=mask_size):
        yield str(subnet)


def node_cidr(cluster_cidr: str, mask_size: int, index: int) -> str:
    """The ``index``-th node range (0-based); ``IndexError`` past the last."""
    network = ipaddress.IPv4Network(cluster_cidr)
    if not 0 <= index < node_cidr_count(cluster_cidr, mask_size):
        raise IndexError(f"{cluster_cidr} has no node range #{index} of /{mask_size}")
    size = 1 << (32 - mask_size)
    return f"{network.network_address + index * size}/{mask_size}"


def node_ip(pod_cidr: str) -> str:
    """A process node's own address: the first host address of its range."""
    return str(ipaddress.IPv4Network(pod_cidr)[1])
