"""The cluster's DNS records (the Kubernetes DNS specification, CoreDNS ``kubernetes`` plugin
semantics) from Services and EndpointSlices: pure data, no network.

``ClusterRecords`` keeps the latest Service and EndpointSlice of each key (fed by informers,
``set_service``/``delete_service``/``set_slice``/``delete_slice``) and builds a ``Zone`` from
them on first use after a change (``zone()``; ``generation`` counts the changes, so answer
caches know when to drop). What the zone holds, for a zone (cluster domain) ``cluster.local``:

- ``<svc>.<ns>.svc.cluster.local``: A/AAAA of the ClusterIPs; for a headless Service (``None``)
  the addresses of its ready endpoints (all of them with ``publishNotReadyAddresses``); for an
  ExternalName Service a CNAME to ``externalName``.
- ``<hostname>.<svc>.<ns>.svc.cluster.local`` for each endpoint of a headless Service: its
  ``hostname`` (a pod's ``hostname`` with ``subdomain`` = the Service's name), else its address
  dashed (``127-1-0-5``), as CoreDNS names endpoints without one.
- ``_<port>._<proto>.<svc>.<ns>.svc.cluster.local`` SRV for each named port (``0 100 <port>
  <target>``): the Service's name, or each endpoint's name when headless.
- PTR for each ClusterIP and each endpoint address of a headless Service.
- ``dns-version.cluster.local`` TXT ``1.1.0`` (the schema version this follows).

Names are compared lowercased (the specification's "case-insensitive").
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

import dns.name
import dns.rdata
import dns.rdataclass
import dns.rdatatype
import dns.reversename
import dns.rrset

SCHEMA_VERSION = "1.1.0"
TTL = 5  # CoreDNS's default for the kubernetes plugin's records
SERVICE_NAME_LABEL = "kubernetes.io/service-name"
TOLERATE_UNREADY = "service.alpha.kubernetes.io/tolerate-unready-endpoints"

RRKey = tuple[dns.name.Name, dns.rdatatype.RdataType]  # (owner, rdtype)


@dataclass(frozen=True)
class Port:
    name: str
    port: int
    protocol: str  # lowercase: tcp, udp, sctp


@dataclass(frozen=True)
class ServiceInfo:
    namespace: str
    name: str
    cluster_ips: tuple[str, ...]  # empty: headless
    external_name: str  # an ExternalName Service's target
    ports: tuple[Port, ...]
    publish_not_ready: bool

    @classmethod
    def from_object(cls, svc: dict[str, Any]) -> ServiceInfo:
        meta, spec = svc.get("metadata") or {}, svc.get("spec") or {}
        ips = spec.get("clusterIPs") or ([spec["clusterIP"]] if spec.get("clusterIP") else [])
        external = (spec.get("externalName") or "") if spec.get("type") == "ExternalName" else ""
        annotations = meta.get("annotations") or {}
        return cls(
            meta.get("namespace", ""),
            meta.get("name", ""),
            tuple(ip for ip in ips if ip and ip != "None"),
            str(external).rstrip("."),
            _ports(spec.get("ports") or []),
            bool(spec.get("publishNotReadyAddresses")) or annotations.get(TOLERATE_UNREADY) == "true",
        )


@dataclass(frozen=True)
class EndpointInfo:
    addresses: tuple[str, ...]
    hostname: str
    ready: bool


@dataclass(frozen=True)
class SliceInfo:
    namespace: str
    service: str
    endpoints: tuple[EndpointInfo, ...]

    @classmethod
    def from_object(cls, obj: dict[str, Any]) -> SliceInfo | None:
        """None for a slice of no Service, or of FQDN addresses (no A records to make)."""
        meta = obj.get("metadata") or {}
        service = (meta.get("labels") or {}).get(SERVICE_NAME_LABEL, "")
        if not service or obj.get("addressType") not in ("IPv4", "IPv6"):
            return None
        endpoints = []
        for ep in obj.get("endpoints") or []:
            ready = (ep.get("conditions") or {}).get("ready")
            addresses = tuple(a for a in ep.get("addresses") or [] if _is_ip(a))
            endpoints.append(EndpointInfo(addresses, str(ep.get("hostname") or ""), ready is not False))
        return cls(meta.get("namespace", ""), service, tuple(endpoints))


@dataclass
class Zone:
    """The records of one cluster domain at one moment: rrsets by (owner, type), the names
    that exist (owners and their ancestors inside the zone: empty non-terminals answer NODATA,
    not NXDOMAIN), and PTR records by reverse name."""

    origin: dns.name.Name
    rrsets: dict[RRKey, dns.rrset.RRset] = field(default_factory=dict)
    names: set[dns.name.Name] = field(default_factory=set)
    ptr: dict[dns.name.Name, dns.rrset.RRset] = field(default_factory=dict)
    cnames: dict[dns.name.Name, dns.rrset.RRset] = field(default_factory=dict)

    def add(self, owner: dns.name.Name, rdtype: dns.rdatatype.RdataType, text: str) -> None:
        key = (owner, rdtype)
        rrset = self.rrsets.get(key)
        if rrset is None:
            rrset = self.rrsets[key] = dns.rrset.RRset(owner, dns.rdataclass.IN, rdtype)
            rrset.update_ttl(TTL)
            self._exists(owner)
        rrset.add(dns.rdata.from_text(dns.rdataclass.IN, rdtype, text), TTL)
        if rdtype == dns.rdatatype.CNAME:
            self.cnames[owner] = rrset

    def add_address(self, owner: dns.name.Name, ip: str) -> None:
        self.add(owner, dns.rdatatype.AAAA if ":" in ip else dns.rdatatype.A, ip)

    def add_ptr(self, ip: str, target: dns.name.Name) -> None:
        reverse = dns.reversename.from_address(ip)
        rrset = self.ptr.get(reverse)
        if rrset is None:
            rrset = self.ptr[reverse] = dns.rrset.RRset(reverse, dns.rdataclass.IN, dns.rdatatype.PTR)
        rrset.add(dns.rdata.from_text(dns.rdataclass.IN, dns.rdatatype.PTR, target.to_text()), TTL)

    def _exists(self, owner: dns.name.Name) -> None:
        name = owner
        while name != self.origin and name.is_subdomain(self.origin) and name not in self.names:
            self.names.add(name)
            name = name.parent()
        self.names.add(self.origin)

    def get(self, owner: dns.name.Name, rdtype: dns.rdatatype.RdataType) -> dns.rrset.RRset | None:
        return self.rrsets.get((owner, rdtype))


class ClusterRecords:
    """Services and EndpointSlices by key; ``zone()`` is their records for ``domain``."""

    def __init__(self, domain: str = "cluster.local") -> None:
        self.origin = dns.name.from_text(domain.rstrip(".").lower())
        self.generation = 0  # changes so far
        self._services: dict[tuple[str, str], ServiceInfo] = {}
        self._slices: dict[str, SliceInfo] = {}
        self._zone: Zone | None = None

    # -- informer input ---------------------------------------------------------------------

    def set_service(self, svc: dict[str, Any]) -> None:
        info = ServiceInfo.from_object(svc)
        key = (info.namespace, info.name)
        if self._services.get(key) != info:
            self._services[key] = info
            self._changed()

    def delete_service(self, namespace: str, name: str) -> None:
        if self._services.pop((namespace, name), None) is not None:
            self._changed()

    def set_slice(self, key: str, obj: dict[str, Any]) -> None:
        info = SliceInfo.from_object(obj)
        if info is None:
            self.delete_slice(key)
        elif self._slices.get(key) != info:
            self._slices[key] = info
            self._changed()

    def delete_slice(self, key: str) -> None:
        if self._slices.pop(key, None) is not None:
            self._changed()

    def _changed(self) -> None:
        self.generation += 1
        self._zone = None

    def service(self, namespace: str, name: str) -> ServiceInfo | None:
        return self._services.get((namespace, name))

    # -- the zone ---------------------------------------------------------------------------

    def zone(self) -> Zone:
        if self._zone is None:
            self._zone = self._build()
        return self._zone

    def _build(self) -> Zone:
        zone = Zone(self.origin)
        zone._exists(self.origin)
        for suffix in ("svc", "pod"):
            zone._exists(dns.name.Name((suffix.encode(),)).concatenate(self.origin))
        zone.add(dns.name.from_text("dns-version", self.origin), dns.rdatatype.TXT, f'"{SCHEMA_VERSION}"')
        endpoints = self._endpoints_by_service()
        for svc in self._services.values():
            owner = self.service_name(svc.namespace, svc.name)
            if svc.external_name:
                zone.add(owner, dns.rdatatype.CNAME, dns.name.from_text(svc.external_name).to_text())
            elif svc.cluster_ips:
                self._cluster_ip_records(zone, svc, owner)
            else:
                ready = [
                    e
                    for e in endpoints.get((svc.namespace, svc.name), [])
                    if e.ready or svc.publish_not_ready
                ]
                self._headless_records(zone, svc, owner, ready)
        return zone

    def service_name(self, namespace: str, name: str) -> dns.name.Name:
        labels = (name.lower().encode(), namespace.lower().encode(), b"svc")
        return dns.name.Name(labels).concatenate(self.origin)

    def _endpoints_by_service(self) -> dict[tuple[str, str], list[EndpointInfo]]:
        found: dict[tuple[str, str], list[EndpointInfo]] = {}
        for s in self._slices.values():
            found.setdefault((s.namespace, s.service), []).extend(s.endpoints)
        return found

    def _cluster_ip_records(self, zone: Zone, svc: ServiceInfo, owner: dns.name.Name) -> None:
        for ip in svc.cluster_ips:
            if _is_ip(ip):
                zone.add_address(owner, ip)
                zone.add_ptr(ip, owner)
        for port in _named(svc.ports):
            zone.add(_srv_owner(port, owner), dns.rdatatype.SRV, f"0 100 {port.port} {owner}")

    def _headless_records(
        self, zone: Zone, svc: ServiceInfo, owner: dns.name.Name, ready: list[EndpointInfo]
    ) -> None:
        targets: dict[dns.name.Name, None] = {}
        for ep in ready:
            for ip in ep.addresses:
                host = ep.hostname.lower() or _dashed(ip)
                target = dns.name.Name((host.encode(),)).concatenate(owner)
                zone.add_address(owner, ip)
                zone.add_address(target, ip)
                zone.add_ptr(ip, target)
                targets[target] = None
        ports = list(_named(svc.ports))
        weight = max(1, 100 // max(1, len(targets)))
        for port in ports:
            for target in targets:
                zone.add(_srv_owner(port, owner), dns.rdatatype.SRV, f"0 {weight} {port.port} {target}")


def _ports(ports: Iterable[dict[str, Any]]) -> tuple[Port, ...]:
    return tuple(
        Port(str(p.get("name") or ""), int(p.get("port") or 0), str(p.get("protocol") or "TCP").lower())
        for p in ports
        if isinstance(p, dict) and p.get("port")
    )


def _named(ports: Iterable[Port]) -> Iterator[Port]:
    return (p for p in ports if p.name)


def _srv_owner(port: Port, owner: dns.name.Name) -> dns.name.Name:
    return dns.name.Name((f"_{port.name.lower()}".encode(), f"_{port.protocol}".encode())).concatenate(owner)


def _dashed(ip: str) -> str:
    return ip.replace(".", "-").replace(":", "-")


def _is_ip(text: str) -> bool:
    try:
        ipaddress.ip_address(text)
    except ValueError:
        return False
    return True
