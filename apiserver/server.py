"""The apiserver's ASGI app and its HTTPS server.

``build_app`` assembles the app from a ``KV``; ``serve`` runs any ASGI app over HTTPS with
uvicorn until cancelled. Neither installs signal handlers nor configures logging: the process
(the CLI) owns both.
"""

from __future__ import annotations

import asyncio
import logging
import socket
import ssl
from collections.abc import Awaitable, Callable
from pathlib import Path

import uvicorn
from fastapi import FastAPI
from starlette.types import ASGIApp

from apiserver.admission.registry import build_chain
from apiserver.authn.config import build_authentication
from apiserver.bootstrap.aggregation import run_aggregation
from apiserver.bootstrap.objects import ensure_bootstrap_objects
from apiserver.bootstrap.priorityclasses import ensure_system_priority_classes
from apiserver.endpoints.openapi import OpenAPI
from apiserver.endpoints.router import APIRouter
from apiserver.endpoints.watch import OpenWatches
from apiserver.filters.authorization import new_authorizer
from apiserver.filters.chain import build_handler_chain
from apiserver.flowcontrol.metrics import metrics_endpoint
from apiserver.health import PingCheck, StoreCheck, install_health_checks
from apiserver.nodeproxy import NodeConnection
from apiserver.registry.catalog import Catalog
from apiserver.registry.resources.serviceallocator import ServiceNetwork
from apiserver.registry.reviews import review_storage
from apiserver.security import SecurityConfig
from apiserver.serving import ServingOptions
from apiserver.status import install_status_errors
from apiserver.storage.kv import KV
from apiserver.version import version_handler
from minikube_py.clientcert import ClientCertHttpToolsProtocol
from minikube_py.gctuning import tune_gc
from minikube_py.uvicornserver import QuietServer

logger = logging.getLogger("apiserver")

# How long in-flight requests (watches included) may run once shutdown starts before they are
# cancelled; keeps a SIGTERM'd process well under five seconds.
GRACEFUL_SHUTDOWN_SECONDS = 2


class ServeError(Exception):
    """The server cannot start (TLS files unusable, address unavailable). One-line message."""


def build_app(
    kv: KV,
    catalog: Catalog | None = None,
    watches: OpenWatches | None = None,
    nodes: NodeConnection | None = None,
    security: SecurityConfig | None = None,
    serving: ServingOptions | None = None,
) -> ASGIApp:
    """The apiserver: the request chain around the resource endpoints (when a catalog is
    given), discovery, OpenAPI, health, ``/version``, and Status errors for everything else.
    ``security`` configures the gates (``SecurityConfig``; None leaves them open), ``serving``
    the request timeouts (``ServingOptions``; None: upstream's defaults).
    ``nodes`` is how pod logs (and later exec, attach, portforward) reach node agents; None
    verifies them against the system trust store and presents no client certificate."""
    app = FastAPI(
        title="minikube-py apiserver",
        docs_url=None,
        redoc_url=None,
        openapi_url=None,
        redirect_slashes=False,
    )
    install_status_errors(app)
    ping, store = PingCheck(), StoreCheck(kv)
    install_health_checks(app, "livez", [ping])
    install_health_checks(app, "readyz", [ping, store])
    install_health_checks(app, "healthz", [ping, store])
    version = version_handler()
    # upstream serves /version as a go-restful web service, whose route "/" answers both
    # /version and /version/ (kr8s asks for the latter); /healthz, /metrics... are exact paths
    for path in ("/version", "/version/"):
        app.router.add_route(path, version, ["GET"], include_in_schema=False)
    app.router.add_route("/metrics", metrics_endpoint, ["GET"], include_in_schema=False)
    serving = serving or ServingOptions()
    if catalog is None:
        return build_handler_chain(app, security, serving=serving)
    if security is not None and security.admission_plugins:
        catalog.install_admission(build_chain(security.admission_plugins, catalog))
    openapi = OpenAPI(catalog.scheme, catalog.returns_deleted_object)
    app.router.add_route("/openapi/v2", openapi.v2, ["GET"], include_in_schema=False)
    app.router.add_route("/openapi/v3", openapi.index, ["GET"], include_in_schema=False)
    app.router.add_route("/openapi/v3/{path:path}", openapi.document, ["GET"], include_in_schema=False)
    # One authorizer and one authenticator: the filters and the review storage share them.
    authz = new_authorizer(security or SecurityConfig(), catalog)
    authentication = build_authentication(security or SecurityConfig(), catalog)
    router = APIRouter(
        catalog,
        app,
        watches,
        nodes,
        min_request_timeout=serving.min_request_timeout,
        reviews=review_storage(authentication, authz),
        authentication=authentication,
    )
    return build_handler_chain(router, security, catalog, serving, authz=authz, authentication=authentication)


async def run_apiserver(
    kv: KV,
    host: str,
    port: int,
    certfile: Path,
    keyfile: Path,
    ca_file: Path,
    *,
    sock: socket.socket | None = None,
    on_listening: Callable[[], None] | None = None,
    nodes: NodeConnection | None = None,
    security: SecurityConfig | None = None,
    serving: ServingOptions | None = None,
    service_network: ServiceNetwork | None = None,
) -> None:
    """The whole apiserver until cancelled: watch caches, bootstrap objects, HTTPS. ``nodes``
    None reaches node agents verified against ``ca_file`` without a client certificate;
    ``serving`` None serves with upstream's request limits; ``service_network`` None
    allocates from the default service range and node ports."""
    serving = serving or ServingOptions()
    tune_gc()
    catalog, watches = Catalog(kv, service_network=service_network), OpenWatches()
    async with asyncio.TaskGroup() as tasks:
        caches = tasks.create_task(catalog.run())
        aggregation = tasks.create_task(run_aggregation(catalog))
        try:
            await catalog.wait_ready()
            await ensure_bootstrap_objects(catalog)
            await ensure_system_priority_classes(catalog)
            await serve(
                build_app(kv, catalog, watches, nodes or NodeConnection(ca_file=ca_file), security, serving),
                host,
                port,
                certfile,
                keyfile,
                ca_file,
                sock=sock,
                on_listening=on_listening,
                on_stopping=watches.close_all,
                serving=serving,
            )
        finally:
            caches.cancel()
            aggregation.cancel()


async def serve(
    app: ASGIApp,
    host: str,
    port: int,
    certfile: Path,
    keyfile: Path,
    ca_file: Path,
    *,
    sock: socket.socket | None = None,
    on_listening: Callable[[], None] | None = None,
    on_stopping: Callable[[], Awaitable[None]] | None = None,
    serving: ServingOptions | None = None,
) -> None:
    """Serve ``app`` on ``https://host:port`` until cancelled, request heads bounded by
    ``serving`` (``minikube_py.httphead``).

    Client certificates are requested but optional (``CERT_OPTIONAL``); when sent they must
    chain to ``ca_file``. ``sock`` is a socket already bound by ``listen(host, port)``, for
    callers that check the address before doing other work; the server closes it.
    ``on_listening`` runs once connections are accepted; ``on_stopping`` when shutdown
    starts (e.g. to end streaming watches). On cancellation the server stops
    accepting, gives in-flight requests up to ``GRACEFUL_SHUTDOWN_SECONDS`` (it stops as soon
    as none is left, ``QuietServer``), then re-raises ``CancelledError``. Raises
    ``ServeError`` before serving when the TLS files or the address cannot be used.
    """
    serving = serving or ServingOptions()
    protocol = ClientCertHttpToolsProtocol.configured(
        max_header_bytes=serving.max_header_bytes, read_header_timeout=serving.read_header_timeout
    )
    config = uvicorn.Config(
        app,
        http=protocol,
        ssl_certfile=certfile,
        ssl_keyfile=keyfile,
        ssl_ca_certs=ca_file,
        ssl_cert_reqs=ssl.CERT_OPTIONAL,
        lifespan="off",
        log_config=None,
        log_level="warning",
        access_log=False,
        server_header=False,
        proxy_headers=False,
        timeout_graceful_shutdown=GRACEFUL_SHUTDOWN_SECONDS,
    )
    check_tls_files(certfile, keyfile, ca_file)
    config.load()
    server = _Server(config, _url(host, port), on_listening)
    sock = sock or listen(host, port)
    async with asyncio.TaskGroup() as tasks:
        running = tasks.create_task(server.serve(sockets=[sock]))
        try:
            await asyncio.shield(running)
        except asyncio.CancelledError:
            server.should_exit = True
            if on_stopping is not None:
                await on_stopping()
            await running  # graceful stop; a second cancellation aborts it
            logger.info("stopped serving on %s", server.url)
            raise


class _Server(QuietServer):
    """``QuietServer`` announcing when it listens."""

    def __init__(self, config: uvicorn.Config, url: str, on_listening: Callable[[], None] | None) -> None:
        super().__init__(config)
        self.url = url
        self._on_listening = on_listening

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        await super().startup(sockets)
        if self.started:
            logger.info("listening on %s", self.url)
            if self._on_listening is not None:
                self._on_listening()


def check_tls_files(certfile: Path, keyfile: Path, ca_file: Path) -> None:
    """Raise ServeError unless the serving pair and the client CA load (``serve`` checks too)."""
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    try:
        context.load_cert_chain(certfile, keyfile)
    except (OSError, ssl.SSLError) as err:
        raise ServeError(
            f"cannot load serving certificate {certfile} and key {keyfile}: {_reason(err)}"
        ) from err
    try:
        context.load_verify_locations(ca_file)
    except (OSError, ssl.SSLError) as err:
        raise ServeError(f"cannot load client CA {ca_file}: {_reason(err)}") from err


def listen(host: str, port: int) -> socket.socket:
    """A TCP socket bound to ``host:port`` (listening starts in ``serve``); raises ServeError.

    Binding here rather than in uvicorn matters: uvicorn calls ``sys.exit`` when the address
    is taken."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    # IPPROTO_TCP explicitly: asyncio turns TCP_NODELAY on for accepted connections only when
    # the listening socket says so; without it every response waited ~40 ms (Nagle + delayed ACK).
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
    except OSError as err:
        sock.close()
        raise ServeError(f"cannot listen on {_url(host, port)}: {_reason(err)}") from err
    return sock


def _reason(err: OSError) -> str:
    """``[Errno 98] Address already in use`` -> ``address already in use``."""
    if isinstance(err, ssl.SSLError) and err.reason:
        return err.reason.lower().replace("_", " ")  # KEY_VALUES_MISMATCH -> key values mismatch
    return (err.strerror or str(err)).lower()


def _url(host: str, port: int) -> str:
    return f"https://[{host}]:{port}" if ":" in host else f"https://{host}:{port}"
