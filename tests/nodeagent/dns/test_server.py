"""The server over real loopback UDP and TCP, asked with dnspython's client: answers, TCP,
truncation and EDNS, malformed packets, the answer cache, forwarding to an upstream (a small
server of the test's own on loopback)."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import AsyncIterator

import dns.asyncquery
import dns.flags
import dns.message
import dns.opcode
import dns.rcode
import dns.rdatatype
import dns.rrset
import pytest

from nodeagent.dns.forward import Forwarder
from nodeagent.dns.handler import QueryHandler
from nodeagent.dns.records import ClusterRecords
from nodeagent.dns.server import DNSServer
from tests.nodeagent.dns.fixtures import cluster, endpoint, endpoint_slice, service

HOST = "127.0.0.1"


@pytest.fixture
async def server() -> AsyncIterator[DNSServer]:
    s = DNSServer(QueryHandler(cluster()), HOST, 0)
    await s.start()
    yield s
    await s.close()


async def udp(server: DNSServer, name: str, rdtype: str = "A", **kw: object) -> dns.message.Message:
    query = dns.message.make_query(name, rdtype, **kw)  # type: ignore[arg-type]
    return await dns.asyncquery.udp(query, HOST, port=server.port, timeout=2)


async def raw_udp(port: int, data: bytes) -> bytes | None:
    """Send ``data``; the answer, or None when the server sent nothing back (it was dropped:
    the next, valid query's answer arrives first)."""
    loop = asyncio.get_running_loop()
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sock.setblocking(False)
    try:
        sock.connect((HOST, port))
        await loop.sock_sendall(sock, data)
        probe = dns.message.make_query("web.default.svc.cluster.local", "A")
        await loop.sock_sendall(sock, probe.to_wire())
        first = await asyncio.wait_for(loop.sock_recv(sock, 65535), 2)
        return None if first[:2] == probe.to_wire()[:2] else first
    finally:
        sock.close()


async def test_answers_over_udp(server: DNSServer) -> None:
    response = await udp(server, "web.default.svc.cluster.local")
    assert response.rcode() == dns.rcode.NOERROR
    assert response.flags & dns.flags.AA
    assert [str(r) for r in response.answer[0]] == ["127.96.0.20"]


async def test_answers_over_tcp_several_per_connection(server: DNSServer) -> None:
    reader, writer = await asyncio.open_connection(HOST, server.port)
    try:
        for name in ("web.default.svc.cluster.local", "db.default.svc.cluster.local"):
            wire = dns.message.make_query(name, "A").to_wire()
            writer.write(len(wire).to_bytes(2, "big") + wire)
            size = int.from_bytes(await reader.readexactly(2), "big")
            response = dns.message.from_wire(await reader.readexactly(size))
            assert response.rcode() == dns.rcode.NOERROR and response.answer
    finally:
        writer.close()


async def test_nxdomain_has_the_soa(server: DNSServer) -> None:
    response = await udp(server, "nosuch.default.svc.cluster.local")
    assert response.rcode() == dns.rcode.NXDOMAIN
    assert response.authority[0].rdtype == dns.rdatatype.SOA


async def test_a_large_answer_is_truncated_on_udp_and_whole_on_tcp() -> None:
    records = ClusterRecords()
    records.set_service(service("big", cluster_ip="None"))
    many = [endpoint(f"127.1.{i // 250}.{i % 250 + 1}") for i in range(100)]  # 100 A records: ~1.6 KB
    records.set_slice("default/big-1", endpoint_slice("big-1", "big", many))
    server = DNSServer(QueryHandler(records), HOST, 0)
    await server.start()
    try:
        query = dns.message.make_query("big.default.svc.cluster.local", "A")
        truncated = await dns.asyncquery.udp(query, HOST, port=server.port, timeout=2, ignore_trailing=True)
        assert truncated.flags & dns.flags.TC
        assert len(truncated.to_wire()) <= 512
        whole = await dns.asyncquery.tcp(query, HOST, port=server.port, timeout=2)
        assert not whole.flags & dns.flags.TC and len(whole.answer[0]) == 100
        # EDNS with a 4096-byte buffer: the whole answer fits in one datagram
        edns = dns.message.make_query("big.default.svc.cluster.local", "A", use_edns=0, payload=4096)
        large = await dns.asyncquery.udp(edns, HOST, port=server.port, timeout=2)
        assert not large.flags & dns.flags.TC and len(large.answer[0]) == 100
        assert large.edns == 0
    finally:
        await server.close()


@pytest.mark.parametrize(
    "packet",
    [
        b"\x12\x34\x01\x00\x00\x01\x00\x00\x00\x00\x00\x00\x07examp",  # question cut short
        b"\x12\x34\x01\x00\x00\x01\x00\x00\x00\x00\x00\x00\xc0\x0c\x00\x01\x00\x01",  # a pointer loop
        b"\x12\x34\x01\x00\x00\x05\x00\x00\x00\x00\x00\x00",  # five questions promised, none there
    ],
)
async def test_malformed_packets_get_formerr(server: DNSServer, packet: bytes) -> None:
    answer = await raw_udp(server.port, packet)
    assert answer is not None
    response = dns.message.from_wire(answer)
    assert response.id == 0x1234 and response.rcode() == dns.rcode.FORMERR


@pytest.mark.parametrize("packet", [b"", b"\x01", b"\x12\x34\x81\x80" + bytes(8)])  # no header; a response
async def test_what_is_no_query_is_dropped_and_the_server_keeps_serving(
    server: DNSServer, packet: bytes
) -> None:
    assert await raw_udp(server.port, packet) is None
    assert (await udp(server, "web.default.svc.cluster.local")).answer


async def test_two_questions_are_formerr_and_other_classes_refused(server: DNSServer) -> None:
    query = dns.message.make_query("web.default.svc.cluster.local", "A")
    query.question.append(query.question[0])
    answer = await raw_udp(server.port, query.to_wire())
    assert answer is not None and dns.message.from_wire(answer).rcode() == dns.rcode.FORMERR
    chaos = await udp(server, "version.bind", "TXT", rdclass="CH")
    assert chaos.rcode() == dns.rcode.REFUSED


async def test_not_a_query_opcode_is_notimp(server: DNSServer) -> None:
    query = dns.message.make_query("web.default.svc.cluster.local", "A")
    query.set_opcode(dns.opcode.NOTIFY)
    response = await dns.asyncquery.udp(query, HOST, port=server.port, timeout=2)
    assert response.rcode() == dns.rcode.NOTIMP


async def test_cached_answers_follow_changes_and_echo_the_question(server: DNSServer) -> None:
    records = server.handler.records
    assert [str(r) for r in (await udp(server, "web.default.svc.cluster.local")).answer[0]] == ["127.96.0.20"]
    hits = server.handler.cache_hits
    again = await udp(server, "web.default.svc.cluster.local")
    assert server.handler.cache_hits == hits + 1 and [str(r) for r in again.answer[0]] == ["127.96.0.20"]
    records.set_service(service("web", cluster_ip="127.96.0.21"))
    assert [str(r) for r in (await udp(server, "web.default.svc.cluster.local")).answer[0]] == ["127.96.0.21"]
    mixed = await udp(server, "WeB.default.svc.cluster.local")  # 0x20 letter case: echoed as asked
    assert str(mixed.question[0].name) == "WeB.default.svc.cluster.local."


class Upstream(asyncio.DatagramProtocol):
    """A resolver of the test's own: ``example.com`` A 192.0.2.1 (never dialled: it is data),
    everything else NXDOMAIN; counts what it is asked."""

    def __init__(self) -> None:
        self.asked: list[str] = []
        self.transport: asyncio.DatagramTransport | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]

    def datagram_received(self, data: bytes, addr: tuple[str, int]) -> None:
        query = dns.message.from_wire(data)
        name = str(query.question[0].name)
        self.asked.append(name)
        response = dns.message.make_response(query)
        if name == "www.example.com.":
            response.answer.append(dns.rrset.from_text(name, 60, "IN", "A", "192.0.2.1"))
        else:
            response.set_rcode(dns.rcode.NXDOMAIN)
        assert self.transport is not None
        self.transport.sendto(response.to_wire(), addr)


async def test_names_outside_the_cluster_go_upstream() -> None:
    loop = asyncio.get_running_loop()
    upstream = Upstream()
    transport, _ = await loop.create_datagram_endpoint(lambda: upstream, local_addr=(HOST, 0))
    port = transport.get_extra_info("sockname")[1]
    server = DNSServer(QueryHandler(cluster(), Forwarder([(HOST, port)])), HOST, 0)
    await server.start()
    try:
        response = await udp(server, "www.example.com")
        assert [str(r) for r in response.answer[0]] == ["192.0.2.1"] and not response.flags & dns.flags.AA
        missing = await udp(server, "nosuch.example.com")
        assert missing.rcode() == dns.rcode.NXDOMAIN
        # an ExternalName is its CNAME, then the target's records from upstream
        ext = await udp(server, "ext.default.svc.cluster.local")
        assert [rrset.rdtype for rrset in ext.answer] == [dns.rdatatype.CNAME, dns.rdatatype.A]
        assert upstream.asked == ["www.example.com.", "nosuch.example.com.", "www.example.com."]
        # cluster names never leave the server
        await udp(server, "web.default.svc.cluster.local")
        assert len(upstream.asked) == 3
    finally:
        await server.close()
        transport.close()


async def test_no_upstream_answering_is_servfail_and_none_configured_refused() -> None:
    closed = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    closed.bind((HOST, 0))
    port = closed.getsockname()[1]
    closed.close()  # nothing listens there: refused (ICMP) or timed out, both failures
    server = DNSServer(QueryHandler(cluster(), Forwarder([(HOST, port)], timeout=0.5)), HOST, 0)
    alone = DNSServer(QueryHandler(cluster()), HOST, 0)
    await server.start()
    await alone.start()
    try:
        assert (await udp(server, "www.example.com")).rcode() == dns.rcode.SERVFAIL
        assert (await udp(alone, "www.example.com")).rcode() == dns.rcode.REFUSED
    finally:
        await server.close()
        await alone.close()
