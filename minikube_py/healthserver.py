"""The small HTTP endpoint every non-apiserver component serves: ``/healthz``, ``/livez``,
``/readyz`` (200 ``ok`` while every check passes, else 500 naming the failed check, like
upstream's healthz handler) and ``/metrics`` (Prometheus text from a ``Registry``).

Upstream serves these over HTTPS with delegated authentication; minikube-py serves plain HTTP
on loopback (the components are reached only from the machine itself).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import socket
from collections.abc import Callable, Iterator, Mapping, Sequence

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response
from starlette.routing import Route

from minikube_py.metrics import CONTENT_TYPE, REGISTRY, Registry

HealthCheck = Callable[[], bool]


def health_app(
    checks: Mapping[str, HealthCheck], registry: Registry = REGISTRY, extra_routes: Sequence[Route] = ()
) -> Starlette:
    """``extra_routes``: component-specific endpoints (the scheduler's ``/debug/pods/...``)."""

    async def health(request: Request) -> Response:
        failed = [name for name, check in checks.items() if not check()]
        if failed:
            body = "".join(f"[-]{name} failed\n" for name in failed) + "healthz check failed\n"
            return PlainTextResponse(body, status_code=500)
        return PlainTextResponse("ok")

    async def metrics(request: Request) -> Response:
        return Response(registry.render(), headers={"content-type": CONTENT_TYPE})

    routes = [Route(f"/{path}", health) for path in ("healthz", "livez", "readyz")]
    return Starlette(routes=[*routes, Route("/metrics", metrics), *extra_routes])


async def serve_health(
    component: str,
    host: str,
    port: int,
    checks: Mapping[str, HealthCheck],
    registry: Registry = REGISTRY,
    extra_routes: Sequence[Route] = (),
) -> None:
    """Serve until cancelled on ``http://host:port``; port 0 picks a free port (logged)."""
    # listen before announcing the port: between bind and uvicorn's own listen a client that
    # read the log line was refused (connections now wait in the backlog until served)
    sock = listen(host, port)
    logging.getLogger(component).info(
        "serving /healthz and /metrics on http://%s:%d", host, sock.getsockname()[1]
    )
    await serve_app(health_app(checks, registry, extra_routes), sock)


def listen(host: str, port: int) -> socket.socket:
    """A listening TCP socket on ``host:port`` (port 0: a free one), closed on failure."""
    sock = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
        sock.listen(128)
    except OSError:
        sock.close()
        raise
    return sock


async def serve_app(app: Starlette, sock: socket.socket) -> None:
    """Serve the ASGI ``app`` on the listening ``sock`` until cancelled (then a graceful stop:
    uvicorn cancelled mid-serve leaks its tasks), closing ``sock``."""
    config = uvicorn.Config(app, lifespan="off", log_config=None, log_level="warning", access_log=False)
    config.timeout_graceful_shutdown = 1
    server = _QuietServer(config)
    try:
        running = asyncio.ensure_future(server.serve(sockets=[sock]))
        try:
            await asyncio.shield(running)
        except asyncio.CancelledError:
            server.should_exit = True
            await running
            raise
    finally:
        sock.close()


class _QuietServer(uvicorn.Server):
    """uvicorn without its own signal handlers (the CLI owns SIGINT/SIGTERM)."""

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        yield
