"""The DNS server's HTTP side: ``/metrics`` in the series CoreDNS's ``prometheus`` plugin
exports (``coredns_dns_requests_total{server,zone,view,proto,family,type}``,
``coredns_dns_responses_total{...,rcode,plugin}``, ``coredns_cache_hits_total``/
``coredns_cache_misses_total``, ``coredns_forward_requests_total``), ``/health`` (the
``health`` plugin: ``OK`` while serving) and ``/ready`` (the ``ready`` plugin: 200 once the
informers have synced, else 503 naming the plugin), on their own port."""

from __future__ import annotations

import socket
from collections.abc import Callable

from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response
from starlette.routing import Route

from minikube_py.healthserver import health_app, listen, serve_app
from minikube_py.metrics import Registry
from nodeagent.dns.forward import Forwarder
from nodeagent.dns.handler import QueryHandler
from nodeagent.dns.server import DNSMetrics


class DNSRegistry(Registry):
    """A registry whose families are read from the server's plain counters at scrape time."""

    def __init__(
        self, server: str, metrics: DNSMetrics, handler: QueryHandler, forwarder: Forwarder | None
    ) -> None:
        super().__init__()
        self.server, self.metrics, self.handler, self.forwarder = server, metrics, handler, forwarder

    def render(self) -> str:
        base = {"server": self.server, "zone": ".", "view": ""}
        requests = self.counter(
            "coredns_dns_requests_total", "Counter of DNS requests made per zone, protocol and family."
        )
        for (proto, qtype), count in list(self.metrics.requests.items()):
            requests.set(count, **base, proto=proto, family="1", type=qtype)
        responses = self.counter("coredns_dns_responses_total", "Counter of response status codes.")
        for rcode, count in list(self.metrics.responses.items()):
            responses.set(count, **base, rcode=rcode, plugin="")
        hits = self.counter("coredns_cache_hits_total", "The count of cache hits.")
        hits.set(self.handler.cache_hits, server=self.server, type="success", view="", zones=".")
        misses = self.counter("coredns_cache_misses_total", "The count of cache misses.")
        misses.set(self.handler.cache_misses, server=self.server, view="", zones=".")
        if self.forwarder is not None:
            forwards = self.counter(
                "coredns_forward_requests_total", "Counter of requests made per upstream."
            )
            for host, port in self.forwarder.upstreams:
                forwards.set(self.forwarder.requests, to=f"{host}:{port}")
        return super().render()


def health_routes(synced: Callable[[], bool]) -> list[Route]:
    async def health(request: Request) -> Response:
        return PlainTextResponse("OK")

    async def ready(request: Request) -> Response:
        if synced():
            return PlainTextResponse("OK")
        return PlainTextResponse("kubernetes", status_code=503)

    return [Route("/health", health), Route("/ready", ready)]


def bind_http(host: str, port: int) -> socket.socket:
    return listen(host, port)


async def serve_http(sock: socket.socket, registry: Registry, synced: Callable[[], bool]) -> None:
    """Serve ``/metrics``, ``/health``, ``/ready`` (and ``/healthz``...) on ``sock`` until cancelled."""
    await serve_app(health_app({}, registry, health_routes(synced)), sock)
