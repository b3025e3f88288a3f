"""UDP forwarding with per-client flows, as conntrack keeps them: the first datagram from a
client address picks a backend and opens a socket connected to it (bound to the client's
address, so the backend sees the client); later datagrams of that client go the same way and
the backend's answers go back to the client from the frontend address. A flow idle for
``timeout`` seconds (conntrack's ``nf_conntrack_udp_timeout``, 30 s) is closed. A backend
that answers with an ICMP refusal closes its flow; the client's next datagram picks again."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Coroutine
from typing import Any, cast

from minikube_py.clock import Clock
from nodeagent.proxy.endpoints import Backend
from nodeagent.proxy.metrics import Traffic
from nodeagent.proxy.network import Network
from nodeagent.proxy.routes import RouteRef, source_address

log = logging.getLogger("proxy")

DEFAULT_UDP_TIMEOUT = 30.0
MAX_PENDING = 64  # datagrams held for one client while its flow opens

Address = tuple[str, int]


class Flow(asyncio.DatagramProtocol):
    """One client's flow to one backend."""

    def __init__(self, frontend: UdpFrontend, client: Address, backend: Backend) -> None:
        self.frontend = frontend
        self.client = client
        self.backend = backend
        self.transport: asyncio.DatagramTransport | None = None
        self.last_activity = frontend.clock.monotonic()
        self.closed = False

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = cast(asyncio.DatagramTransport, transport)

    def datagram_received(self, data: bytes, addr: Address) -> None:
        self.last_activity = self.frontend.clock.monotonic()
        self.frontend.reply(data, self.client)

    def error_received(self, exc: Exception) -> None:
        log.debug("proxy: udp backend %s: %s", self.backend.address, exc)
        self.frontend.close_flow(self)

    def send(self, data: bytes) -> None:
        self.last_activity = self.frontend.clock.monotonic()
        if self.transport is not None:
            self.frontend.traffic.bytes_to_backends += len(data)
            self.transport.sendto(data)

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            if self.transport is not None:
                self.transport.close()


class UdpFrontend(asyncio.DatagramProtocol):
    """The datagram socket of one frontend address and its flows."""

    def __init__(
        self, ref: RouteRef, network: Network, clock: Clock, traffic: Traffic, timeout: float
    ) -> None:
        self.ref = ref
        self.network = network
        self.clock = clock
        self.traffic = traffic
        self.timeout = timeout
        self.transport: asyncio.DatagramTransport | None = None
        self.flows: dict[Address, Flow] = {}
        self._opening: dict[Address, list[bytes]] = {}
        self._tasks: set[asyncio.Task[None]] = set()

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = cast(asyncio.DatagramTransport, transport)

    def datagram_received(self, data: bytes, addr: Address) -> None:
        self.traffic.udp_datagrams += 1
        client = (addr[0], addr[1])
        flow = self.flows.get(client)
        if flow is not None:
            flow.send(data)
            return
        pending = self._opening.get(client)
        if pending is not None:
            if len(pending) < MAX_PENDING:
                pending.append(data)
            return
        self._opening[client] = [data]
        self._spawn(self._open(client))

    def reply(self, data: bytes, client: Address) -> None:
        if self.transport is not None and not self.transport.is_closing():
            self.traffic.bytes_to_clients += len(data)
            self.transport.sendto(data, client)

    async def _open(self, client: Address) -> None:
        route = self.ref.route
        try:
            for backend in route.candidates(client[0]):
                flow = Flow(self, client, backend)
                try:
                    await self.network.connect_udp(
                        _factory(flow),
                        backend.ip,
                        backend.port,
                        source_address(client[0], backend.ip),
                    )
                except OSError as err:
                    self.traffic.dial_failures += 1
                    log.debug("proxy: %s: udp backend %s: %s", route.name, backend.address, err)
                    continue
                route.balancer.chosen(client[0], backend)
                self.flows[client] = flow
                self.traffic.udp_flows += 1
                self.traffic.udp_active_flows += 1
                for data in self._opening.pop(client, []):
                    flow.send(data)
                self._spawn(self._expire(flow))
                return
        finally:
            self._opening.pop(client, None)

    async def _expire(self, flow: Flow) -> None:
        while not flow.closed:
            remaining = flow.last_activity + self.timeout - self.clock.monotonic()
            if remaining <= 0:
                self.close_flow(flow)
                return
            await self.clock.sleep(remaining)

    def close_flow(self, flow: Flow) -> None:
        if self.flows.get(flow.client) is flow:
            del self.flows[flow.client]
            self.traffic.udp_active_flows -= 1
        flow.close()

    def _spawn(self, coroutine: Coroutine[Any, Any, None]) -> None:
        task = asyncio.get_running_loop().create_task(coroutine)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def prune(self, backends: tuple[Backend, ...]) -> None:
        """Close the flows to backends no longer in the route (upstream clears their conntrack
        entries: a client's next datagram picks a current backend instead of a dead one)."""
        current = {b.address for b in backends}
        for flow in [f for f in self.flows.values() if f.backend.address not in current]:
            self.close_flow(flow)

    def close(self) -> None:
        """Stop listening and close every flow."""
        for task in list(self._tasks):
            task.cancel()
        for flow in list(self.flows.values()):
            self.close_flow(flow)
        if self.transport is not None:
            self.transport.close()


def _factory(protocol: asyncio.DatagramProtocol) -> Callable[[], asyncio.DatagramProtocol]:
    return lambda: protocol
