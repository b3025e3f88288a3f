"""What Endpoints and EndpointSlices share in validation (upstream's ``ValidateNonSpecialIP``,
the node-name and DNS-label checks of an address).

One deviation: upstream refuses loopback addresses (``may not be in the loopback range
(127.0.0.0/8, ::1/128)``) because a loopback endpoint would point every node at itself.
Here every pod, node and Service address is a loopback address (the whole cluster runs on
this machine's loopback), so loopback addresses are accepted; unspecified, link-local and
link-local multicast ones are still refused with upstream's messages."""

from __future__ import annotations

import functools
import ipaddress
from typing import Any

from minikube_py.api.field_errors import FieldError, invalid
from minikube_py.api.validation import is_dns1123_label, is_dns1123_subdomain, is_qualified_name

#: distinct values whose verdicts are remembered (host names, node names, addresses)
CACHED = 16384
#: distinct values whose verdicts are remembered (host names, node names, addresses)
CACHED = 16384
VALID_IP = "must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)"
VALID_IPV4 = "must be a valid IPv4 address"
VALID_IPV6 = "must be a valid IPv6 address"


def parse_ip(value: Any) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        return ipaddress.ip_address(str(value))
    except ValueError:
        return None


_LINK_LOCAL_MULTICAST = {4: ipaddress.ip_network("224.0.0.0/24"), 6: ipaddress.ip_network("ff02::/16")}


@functools.lru_cache(maxsize=CACHED)
def ip_version(value: str) -> int:
    """4 or 6, 0 for no IP address (cached: a slice repeats the same addresses every write)."""
    ip = parse_ip(value)
    return 0 if ip is None else ip.version


@functools.lru_cache(maxsize=CACHED)
def _special(value: str) -> str:
    ip = parse_ip(value)
    if ip is None:
        return "must be a valid IP address"
    if ip.is_unspecified:
        return "may not be unspecified (0.0.0.0, ::)"
    if ip.is_link_local:
        return "may not be in the link-local range (169.254.0.0/16, fe80::/10)"
    if ip in _LINK_LOCAL_MULTICAST[ip.version]:
        return "may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)"
    return ""


def non_special_ip(value: str, path: str) -> list[FieldError]:
    """Upstream's ``ValidateNonSpecialIP`` without its loopback rule (see the module text)."""
    detail = _special(value)
    return [invalid(path, value, detail)] if detail else []


@functools.lru_cache(maxsize=CACHED)
def _label_errors(value: str) -> tuple[str, ...]:
    return tuple(is_dns1123_label(value))


@functools.lru_cache(maxsize=CACHED)
def _subdomain_errors(value: str) -> tuple[str, ...]:
    return tuple(is_dns1123_subdomain(value))


def dns_label(value: Any, path: str) -> list[FieldError]:
    return [invalid(path, value, m) for m in _label_errors(str(value))]


def node_name(value: Any, path: str) -> list[FieldError]:
    return [invalid(path, value, m) for m in _subdomain_errors(str(value))]


def qualified_name(value: Any, path: str) -> list[FieldError]:
    return [invalid(path, value, m) for m in is_qualified_name(str(value))]
