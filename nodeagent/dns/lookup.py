"""One question against the cluster's records (``Zone``): what to answer, or that the question
belongs to the upstream resolver. Pure logic, no network; CoreDNS's ``kubernetes`` plugin
behaviour:

- a name of the cluster domain that exists: its records of the asked type (NOERROR), or none
  (NODATA: NOERROR, empty answer, the zone's SOA in authority; glibc asks for AAAA beside A);
  a CNAME (ExternalName) answers every type, followed once when its target is in the zone;
- ``<a-b-c-d>.<ns>.pod.<zone>``: A of ``a.b.c.d`` for any namespace (CoreDNS ``pods
  insecure``, the mode kubeadm's Corefile sets);
- a name of the cluster domain that does not exist: NXDOMAIN with the SOA in authority;
- reverse names (``in-addr.arpa``, ``ip6.arpa``): the PTR of a ClusterIP or endpoint address,
  else the upstream's (CoreDNS ``fallthrough in-addr.arpa ip6.arpa``), except loopback's
  ``127.in-addr.arpa``, answered here (NXDOMAIN) and never sent off the machine;
- ``localhost`` (RFC 6761): 127.0.0.1 and ::1, answered here;
- a single-label name (``web.``, what the search path tries last): NXDOMAIN here, not
  forwarded (a deviation: CoreDNS forwards it; no public name has one label, and a typo of a
  Service name would otherwise be sent off the machine);
- every other name: the upstream resolver's (``forward . /etc/resolv.conf``).
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass, field

import dns.name
import dns.rcode
import dns.rdata
import dns.rdataclass
import dns.rdatatype
import dns.rrset

from nodeagent.dns.records import TTL, Zone

REVERSE_V4 = dns.name.from_text("in-addr.arpa")
REVERSE_V6 = dns.name.from_text("ip6.arpa")
LOOPBACK_REVERSE = dns.name.from_text("127.in-addr.arpa")
LOCALHOST = dns.name.from_text("localhost")
SOA_TIMERS = "7200 1800 86400 5"  # refresh retry expire minimum, as CoreDNS


@dataclass
class Result:
    """What to answer: ``forward`` sends the question upstream instead; ``chase`` is a CNAME
    target outside the zone whose records the server may add from upstream."""

    rcode: dns.rcode.Rcode = dns.rcode.NOERROR
    answer: list[dns.rrset.RRset] = field(default_factory=list)
    authority: list[dns.rrset.RRset] = field(default_factory=list)
    additional: list[dns.rrset.RRset] = field(default_factory=list)
    authoritative: bool = True
    forward: bool = False
    chase: dns.name.Name | None = None


def lookup(zone: Zone, qname: dns.name.Name, rdtype: dns.rdatatype.RdataType, serial: int = 1) -> Result:
    """The answer to ``qname``/``rdtype`` (class IN) from ``zone``."""
    qname = _lower(qname)
    if qname.is_subdomain(zone.origin):
        return _in_zone(zone, qname, rdtype, serial)
    if qname.is_subdomain(REVERSE_V4) or qname.is_subdomain(REVERSE_V6):
        return _reverse(zone, qname, rdtype)
    if qname == LOCALHOST:
        return _localhost(rdtype)
    if len(qname.labels) <= 2:  # one label and the root: no public name, never forwarded
        return Result(dns.rcode.NXDOMAIN, authoritative=False)
    return Result(forward=True, authoritative=False)


def _localhost(rdtype: dns.rdatatype.RdataType) -> Result:
    addresses = {dns.rdatatype.A: "127.0.0.1", dns.rdatatype.AAAA: "::1"}
    if rdtype not in addresses:
        return Result()
    rrset = dns.rrset.RRset(LOCALHOST, dns.rdataclass.IN, rdtype)
    rrset.add(dns.rdata.from_text(dns.rdataclass.IN, rdtype, addresses[rdtype]), TTL)
    return Result(answer=[rrset])


def soa(zone: Zone, serial: int) -> dns.rrset.RRset:
    origin = zone.origin
    text = f"ns.dns.{origin} hostmaster.{origin} {serial} {SOA_TIMERS}"
    rrset = dns.rrset.RRset(origin, dns.rdataclass.IN, dns.rdatatype.SOA)
    rrset.add(dns.rdata.from_text(dns.rdataclass.IN, dns.rdatatype.SOA, text), TTL)
    return rrset


def _in_zone(zone: Zone, qname: dns.name.Name, rdtype: dns.rdatatype.RdataType, serial: int) -> Result:
    if qname == zone.origin and rdtype == dns.rdatatype.SOA:
        return Result(answer=[soa(zone, serial)])
    pod = _pod_address(zone, qname)
    if pod is not None:
        return _pod(zone, qname, rdtype, pod, serial)
    if qname not in zone.names:
        return Result(dns.rcode.NXDOMAIN, authority=[soa(zone, serial)])
    cname = zone.cnames.get(qname)
    if cname is not None and rdtype != dns.rdatatype.CNAME:
        return _cname(zone, cname, rdtype)
    found = _records(zone, qname, rdtype)
    if not found:
        return Result(authority=[soa(zone, serial)])
    return Result(answer=found, additional=_srv_additional(zone, found))


def _records(zone: Zone, qname: dns.name.Name, rdtype: dns.rdatatype.RdataType) -> list[dns.rrset.RRset]:
    if rdtype == dns.rdatatype.ANY:
        return [r for (owner, _), r in zone.rrsets.items() if owner == qname]
    found = zone.get(qname, rdtype)
    return [found] if found is not None else []


def _cname(zone: Zone, cname: dns.rrset.RRset, rdtype: dns.rdatatype.RdataType) -> Result:
    target = _lower(next(iter(cname)).target)  # type: ignore[attr-defined]
    result = Result(answer=[cname])
    if target.is_subdomain(zone.origin):
        result.answer += _records(zone, target, rdtype)
    elif rdtype in (dns.rdatatype.A, dns.rdatatype.AAAA):
        result.chase = target
    return result


def _srv_additional(zone: Zone, answer: list[dns.rrset.RRset]) -> list[dns.rrset.RRset]:
    """The address records of SRV targets (the specification's optional Additional section)."""
    extra: list[dns.rrset.RRset] = []
    for rrset in answer:
        if rrset.rdtype != dns.rdatatype.SRV:
            continue
        for rdata in rrset:
            for rdtype in (dns.rdatatype.A, dns.rdatatype.AAAA):
                found = zone.get(rdata.target, rdtype)  # type: ignore[attr-defined]
                if found is not None and found not in extra:
                    extra.append(found)
    return extra


def _pod_address(zone: Zone, qname: dns.name.Name) -> str | None:
    """``a.b.c.d`` for ``a-b-c-d.<ns>.pod.<zone>`` (IPv6: the address with ``-`` for ``:``)."""
    relative = qname.relativize(zone.origin).labels
    if len(relative) != 3 or relative[2] != b"pod":
        return None
    dashed = relative[0].decode("ascii", "replace")
    for text in (dashed.replace("-", "."), dashed.replace("-", ":")):
        try:
            return str(ipaddress.ip_address(text))
        except ValueError:
            continue
    return None


def _pod(zone: Zone, qname: dns.name.Name, rdtype: dns.rdatatype.RdataType, ip: str, serial: int) -> Result:
    family = dns.rdatatype.AAAA if ":" in ip else dns.rdatatype.A
    if rdtype not in (family, dns.rdatatype.ANY):
        return Result(authority=[soa(zone, serial)])
    rrset = dns.rrset.RRset(qname, dns.rdataclass.IN, family)
    rrset.add(dns.rdata.from_text(dns.rdataclass.IN, family, ip), TTL)
    return Result(answer=[rrset])


def _reverse(zone: Zone, qname: dns.name.Name, rdtype: dns.rdatatype.RdataType) -> Result:
    found = zone.ptr.get(qname)
    if found is not None:
        if rdtype in (dns.rdatatype.PTR, dns.rdatatype.ANY):
            return Result(answer=[found])
        return Result()
    if qname.is_subdomain(LOOPBACK_REVERSE):
        return Result(dns.rcode.NXDOMAIN)
    return Result(forward=True, authoritative=False)


def _lower(name: dns.name.Name) -> dns.name.Name:
    if all(label == label.lower() for label in name.labels):
        return name  # already lowercase (most questions): no new Name
    return dns.name.Name(label.lower() for label in name.labels)
