"""The record logic, table-driven, no network: each question against ``fixtures.cluster()``."""

from __future__ import annotations

import dns.name
import dns.rcode
import dns.rdatatype
import pytest

from nodeagent.dns.lookup import Result, lookup
from nodeagent.dns.records import ClusterRecords
from tests.nodeagent.dns.fixtures import cluster, endpoint, endpoint_slice, service

NOERROR, NXDOMAIN = dns.rcode.NOERROR, dns.rcode.NXDOMAIN


def ask(records: ClusterRecords, name: str, rdtype: str) -> Result:
    return lookup(records.zone(), dns.name.from_text(name), dns.rdatatype.from_text(rdtype))


def answers(result: Result) -> list[str]:
    """Each answer record as ``<owner> <TYPE> <rdata>``, sorted."""
    return sorted(
        f"{rrset.name} {dns.rdatatype.to_text(rrset.rdtype)} {rdata}"
        for rrset in result.answer
        for rdata in rrset
    )


ZONE = "svc.cluster.local."
CASES = [
    # (question, type, rcode, answers)
    ("web.default.svc.cluster.local", "A", NOERROR, [f"web.default.{ZONE} A 127.96.0.20"]),
    ("WEB.Default.svc.cluster.local", "A", NOERROR, [f"web.default.{ZONE} A 127.96.0.20"]),
    ("web.default.svc.cluster.local", "AAAA", NOERROR, []),  # NODATA: glibc asks AAAA beside A
    ("web.default.svc.cluster.local", "TXT", NOERROR, []),
    (
        "_http._tcp.web.default.svc.cluster.local",
        "SRV",
        NOERROR,
        [f"_http._tcp.web.default.{ZONE} SRV 0 100 80 web.default.{ZONE}"],
    ),
    (
        "_metrics._udp.web.default.svc.cluster.local",
        "SRV",
        NOERROR,
        [f"_metrics._udp.web.default.{ZONE} SRV 0 100 9090 web.default.{ZONE}"],
    ),
    ("_metrics._tcp.web.default.svc.cluster.local", "SRV", NXDOMAIN, []),  # wrong protocol
    ("nosuch.default.svc.cluster.local", "A", NXDOMAIN, []),
    ("web.other.svc.cluster.local", "A", NXDOMAIN, []),
    ("default.svc.cluster.local", "A", NOERROR, []),  # an empty non-terminal exists
    ("svc.cluster.local", "A", NOERROR, []),
    ("web.default.svc.cluster.local.default.svc.cluster.local", "A", NXDOMAIN, []),  # ndots:5 search
    (
        "db.default.svc.cluster.local",
        "A",
        NOERROR,
        [f"db.default.{ZONE} A 127.1.0.2", f"db.default.{ZONE} A 127.1.0.3"],  # not the unready one
    ),
    ("db-0.db.default.svc.cluster.local", "A", NOERROR, [f"db-0.db.default.{ZONE} A 127.1.0.2"]),
    ("127-1-0-3.db.default.svc.cluster.local", "A", NOERROR, [f"127-1-0-3.db.default.{ZONE} A 127.1.0.3"]),
    ("db-2.db.default.svc.cluster.local", "A", NXDOMAIN, []),  # not ready
    (
        "_pg._tcp.db.default.svc.cluster.local",
        "SRV",
        NOERROR,
        [
            f"_pg._tcp.db.default.{ZONE} SRV 0 50 5432 127-1-0-3.db.default.{ZONE}",
            f"_pg._tcp.db.default.{ZONE} SRV 0 50 5432 db-0.db.default.{ZONE}",
        ],
    ),
    ("tolerant.default.svc.cluster.local", "A", NOERROR, [f"tolerant.default.{ZONE} A 127.1.0.9"]),
    ("empty.default.svc.cluster.local", "A", NXDOMAIN, []),  # the spec: no ready endpoints
    ("ext.default.svc.cluster.local", "CNAME", NOERROR, [f"ext.default.{ZONE} CNAME www.example.com."]),
    ("ext.default.svc.cluster.local", "AAAA", NOERROR, [f"ext.default.{ZONE} CNAME www.example.com."]),
    (
        "inner.default.svc.cluster.local",
        "A",
        NOERROR,
        [f"inner.default.{ZONE} CNAME web.default.{ZONE}", f"web.default.{ZONE} A 127.96.0.20"],
    ),
    (
        "127-1-0-5.default.pod.cluster.local",
        "A",
        NOERROR,
        ["127-1-0-5.default.pod.cluster.local. A 127.1.0.5"],
    ),
    (
        "127-1-0-5.anything.pod.cluster.local",
        "A",
        NOERROR,
        ["127-1-0-5.anything.pod.cluster.local. A 127.1.0.5"],
    ),
    ("127-1-0-5.default.pod.cluster.local", "AAAA", NOERROR, []),
    ("not-an-ip.default.pod.cluster.local", "A", NXDOMAIN, []),
    ("dns-version.cluster.local", "TXT", NOERROR, ['dns-version.cluster.local. TXT "1.1.0"']),
    ("20.0.96.127.in-addr.arpa", "PTR", NOERROR, [f"20.0.96.127.in-addr.arpa. PTR web.default.{ZONE}"]),
    ("2.0.1.127.in-addr.arpa", "PTR", NOERROR, [f"2.0.1.127.in-addr.arpa. PTR db-0.db.default.{ZONE}"]),
    ("99.0.1.127.in-addr.arpa", "PTR", NXDOMAIN, []),  # loopback's reverse zone never leaves the host
    ("web", "A", NXDOMAIN, []),  # the search path's last try: one label, never forwarded
    ("localhost", "A", NOERROR, ["localhost. A 127.0.0.1"]),
    ("localhost", "AAAA", NOERROR, ["localhost. AAAA ::1"]),
]


@pytest.mark.parametrize(("name", "rdtype", "rcode", "expected"), CASES)
def test_answers(name: str, rdtype: str, rcode: dns.rcode.Rcode, expected: list[str]) -> None:
    result = ask(cluster(), name, rdtype)
    assert not result.forward
    assert (result.rcode, answers(result)) == (rcode, sorted(expected))


@pytest.mark.parametrize(
    ("name", "rdtype"),
    [
        ("nosuch.default.svc.cluster.local", "A"),
        ("web.default.svc.cluster.local", "AAAA"),
        ("127-1-0-5.default.pod.cluster.local", "AAAA"),
    ],
)
def test_nxdomain_and_nodata_carry_the_zone_soa(name: str, rdtype: str) -> None:
    [soa] = ask(cluster(), name, rdtype).authority
    assert soa.rdtype == dns.rdatatype.SOA and str(soa.name) == "cluster.local."
    assert str(next(iter(soa))).startswith("ns.dns.cluster.local. hostmaster.cluster.local.")


@pytest.mark.parametrize(
    ("name", "rdtype"), [("example.com", "A"), ("kubernetes.io", "AAAA"), ("4.3.2.10.in-addr.arpa", "PTR")]
)
def test_names_outside_the_cluster_are_forwarded(name: str, rdtype: str) -> None:
    assert ask(cluster(), name, rdtype).forward


def test_external_name_target_outside_the_zone_is_chased_upstream() -> None:
    result = ask(cluster(), "ext.default.svc.cluster.local", "A")
    assert str(result.chase) == "www.example.com."


def test_srv_answers_carry_their_targets_addresses() -> None:
    result = ask(cluster(), "_pg._tcp.db.default.svc.cluster.local", "SRV")
    assert sorted(str(r.name) for r in result.additional) == [
        f"127-1-0-3.db.default.{ZONE}",
        f"db-0.db.default.{ZONE}",
    ]


def test_changes_rebuild_the_zone_and_count_a_generation() -> None:
    records = cluster()
    before = records.generation
    records.set_service(service("web", cluster_ip="127.96.0.30"))
    assert records.generation == before + 1
    assert answers(ask(records, "web.default.svc.cluster.local", "A")) == [
        f"web.default.{ZONE} A 127.96.0.30"
    ]
    records.set_service(service("web", cluster_ip="127.96.0.30"))  # the same again: no change
    assert records.generation == before + 1
    records.delete_service("default", "web")
    assert ask(records, "web.default.svc.cluster.local", "A").rcode == NXDOMAIN


def test_endpoints_follow_their_slices() -> None:
    records = cluster()
    records.set_slice("default/db-abc", endpoint_slice("db-abc", "db", [endpoint("127.1.0.7", "db-0")]))
    records.set_slice("default/db-def", endpoint_slice("db-def", "db", [endpoint("127.1.0.8", ready=None)]))
    assert answers(ask(records, "db.default.svc.cluster.local", "A")) == [
        f"db.default.{ZONE} A 127.1.0.7",
        f"db.default.{ZONE} A 127.1.0.8",  # readiness unknown counts as ready
    ]
    records.delete_slice("default/db-abc")
    records.delete_slice("default/db-def")
    assert ask(records, "db.default.svc.cluster.local", "A").rcode == NXDOMAIN


def test_slices_of_no_service_and_fqdn_slices_make_no_records() -> None:
    records = ClusterRecords()
    records.set_service(service("db", cluster_ip="None"))
    orphan = endpoint_slice("x", "db", [endpoint("127.1.0.2")])
    del orphan["metadata"]["labels"]
    records.set_slice("default/x", orphan)
    fqdn = {**endpoint_slice("y", "db", [{"addresses": ["example.com"]}]), "addressType": "FQDN"}
    records.set_slice("default/y", fqdn)
    assert ask(records, "db.default.svc.cluster.local", "A").rcode == NXDOMAIN


def test_another_cluster_domain() -> None:
    records = ClusterRecords("k8s.test.")
    records.set_service(service("web"))
    assert answers(ask(records, "web.default.svc.k8s.test", "A")) == [
        "web.default.svc.k8s.test. A 127.96.0.20"
    ]
    assert ask(records, "web.default.svc.cluster.local", "A").forward
