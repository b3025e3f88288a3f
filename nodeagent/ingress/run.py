"""Running the ingress controller: listen first (``--port 0`` picks a free port, so the
address is known before anything is written), ensure the class, then the informers, the
status loop and the HTTP front until cancelled. ``minikube-py ingress-controller`` and ``up``
both run ``run_ingress_controller``.

A port that cannot be bound (taken, or below 1024 without privileges) is logged once, with
what to do, and retried every few seconds: the rest of the cluster keeps running."""

from __future__ import annotations

import asyncio
import dataclasses
import logging
from collections.abc import Callable
from dataclasses import dataclass

from minikube_py.api.errors import ApiError
from minikube_py.cache.factory import SharedInformerFactory
from minikube_py.client import RESTClient
from minikube_py.client.config import ClientConfig
from minikube_py.events import EventRecorder
from nodeagent.ingress.classes import CLASS_NAME, CONTROLLER_NAME, ensure_class
from nodeagent.ingress.controller import IngressController
from nodeagent.ingress.proxy import IngressProxy
from nodeagent.ingress.tls import Certificates

DEFAULT_PORT = 80
DEFAULT_TLS_PORT = 443
ADDRESS = "127.0.0.1"  # loopback, so *.localhost names work from a browser (the address plan)
BIND_RETRY = 5.0
USER_AGENT = EVENT_SOURCE = "minikube-py-ingress-controller"
log = logging.getLogger("ingress")


@dataclass(frozen=True)
class IngressOptions:
    port: int = DEFAULT_PORT
    tls_port: int | None = DEFAULT_TLS_PORT  # None: no TLS listener
    address: str = ADDRESS
    class_name: str = CLASS_NAME
    controller: str = CONTROLLER_NAME


async def listen(proxy: IngressProxy, options: IngressOptions) -> asyncio.Server:
    """Bind the front, retrying while the port is unavailable (logged once)."""
    logged = False
    while True:
        try:
            return await asyncio.start_server(proxy.serve_connection, options.address, options.port)
        except OSError as err:
            if not logged:
                log.error(
                    "ingress: cannot listen on %s:%d (%s); retrying every %.0fs "
                    "(--ingress-port picks another port, 0 any free one)",
                    options.address,
                    options.port,
                    err.strerror or err,
                    BIND_RETRY,
                )
                logged = True
            await asyncio.sleep(BIND_RETRY)


async def listen_tls(
    proxy: IngressProxy, certificates: Certificates, options: IngressOptions
) -> asyncio.Server | None:
    """The TLS front, tried once: a port that cannot be bound is logged and TLS is not served
    (plain HTTP is what the cluster's users need first)."""
    if options.tls_port is None:
        return None
    try:
        return await asyncio.start_server(
            proxy.serve_connection, options.address, options.tls_port, ssl=certificates.default
        )
    except OSError as err:
        log.error(
            "ingress: cannot listen on %s:%d for TLS (%s); serving plain HTTP only (--ingress-tls-port "
            "picks another port, 0 any free one)",
            options.address,
            options.tls_port,
            err.strerror or err,
        )
        return None


async def _ensure_class(client: RESTClient, options: IngressOptions) -> None:
    """The class, retried while the apiserver is not ready for it (RBAC still bootstrapping)."""
    while True:
        try:
            await ensure_class(client, options.class_name, options.controller)
            return
        except (ApiError, OSError) as err:
            log.warning("ingress: cannot ensure IngressClass %s yet: %s", options.class_name, err)
            await asyncio.sleep(1.0)


async def run_ingress_controller(
    config: ClientConfig,
    options: IngressOptions,
    on_listening: Callable[[int, int | None], None] | None = None,
) -> None:
    """Serve until cancelled; ``on_listening(port, tls_port)`` once the fronts listen."""
    client = RESTClient(dataclasses.replace(config, user_agent=USER_AGENT))
    try:
        factory = SharedInformerFactory(client)
        recorder = EventRecorder(client, EVENT_SOURCE)
        controller = IngressController(
            client, factory, address=options.address, controller=options.controller, recorder=recorder
        )
        proxy = IngressProxy(controller.route)
        tls_proxy = IngressProxy(controller.route, scheme="https")
        server = await listen(proxy, options)
        tls_server = await listen_tls(tls_proxy, controller.certificates, options)
        try:
            controller.port = proxy.port = _bound_port(server)
            if tls_server is not None:
                controller.tls_port = tls_proxy.port = _bound_port(tls_server)
            if on_listening is not None:
                on_listening(controller.port, controller.tls_port)
            log.info("ingress controller listening on http://%s:%d", options.address, controller.port)
            await _ensure_class(client, options)
            async with asyncio.TaskGroup() as tasks:
                factory.start(tasks)
                tasks.create_task(controller.run())
                tasks.create_task(recorder.run())
        finally:
            for front in (server, tls_server):
                if front is not None:
                    front.close()
            proxy.close()
            tls_proxy.close()
    finally:
        await client.close()


def _bound_port(server: asyncio.Server) -> int:
    return int(server.sockets[0].getsockname()[1])
