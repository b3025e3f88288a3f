"""What Endpoints and EndpointSlices share in validation (upstream's ``ValidateNonSpecialIP``,
the node-name and DNS-label checks of an address).

One deviation: upstream refuses loopback addresses (``may not be in the loopback range
(127.0.0.0/8, ::1/128)``) because a loopback endpoint would point every node at itself.
Here every pod, node and Service address is a loopback address (the whole cluster runs on
this machine's loopback), so loopback addresses are accepted; unspecified, link-local and
link-local multicast ones are still refused with upstream's messages."""

from __future__ import annotations

import ipaddress
from typing import Any

from minikube_py.api.field_errors import FieldError, invalid
from minikube_py.api.validation import is_dns1123_label, is_dns1123_subdomain, is_qualified_name

VALID_IP = "must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)"
VALID_IPV4 = "must be a valid IPv4 address"
VALID_IPV6 = "must be a valid IPv6 address"


def parse_ip(value: Any) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        return ipaddress.ip_address(str(value))
    except ValueError:
        return None


def non_special_ip(value: str, path: str) -> list[FieldError]:
    """Upstream's ``ValidateNonSpecialIP`` without its loopback rule (see the module text)."""
    ip = parse_ip(value)
    if ip is None:
        return [invalid(path, value, "must be a valid IP address")]
    if ip.is_unspecified:
        return [invalid(path, value, "may not be unspecified (0.0.0.0, ::)")]
    if ip.is_link_local:
        return [invalid(path, value, "may not be in the link-local range (169.254.0.0/16, fe80::/10)")]
    link_local_multicast = ipaddress.ip_network("224.0.0.0/24" if ip.version == 4 else "ff02::/16")
    if ip in link_local_multicast:
        return [
            invalid(path, value, "may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)")
        ]
    return []


def dns_label(value: Any, path: str) -> list[FieldError]:
    return [invalid(path, value, m) for m in is_dns1123_label(str(value))]


def node_name(value: Any, path: str) -> list[FieldError]:
    return [invalid(path, value, m) for m in is_dns1123_subdomain(str(value))]


def qualified_name(value: Any, path: str) -> list[FieldError]:
    return [invalid(path, value, m) for m in is_qualified_name(str(value))]
