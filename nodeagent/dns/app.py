"""The cluster DNS server (upstream's CoreDNS with its ``kubernetes``, ``forward``, ``cache``,
``prometheus``, ``health`` and ``ready`` plugins, in miniature): informers of Services and
EndpointSlices feed ``ClusterRecords``; ``DNSServer`` answers on UDP and TCP; the ``kube-dns``
Service and Endpoints are kept right (``kubedns``); ``/metrics``, ``/health`` and ``/ready``
are served on their own port (``metrics``)."""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import socket
from collections.abc import Callable

from minikube_py.cache.factory import SharedInformerFactory
from minikube_py.client import RESTClient
from minikube_py.client.config import ClientConfig
from minikube_py.client.resourcetypes import SERVICES
from minikube_py.clock import Clock, RealClock
from nodeagent.dns.forward import Forwarder, upstreams_from_resolv_conf
from nodeagent.dns.handler import QueryHandler
from nodeagent.dns.informers import ENDPOINTSLICES, service_handlers, slice_handlers
from nodeagent.dns.kubedns import KubeDNSService, Listening
from nodeagent.dns.metrics import DNSRegistry, bind_http, serve_http
from nodeagent.dns.options import DNSOptions
from nodeagent.dns.records import ClusterRecords
from nodeagent.dns.server import DNSServer

log = logging.getLogger("dns")
USER_AGENT = "coredns/minikube-py"


class DNSConfigError(Exception):
    """The server cannot start as configured (an address is taken)."""


def forwarder_for(options: DNSOptions) -> Forwarder | None:
    upstreams = options.upstreams
    if upstreams is None:
        upstreams = tuple(upstreams_from_resolv_conf(options.resolv_conf))
    return Forwarder(upstreams) if upstreams else None


async def run_dns(
    config: ClientConfig,
    options: DNSOptions,
    clock: Clock | None = None,
    on_listening: Callable[[Listening], None] | None = None,
) -> None:
    """Serve cluster DNS until cancelled. Raises ``DNSConfigError`` when it cannot listen;
    ``on_listening`` is told where it listens (tests and benchmarks use free ports)."""
    clock = clock or RealClock()
    records = ClusterRecords(options.domain)
    forwarder = forwarder_for(options)
    handler = QueryHandler(records, forwarder)
    server = DNSServer(handler, options.host, options.port)
    try:
        http = bind_http(options.host, options.metrics_port)
    except OSError as err:
        raise DNSConfigError(
            f"cannot serve metrics on {options.host}:{options.metrics_port}: {err}"
        ) from None
    try:
        await server.start()
    except OSError as err:
        http.close()
        raise DNSConfigError(f"cannot serve DNS on {options.host}:{options.port}: {err}") from None
    client = RESTClient(dataclasses.replace(config, user_agent=USER_AGENT), clock=clock)
    try:
        where = Listening(options.host, server.port, http.getsockname()[1])
        if on_listening is not None:
            on_listening(where)
        await _serve(client, records, server, http, where, options, forwarder, clock)
    finally:
        await server.close()
        await client.close()


async def _serve(
    client: RESTClient,
    records: ClusterRecords,
    server: DNSServer,
    http: socket.socket,
    where: Listening,
    options: DNSOptions,
    forwarder: Forwarder | None,
    clock: Clock,
) -> None:
    factory = SharedInformerFactory(client, clock=clock)
    services = factory.informer(SERVICES)
    slices = factory.informer(ENDPOINTSLICES)
    registry = DNSRegistry(f"dns://{options.host}:{server.port}", server.metrics, server.handler, forwarder)
    log.info("dns: /metrics, /health and /ready on http://%s:%d", where.host, where.metrics_port)
    async with asyncio.TaskGroup() as tasks:
        tasks.create_task(serve_http(http, registry, lambda: services.has_synced() and slices.has_synced()))
        wake = None
        if options.write_service:
            kube_dns = KubeDNSService(client, where, options.cluster_ip, clock)
            wake = kube_dns.wake.set
            tasks.create_task(kube_dns.run())
        services.add_event_handler(service_handlers(records, wake or (lambda: None)))
        slices.add_event_handler(slice_handlers(records))
        factory.start(tasks)
