"""The node agent's HTTPS API (upstream kubelet ``pkg/kubelet/server``), on ``127.0.0.1``.

Endpoints: ``GET /healthz`` (``ok``), ``GET /metrics`` (Prometheus text),
``GET /containerLogs/{namespace}/{pod}/{container}`` (see ``containerlogs``) and
``GET /stats/summary`` (``nodeagent.stats.endpoint``), and the connection upgrades of
``/exec/{namespace}/{pod}/{container}`` and ``/portForward/{namespace}/{pod}``
(``streams.handlers``). One server may serve many simulated
nodes: pods are found by namespace and name through the ``PodLookup``.

Authentication is the client certificate, verified against the cluster CA during the handshake
(optional, so ``/healthz`` and ``/metrics`` answer anyone). Every other path is guarded by
``NodeAuthorization``, a pure ASGI middleware standing in for upstream's webhook authorizer: the
apiserver's ``kube-apiserver-kubelet-client`` and members of ``system:masters`` are allowed; no
certificate is a 401 ``Unauthorized``, another identity a 403 with upstream's plain-text body
``Forbidden (user=..., verb=get, resource=nodes, subresource=proxy)``, which the apiserver relays
as the Status message.
"""

from __future__ import annotations

import asyncio
import logging
import socket
import ssl
from collections.abc import Callable
from pathlib import Path

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response, StreamingResponse
from starlette.routing import Route
from starlette.types import ASGIApp, Receive, Scope, Send

from minikube_py.clientcert import ClientCertHttpToolsProtocol
from minikube_py.clientcert import request_client_subject as client_subject
from minikube_py.clock import Clock, RealClock
from minikube_py.metrics import CONTENT_TYPE, REGISTRY, Registry
from minikube_py.pki import KUBELET_CLIENT_USER, CertKeyPair
from minikube_py.uvicornserver import QuietServer
from nodeagent.node.containerlogs import (
    LogRequestError,
    PodLookup,
    container_log_path,
    is_running,
    parse_log_options,
    stream_container_log,
)
from nodeagent.node.streams.handlers import stream_routes
from nodeagent.node.streams.target import StreamLookup
from nodeagent.stats.endpoint import SummaryLookup, stats_summary_route

MASTERS_GROUP = "system:masters"
OPEN_PATHS = ("/healthz", "/metrics")
# upstream's path -> subresource mapping for the authorization attributes
SUBRESOURCES = {"stats": "stats", "metrics": "metrics", "logs": "log"}

log = logging.getLogger("nodeagent")


class NodeAuthorization:
    """Pure ASGI middleware: who may call what (see the module docstring)."""

    def __init__(self, app: ASGIApp, allowed: Callable[[str, list[str]], bool] | None = None) -> None:
        self.app = app
        self.allowed = allowed or _apiserver_or_masters

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["path"] in OPEN_PATHS:
            await self.app(scope, receive, send)
            return
        subject = client_subject(scope)
        if subject is None:
            await PlainTextResponse("Unauthorized", status_code=401)(scope, receive, send)
            return
        user = next((v for k, v in subject if k == "commonName"), "")
        groups = [v for k, v in subject if k == "organizationName"]
        if not self.allowed(user, groups):
            verb = "get" if scope["method"] in ("GET", "HEAD") else "create"
            first = scope["path"].strip("/").split("/", 1)[0]
            subresource = SUBRESOURCES.get(first, "proxy")
            message = f"Forbidden (user={user}, verb={verb}, resource=nodes, subresource={subresource})"
            await PlainTextResponse(message, status_code=403)(scope, receive, send)
            return
        await self.app(scope, receive, send)


def _apiserver_or_masters(user: str, groups: list[str]) -> bool:
    return user == KUBELET_CLIENT_USER or MASTERS_GROUP in groups


def agent_app(
    pods: PodLookup,
    *,
    registry: Registry = REGISTRY,
    clock: Clock | None = None,
    poll_interval: float = 0.1,
    stats: SummaryLookup | None = None,
    streams: StreamLookup | None = None,
) -> ASGIApp:
    """The API's ASGI app, authorization included; ``stats`` serves ``/stats/summary``,
    ``streams`` ``/exec`` and ``/portForward`` (``streams.handlers``)."""
    wall = clock or RealClock()

    async def healthz(request: Request) -> Response:
        return PlainTextResponse("ok")

    async def metrics(request: Request) -> Response:
        return Response(registry.render(), headers={"content-type": CONTENT_TYPE})

    async def container_logs(request: Request) -> Response:
        namespace, name = request.path_params["namespace"], request.path_params["pod"]
        container = request.path_params["container"]
        try:
            options = parse_log_options(dict(request.query_params), wall.now())
            target = pods(namespace, name)
            if target is None:
                raise LogRequestError(404, f'pod "{name}" does not exist')
            path = container_log_path(target, name, container, options.previous)
        except LogRequestError as err:
            return PlainTextResponse(str(err), status_code=err.code)
        running = not options.previous and is_running(target, container)
        chunks = stream_container_log(
            path,
            options,
            lambda: running and is_running(pods(namespace, name), container),
            poll_interval,
        )
        return StreamingResponse(chunks, media_type="text/plain")

    routes = [
        Route("/healthz", healthz),
        Route("/metrics", metrics),
        Route("/containerLogs/{namespace}/{pod}/{container}", container_logs),
    ]
    if stats is not None:
        routes.append(stats_summary_route(stats))
    if streams is not None:
        routes += [
            Route(path, handler, methods=["GET", "POST"]) for path, handler in stream_routes(streams).items()
        ]
    return NodeAuthorization(Starlette(routes=routes))


class AgentServer:
    """The HTTPS listener. The socket is bound at construction, so ``port`` is known before the
    Node registers (it goes into ``daemonEndpoints``); ``serve`` runs until cancelled."""

    def __init__(
        self, app: ASGIApp, *, cert: CertKeyPair, client_ca: Path, host: str = "127.0.0.1", port: int = 0
    ) -> None:
        self._app = app
        self._cert = cert
        self._client_ca = client_ca
        self._sock = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET, socket.SOCK_STREAM)
        self._sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._sock.bind((host, port))
        self.host = host
        self.port: int = self._sock.getsockname()[1]

    async def serve(self) -> None:
        config = uvicorn.Config(
            self._app,
            http=ClientCertHttpToolsProtocol,
            ssl_certfile=str(self._cert.cert),
            ssl_keyfile=str(self._cert.key),
            ssl_ca_certs=str(self._client_ca),
            ssl_cert_reqs=ssl.CERT_OPTIONAL,
            lifespan="off",
            log_config=None,
            log_level="warning",
            access_log=False,
            timeout_graceful_shutdown=1,
        )
        server = QuietServer(config)
        log.info("nodeagent: serving the node API on https://%s:%d", self.host, self.port)
        try:
            async with asyncio.TaskGroup() as tasks:
                running = tasks.create_task(server.serve(sockets=[self._sock]))
                try:
                    await asyncio.shield(running)
                except asyncio.CancelledError:
                    server.should_exit = True
                    await running
                    raise
        finally:
            self._sock.close()
