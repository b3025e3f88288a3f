"""The proxy's two HTTP endpoints, as upstream's kube-proxy serves them: ``/healthz`` (and
``/livez``) on the healthz address (``--healthz-bind-address``, default ``127.0.0.1:10256``)
and ``/metrics`` on the metrics address (``--metrics-bind-address``, ``127.0.0.1:10249``;
it also answers ``/healthz`` with ``ok`` and ``/proxyMode``).

``/healthz`` is upstream's proxier health: 200 with JSON ``lastUpdated``/``currentTime`` while
no change has waited longer than ``timeout`` (twice the sync period) for a sync, else 503.
Plain HTTP on loopback, as every minikube-py component's health endpoint."""

from __future__ import annotations

import datetime
import logging
import socket

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.routing import Route

from minikube_py.clock import Clock
from minikube_py.healthserver import listen, serve_app
from minikube_py.metrics import CONTENT_TYPE
from nodeagent.proxy.metrics import ProxyRegistry

log = logging.getLogger("proxy")

PROXY_MODE = "userspace"


class ProxierHealth:
    """Tracks the oldest change not yet synced (upstream ``ProxierHealthServer``)."""

    def __init__(self, clock: Clock, timeout: float) -> None:
        self._clock = clock
        self.timeout = timeout
        self.last_updated: float | None = None
        self.oldest_pending: float | None = clock.now()  # the first sync is pending from the start

    def queued_update(self) -> None:
        if self.oldest_pending is None:
            self.oldest_pending = self._clock.now()

    def updated(self) -> None:
        self.last_updated = self._clock.now()
        self.oldest_pending = None

    def healthy(self) -> bool:
        return self.oldest_pending is None or self._clock.now() - self.oldest_pending <= self.timeout

    def report(self) -> dict[str, object]:
        return {
            "lastUpdated": _rfc3339(self.last_updated or 0.0),
            "currentTime": _rfc3339(self._clock.now()),
            "nodeEligible": True,
        }


def healthz_app(health: ProxierHealth) -> Starlette:
    async def healthz(request: Request) -> Response:
        return JSONResponse(health.report(), status_code=200 if health.healthy() else 503)

    return Starlette(routes=[Route("/healthz", healthz), Route("/livez", healthz)])


def metrics_app(registry: ProxyRegistry) -> Starlette:
    async def metrics(request: Request) -> Response:
        return Response(registry.render(), headers={"content-type": CONTENT_TYPE})

    async def ok(request: Request) -> Response:
        return PlainTextResponse("ok")

    async def mode(request: Request) -> Response:
        return PlainTextResponse(PROXY_MODE)

    return Starlette(routes=[Route("/metrics", metrics), Route("/healthz", ok), Route("/proxyMode", mode)])


def bind(address: str) -> socket.socket:
    """A listening socket on ``host:port`` (port 0: a free one)."""
    host, _, port = address.rpartition(":")
    return listen(host.strip("[]") or "127.0.0.1", int(port))


async def serve(app: Starlette, sock: socket.socket, what: str) -> None:
    """Serve ``app`` on the bound ``sock`` until cancelled."""
    host, port = sock.getsockname()[:2]
    log.info("proxy: serving %s on http://%s:%d", what, host, port)
    await serve_app(app, sock)


def _rfc3339(seconds: float) -> str:
    moment = datetime.datetime.fromtimestamp(seconds, datetime.UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.%fZ")
