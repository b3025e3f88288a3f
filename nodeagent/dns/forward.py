"""The upstream resolvers names outside the cluster go to (CoreDNS ``forward . /etc/resolv.conf``):
the nameservers of the host's resolv.conf, or ``--upstream`` addresses. Each is tried in turn
(2 s each); a UDP answer with TC set is asked again over TCP. None answering is SERVFAIL
for the client (the handler's business)."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from pathlib import Path

import dns.asyncquery
import dns.exception
import dns.flags
import dns.message

from nodeagent.runtime.resolvconf import parse_resolv_conf

log = logging.getLogger("dns")

TIMEOUT = 2.0
Upstream = tuple[str, int]


def parse_host_port(text: str, default_port: int) -> tuple[str, int]:
    """``HOST``, ``HOST:PORT``, ``V6`` or ``[V6]:PORT``; ValueError when it is neither."""
    host, port_text = text, str(default_port)
    if text.startswith("["):
        host, _, rest = text[1:].partition("]")
        port_text = rest[1:] if rest.startswith(":") else port_text
    elif text.count(":") == 1:
        host, _, port_text = text.partition(":")
    if not host or not port_text.isdigit() or int(port_text) > 65535:
        raise ValueError(f"invalid address {text!r} (want HOST[:PORT])")
    return host, int(port_text)


def parse_upstream(text: str) -> Upstream:
    host, port = parse_host_port(text, 53)
    if port == 0:
        raise ValueError(f"invalid upstream {text!r} (port 0)")
    return host, port


def upstreams_from_resolv_conf(path: Path) -> list[Upstream]:
    """The nameservers of ``path`` on port 53 (none when it cannot be read)."""
    try:
        text = path.read_text()
    except OSError as err:
        log.warning("dns: cannot read %s (%s): names outside the cluster are refused", path, err)
        return []
    return [(server, 53) for server in parse_resolv_conf(text).servers]


class Forwarder:
    """Sends a query to the first of ``upstreams`` that answers."""

    def __init__(self, upstreams: Sequence[Upstream], timeout: float = TIMEOUT) -> None:
        self.upstreams = list(upstreams)
        self.timeout = timeout
        self.requests = 0
        self.failures = 0

    async def __call__(self, query: dns.message.Message, tcp: bool) -> dns.message.Message | None:
        for host, port in self.upstreams:
            self.requests += 1
            try:
                if tcp:
                    return await dns.asyncquery.tcp(query, host, timeout=self.timeout, port=port)
                response = await dns.asyncquery.udp(query, host, timeout=self.timeout, port=port)
                if response.flags & dns.flags.TC:
                    return await dns.asyncquery.tcp(query, host, timeout=self.timeout, port=port)
                return response
            except (dns.exception.DNSException, OSError, EOFError) as err:
                self.failures += 1
                log.debug("dns: upstream %s:%d failed: %s", host, port, err)
        return None
