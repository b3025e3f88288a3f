"""EndpointSlices (discovery.k8s.io/v1): upstream's defaults (port name "" and protocol TCP),
generation bumped when the endpoints, ports or address type change, upstream's validation
(``addressType`` required, one of FQDN/IPv4/IPv6 and immutable; at most 1000 endpoints of 1 to
100 addresses valid for the type, loopback accepted as for Endpoints (``endpointvalidation``);
DNS-label host names and port names, unique port names, supported protocols, node names,
deprecated topology labels, hints), and ``kubectl get endpointslices``' row:
``NAME ADDRESSTYPE PORTS ENDPOINTS AGE``."""

from __future__ import annotations

from typing import Any

from apiserver.registry.age import age
from apiserver.registry.resources.configmap import AGE_COLUMN
from apiserver.registry.resources.endpointvalidation import (
    VALID_IPV4,
    VALID_IPV6,
    dns_label,
    ip_version,
    node_name,
    non_special_ip,
    qualified_name,
)
from apiserver.registry.resources.podvalidation import to_causes
from apiserver.registry.resources.servicespec import PROTOCOLS
from apiserver.registry.strategy import NAME_COLUMN, Column, Strategy
from minikube_py.api.errors import Cause
from minikube_py.api.field_errors import FieldError, invalid, not_supported, required, too_many
from minikube_py.api.models import discovery
from minikube_py.api.unstructured import Object
from minikube_py.api.validation import is_dns1123_subdomain, validate_labels

ADDRESS_TYPES = ("FQDN", "IPv4", "IPv6")
MAX_ENDPOINTS = 1000
MAX_ADDRESSES = 100
MAX_PORTS = 20000
MAX_TOPOLOGY_LABELS = 16
MAX_ZONE_HINTS = 8
ZONE_LABEL = "topology.kubernetes.io/zone"
SHOWN = 3

COLUMNS: list[Column] = [
    NAME_COLUMN,
    ("AddressType", "string", "", "The type of the addresses in this slice (IPv4, IPv6 or FQDN).", 0),
    ("Ports", "string", "", "The network ports every endpoint of this slice exposes.", 0),
    ("Endpoints", "string", "", "The unique endpoints of this slice.", 0),
    AGE_COLUMN,
]


def _with_more(items: list[str], count: int) -> str:
    """Upstream's ``listWithMoreString``: up to three, ``+ N more...``, ``<unset>`` if none."""
    text = ",".join(items[:SHOWN])
    if count > SHOWN:
        return f"{text} + {count - SHOWN} more..."
    return text or "<unset>"


def format_ports(ports: list[Any]) -> str:
    shown = [str(p.get("port")) if p.get("port") is not None else (p.get("name") or "*") for p in ports]
    return _with_more(shown, len(ports))


def format_endpoints(endpoints: list[Any]) -> str:
    addresses = [str(a) for e in endpoints for a in e.get("addresses") or []]
    return _with_more(addresses, len(addresses))


class EndpointSliceStrategy(Strategy):
    kinds = (discovery.EndpointSlice,)
    columns = COLUMNS

    def default(self, obj: Object) -> None:
        for port in obj.get("ports") or []:
            port.setdefault("name", "")
            port.setdefault("protocol", "TCP")

    def prepare_for_create(self, obj: Object) -> None:
        obj["metadata"]["generation"] = 1

    def prepare_for_update(self, new: Object, old: Object) -> None:
        generation = old["metadata"].get("generation") or 1
        changed = any(new.get(f) != old.get(f) for f in ("addressType", "endpoints", "ports"))
        new["metadata"]["generation"] = generation + 1 if changed else generation

    def validate(self, obj: Object) -> list[Cause]:
        return to_causes(validate_endpoint_slice(obj))

    def validate_update(self, new: Object, old: Object) -> list[Cause]:
        errs = validate_endpoint_slice(new)
        if new.get("addressType") != old.get("addressType"):
            errs.append(invalid("addressType", new.get("addressType"), "field is immutable"))
        return to_causes(errs)

    def table_cells(self, obj: Object, now: float) -> list[Any]:
        meta = obj["metadata"]
        return [
            meta["name"],
            obj.get("addressType", ""),
            format_ports(obj.get("ports") or []),
            format_endpoints(obj.get("endpoints") or []),
            age(meta.get("creationTimestamp"), now),
        ]


def validate_endpoint_slice(obj: Object) -> list[FieldError]:
    address_type = obj.get("addressType")
    errs: list[FieldError] = []
    if not address_type:
        errs.append(required("addressType"))
    elif address_type not in ADDRESS_TYPES:
        errs.append(not_supported("addressType", address_type, ADDRESS_TYPES))
    errs += _validate_endpoints(obj.get("endpoints") or [], address_type)
    return errs + _validate_ports(obj.get("ports") or [])


def _validate_address(address: Any, address_type: Any, at: str) -> list[FieldError]:
    if address_type in ("IPv4", "IPv6"):
        if ip_version(str(address)) != (4 if address_type == "IPv4" else 6):
            return [invalid(at, address, VALID_IPV4 if address_type == "IPv4" else VALID_IPV6)]
        return non_special_ip(str(address), at)
    if address_type == "FQDN":
        return [invalid(at, address, m) for m in is_dns1123_subdomain(str(address))]
    return []  # an unknown type is refused above; its addresses cannot be judged


def _validate_endpoints(endpoints: list[Any], address_type: Any) -> list[FieldError]:
    if len(endpoints) > MAX_ENDPOINTS:
        return [too_many("endpoints", len(endpoints), MAX_ENDPOINTS)]
    errs: list[FieldError] = []
    for i, endpoint in enumerate(endpoints):
        at = f"endpoints[{i}]"
        addresses = endpoint.get("addresses") or []
        if not addresses:
            errs.append(required(f"{at}.addresses", "must contain at least 1 address"))
        elif len(addresses) > MAX_ADDRESSES:
            errs.append(too_many(f"{at}.addresses", len(addresses), MAX_ADDRESSES))
        for j, address in enumerate(addresses):
            errs += _validate_address(address, address_type, f"{at}.addresses[{j}]")
        if endpoint.get("nodeName") is not None:
            errs += node_name(endpoint["nodeName"], f"{at}.nodeName")
        topology = endpoint.get("deprecatedTopology") or {}
        if len(topology) > MAX_TOPOLOGY_LABELS:
            errs.append(too_many(f"{at}.deprecatedTopology", len(topology), MAX_TOPOLOGY_LABELS))
        if topology:
            errs += validate_labels(topology, f"{at}.deprecatedTopology")
        if ZONE_LABEL in topology:
            errs.append(
                FieldError(
                    "InternalError",
                    f"{at}.deprecatedTopology[{ZONE_LABEL}]",
                    "",
                    "reserved key, use zone instead",
                )
            )
        if endpoint.get("hostname") is not None:
            errs += dns_label(endpoint["hostname"], f"{at}.hostname")
        zones = ((endpoint.get("hints") or {}).get("forZones")) or []
        if len(zones) > MAX_ZONE_HINTS:
            errs.append(too_many(f"{at}.hints.forZones", len(zones), MAX_ZONE_HINTS))
    return errs


def _validate_ports(ports: list[Any]) -> list[FieldError]:
    if len(ports) > MAX_PORTS:
        return [too_many("ports", len(ports), MAX_PORTS)]
    errs: list[FieldError] = []
    names: set[str] = set()
    for i, port in enumerate(ports):
        at, name = f"ports[{i}]", str(port.get("name") or "")
        if name:
            errs += dns_label(name, f"{at}.name")
        if name in names:
            errs.append(FieldError("FieldValueDuplicate", f"{at}.name", name))
        names.add(name)
        protocol = port.get("protocol")
        if not protocol:
            errs.append(required(f"{at}.protocol"))
        elif protocol not in PROTOCOLS:
            errs.append(not_supported(f"{at}.protocol", protocol, PROTOCOLS))
        if port.get("appProtocol") is not None:
            errs += qualified_name(port["appProtocol"], f"{at}.appProtocol")
    return errs
