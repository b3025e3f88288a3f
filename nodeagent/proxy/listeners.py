"""The proxy's frontends: one listening socket per (protocol, address, port) that has a
route. ``apply`` opens what is new, swaps the route of what stays (established connections
keep their backends) and closes what went away (closing a listener leaves its established
connections open, as removing a rule leaves conntrack entries).

An address that cannot be bound is logged once, with the reason in words (another process
has it, or a port below 1024 without root), and retried every ``retry_period`` seconds."""

from __future__ import annotations

import errno
import logging
from dataclasses import dataclass

from minikube_py.clock import Clock
from nodeagent.proxy.metrics import ProxyMetrics
from nodeagent.proxy.network import Closable, Network
from nodeagent.proxy.routes import FrontendKey, Route, RouteRef
from nodeagent.proxy.tcp import ClientSide, Connections
from nodeagent.proxy.udp import DEFAULT_UDP_TIMEOUT, UdpFrontend

log = logging.getLogger("proxy")

DEFAULT_RETRY_PERIOD = 5.0


@dataclass
class _Listener:
    ref: RouteRef
    socket: Closable


def address(key: FrontendKey) -> str:
    protocol, host, port = key
    text = f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
    return text if protocol == "TCP" else f"{text}/{protocol}"


class Listeners:
    def __init__(
        self,
        network: Network,
        clock: Clock,
        metrics: ProxyMetrics,
        *,
        udp_timeout: float = DEFAULT_UDP_TIMEOUT,
        retry_period: float = DEFAULT_RETRY_PERIOD,
    ) -> None:
        self._network = network
        self._clock = clock
        self._metrics = metrics
        self._udp_timeout = udp_timeout
        self.retry_period = retry_period
        self.connections = Connections(network, metrics.traffic)
        self.open: dict[FrontendKey, _Listener] = {}
        self.failed: dict[FrontendKey, float] = {}  # next attempt, by the clock's monotonic time

    async def apply(self, desired: dict[FrontendKey, Route]) -> None:
        for key in [k for k in self.open if k not in desired]:
            self.open.pop(key).socket.close()
        for key in [k for k in self.failed if k not in desired]:
            del self.failed[key]
        now = self._clock.monotonic()
        for key, route in desired.items():
            listener = self.open.get(key)
            if listener is not None:
                listener.ref.route = route
                if isinstance(listener.socket, UdpFrontend):
                    listener.socket.prune(route.backends)
            elif self.failed.get(key, now) <= now:
                await self._bind(key, route)
        for protocol in ("TCP", "UDP"):
            self._metrics.listeners.set(sum(1 for k in self.open if k[0] == protocol), protocol=protocol)

    def next_retry(self) -> float | None:
        """When the earliest failed address is due again (monotonic), or None."""
        return min(self.failed.values(), default=None)

    async def _bind(self, key: FrontendKey, route: Route) -> None:
        protocol, host, port = key
        ref = RouteRef(route)
        try:
            if protocol == "UDP":
                frontend = UdpFrontend(
                    ref, self._network, self._clock, self._metrics.traffic, self._udp_timeout
                )
                await self._network.listen_udp(lambda: frontend, host, port)
                sock: Closable = frontend
            else:
                sock = await self._network.listen_tcp(lambda: ClientSide(ref, self.connections), host, port)
        except OSError as err:
            self._metrics.bind_failures.inc()
            if key not in self.failed:
                log.error("proxy: %s; retrying every %gs", bind_error(key, err), self.retry_period)
            self.failed[key] = self._clock.monotonic() + self.retry_period
            return
        if self.failed.pop(key, None) is not None:
            log.info("proxy: now serving %s (%s)", address(key), route.name)
        self.open[key] = _Listener(ref, sock)

    def close(self) -> None:
        for listener in self.open.values():
            listener.socket.close()
        self.open.clear()
        self.connections.close_all()


def bind_error(key: FrontendKey, err: OSError) -> str:
    """One line saying why ``key`` could not be bound."""
    where = address(key)
    if err.errno == errno.EADDRINUSE:
        return f"another process (another cluster on this machine?) serves {where}"
    if err.errno == errno.EACCES:
        return f"cannot serve {where}: ports below 1024 need root (or CAP_NET_BIND_SERVICE): {err.strerror}"
    return f"cannot serve {where}: {err.strerror or err}"
