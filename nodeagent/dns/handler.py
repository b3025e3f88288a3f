"""From a query's bytes to a response's bytes (both transports): parse with dnspython, answer
from the cluster's records (``lookup``), encode within the transport's size, and cache the
encoded answer.

- Bytes that are not a DNS header (fewer than 12) or that claim to be a response are dropped;
  a header followed by anything dnspython cannot parse is answered FORMERR, as is a query
  with no question or more than one. Another opcode than QUERY is NOTIMP; another class than
  IN is REFUSED. Nothing raises out of ``handle``: whatever happens is an answer or a drop.
- UDP answers fit 512 bytes, or the EDNS payload size the query advertises; a larger one is
  truncated with the TC bit set (the client retries over TCP, where 65,535 bytes fit).
- The cache: answers from the cluster's records are kept by the query's bytes after its ID
  (flags, question, EDNS: everything the answer depends on, the question's letter case
  included, so it is echoed exactly) and the transport. A hit costs one dictionary lookup
  and the two bytes of the ID; the whole cache is dropped when the records change
  (``ClusterRecords.generation``). Forwarded answers are not cached (the upstream's TTLs
  are its own).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

import dns.edns
import dns.exception
import dns.flags
import dns.message
import dns.name
import dns.opcode
import dns.rcode
import dns.rdataclass
import dns.rdatatype
import dns.rrset

from nodeagent.dns.lookup import Result, lookup
from nodeagent.dns.records import ClusterRecords

log = logging.getLogger("dns")

HEADER = 12
UDP_DEFAULT = 512
TCP_MAX = 65535
OUR_PAYLOAD = 1232  # the EDNS buffer size we advertise (DNS flag day 2020)
CACHE_ENTRIES = 10_000

# an upstream resolver: (the query, over TCP?) -> its response, or None when none answered
Forward = Callable[[dns.message.Message, bool], Awaitable[dns.message.Message | None]]


@dataclass(frozen=True)
class Reply:
    """An encoded response (without the ID's two bytes when cached) and what metrics count."""

    wire: bytes
    qtype: str
    rcode: str


class QueryHandler:
    """Answers queries from ``records``; names it does not own go to ``forward`` (None:
    REFUSED, as a server with no plugin for the zone)."""

    def __init__(
        self, records: ClusterRecords, forward: Forward | None = None, cache_entries: int = CACHE_ENTRIES
    ) -> None:
        """``cache_entries`` 0 turns the answer cache off (the benchmark's cold path)."""
        self.records = records
        self.forward = forward
        self.cache_entries = cache_entries
        self._cache: dict[tuple[bool, bytes], Reply] = {}
        self._generation = -1
        self._serial = int(time.time())
        self.cache_hits = 0
        self.cache_misses = 0

    def cached(self, data: bytes, tcp: bool) -> Reply | None:
        """The cached answer to ``data`` (the hot path), or None."""
        if self._generation != self.records.generation:
            return None
        found = self._cache.get((tcp, data[2:]))
        if found is not None:
            self.cache_hits += 1
        return found

    async def handle(self, data: bytes, tcp: bool) -> Reply | None:
        """The answer to ``data`` (its ID in place), or None to drop it."""
        hit = self.cached(data, tcp)
        if hit is not None:
            return Reply(data[:2] + hit.wire, hit.qtype, hit.rcode)
        self.cache_misses += 1
        if len(data) < HEADER or data[2] & 0x80:  # no header, or a response (QR set)
            return None
        try:
            query = dns.message.from_wire(data)
        except Exception:
            return _formerr(data)
        try:
            return await self._answer(query, data, tcp)
        except Exception:  # a bug in a branch must cost one answer, not the server
            log.exception("dns: cannot answer %s", query.question)
            return _encode(_response(query, dns.rcode.SERVFAIL), tcp, query, "SERVFAIL")

    async def _answer(self, query: dns.message.Message, data: bytes, tcp: bool) -> Reply:
        qtype = dns.rdatatype.to_text(query.question[0].rdtype) if len(query.question) == 1 else ""
        if query.opcode() != dns.opcode.QUERY:
            return _encode(_response(query, dns.rcode.NOTIMP), tcp, query, qtype)
        if len(query.question) != 1:
            return _encode(_response(query, dns.rcode.FORMERR), tcp, query, qtype)
        question = query.question[0]
        if question.rdclass != dns.rdataclass.IN:
            return _encode(_response(query, dns.rcode.REFUSED), tcp, query, qtype)
        generation = self.records.generation
        result = lookup(self.records.zone(), question.name, question.rdtype, self._serial_for(generation))
        if result.forward:
            return await self._forwarded(query, tcp, qtype)
        response = _response(query, result.rcode)
        _fill(response, result)
        if result.chase is not None and self.forward is not None:
            await self._chase(response, result.chase, question.rdtype, tcp)
            return _encode(response, tcp, query, qtype)
        reply = _encode(response, tcp, query, qtype)
        self._store(generation, data, tcp, reply)
        return reply

    def _serial_for(self, generation: int) -> int:
        if generation != self._generation:
            self._serial = max(self._serial + 1, int(time.time()))
        return self._serial

    def _store(self, generation: int, data: bytes, tcp: bool, reply: Reply) -> None:
        if generation != self._generation:
            self._cache.clear()
            self._generation = generation
        if not self.cache_entries:
            return
        if len(self._cache) >= self.cache_entries:
            self._cache.clear()
        self._cache[(tcp, data[2:])] = Reply(reply.wire[2:], reply.qtype, reply.rcode)

    async def _forwarded(self, query: dns.message.Message, tcp: bool, qtype: str) -> Reply:
        if self.forward is None:
            return _encode(_response(query, dns.rcode.REFUSED), tcp, query, qtype)
        upstream = await self.forward(query, tcp)
        if upstream is None:
            return _encode(_response(query, dns.rcode.SERVFAIL), tcp, query, qtype)
        upstream.id = query.id
        return _encode(upstream, tcp, query, qtype)

    async def _chase(
        self, response: dns.message.Message, target: dns.name.Name, rdtype: dns.rdatatype.RdataType, tcp: bool
    ) -> None:
        """An ExternalName's target resolved upstream, its records after the CNAME (as
        CoreDNS's kubernetes plugin does through its upstream)."""
        assert self.forward is not None
        upstream = await self.forward(dns.message.make_query(target, rdtype), tcp)
        if upstream is not None:
            response.answer += upstream.answer
            response.set_rcode(upstream.rcode())


def _response(query: dns.message.Message, rcode: dns.rcode.Rcode) -> dns.message.Message:
    response = dns.message.make_response(query, recursion_available=True, our_payload=OUR_PAYLOAD)
    response.set_rcode(rcode)
    return response


def _fill(response: dns.message.Message, result: Result) -> None:
    response.answer = list(result.answer)
    response.authority = list(result.authority)
    response.additional = list(result.additional)
    if result.authoritative:
        response.flags |= dns.flags.AA


def _encode(response: dns.message.Message, tcp: bool, query: dns.message.Message, qtype: str) -> Reply:
    wire = response.to_wire(max_size=_max_size(query, tcp), prefer_truncation=True)
    return Reply(wire, qtype, dns.rcode.to_text(response.rcode()))


def _max_size(query: dns.message.Message, tcp: bool) -> int:
    if tcp:
        return TCP_MAX
    if query.edns >= 0:
        return max(UDP_DEFAULT, min(query.payload, TCP_MAX))
    return UDP_DEFAULT


def _formerr(data: bytes) -> Reply | None:
    """FORMERR for a header followed by something dnspython could not parse: the header's ID
    and opcode, no question (the question could not be read)."""
    response = dns.message.Message(id=int.from_bytes(data[:2], "big"))
    response.flags = dns.flags.QR | (int.from_bytes(data[2:4], "big") & 0x7800)  # keep the opcode
    response.set_rcode(dns.rcode.FORMERR)
    try:
        return Reply(response.to_wire(), "", "FORMERR")
    except dns.exception.DNSException:
        return None
