"""The data path on fake sockets: TCP dials with fallback, forwarding, flow control, half
close and resets; UDP flows, replies and idle timeouts on a fake clock."""

from __future__ import annotations

from minikube_py.clock import FakeClock
from nodeagent.proxy.balancer import ROUND_ROBIN, Balancer
from nodeagent.proxy.endpoints import Backend
from nodeagent.proxy.metrics import ProxyMetrics
from nodeagent.proxy.routes import Route, RouteRef
from nodeagent.proxy.tcp import ClientSide, Connections
from nodeagent.proxy.udp import UdpFrontend
from tests.nodeagent.proxy.fakes import FakeDatagramTransport, FakeNetwork, FakeTransport, settle

A, B = Backend("127.1.0.2", 8080), Backend("127.1.0.3", 8080)


def tcp_client(
    network: FakeNetwork, *backends: Backend, affinity: float = 0.0
) -> tuple[FakeTransport, ProxyMetrics]:
    metrics = ProxyMetrics()
    route = Route("default/web:http", backends, Balancer(FakeClock(), ROUND_ROBIN, affinity))
    connections = Connections(network, metrics.traffic)
    network.listeners[("TCP", "127.96.0.20", 80)] = lambda: ClientSide(RouteRef(route), connections)
    return network.accept("127.96.0.20", 80), metrics


async def test_a_refusing_backend_is_skipped_and_the_next_one_serves() -> None:
    network = FakeNetwork(refused={("127.1.0.2", 8080)})
    client, metrics = tcp_client(network, A, B)
    assert not client.reading  # nothing is read before a backend answered
    await settle()
    assert [(d.host, d.source) for d in network.dials] == [
        ("127.1.0.2", "127.0.0.7"),
        ("127.1.0.3", "127.0.0.7"),
    ]
    assert client.reading and not client.closed
    assert metrics.traffic.dial_failures == 1


async def test_when_no_backend_answers_the_client_is_reset_at_once() -> None:
    network = FakeNetwork(refused={("127.1.0.2", 8080), ("127.1.0.3", 8080)})
    client, metrics = tcp_client(network, A, B)
    await settle()
    assert client.aborted and client.closed
    assert metrics.traffic.rejected == 1 and metrics.traffic.active == 0


async def test_bytes_flow_both_ways_and_are_counted() -> None:
    network = FakeNetwork()
    client, metrics = tcp_client(network, A)
    await settle()
    backend = network.dials[0]
    client.protocol.data_received(b"GET / HTTP/1.0\r\n\r\n")  # type: ignore[union-attr]
    backend.protocol.data_received(b"HTTP/1.0 200 OK\r\n\r\n")
    assert bytes(backend.transport.written) == b"GET / HTTP/1.0\r\n\r\n"
    assert bytes(client.written) == b"HTTP/1.0 200 OK\r\n\r\n"
    assert (metrics.traffic.bytes_to_backends, metrics.traffic.bytes_to_clients) == (18, 19)


async def test_a_full_write_buffer_pauses_the_other_side_until_it_drains() -> None:
    network = FakeNetwork()
    client, _ = tcp_client(network, A)
    await settle()
    backend = network.dials[0]
    backend.protocol.pause_writing()  # the backend is slow to read
    assert not client.reading
    backend.protocol.resume_writing()
    assert client.reading
    client.protocol.pause_writing()  # type: ignore[union-attr]  (the client is slow)
    assert not backend.transport.reading
    client.protocol.resume_writing()  # type: ignore[union-attr]
    assert backend.transport.reading


async def test_a_half_close_is_passed_on_and_both_closes_end_the_pair() -> None:
    network = FakeNetwork()
    client, metrics = tcp_client(network, A)
    await settle()
    backend = network.dials[0]
    assert client.protocol.eof_received() is True  # type: ignore[union-attr]
    assert backend.transport.eof_written and not backend.transport.closed
    backend.protocol.data_received(b"late answer")
    assert bytes(client.written) == b"late answer"
    backend.protocol.eof_received()
    assert client.closed and backend.transport.closed
    await settle()
    assert metrics.traffic.active == 0


async def test_a_backend_reset_resets_the_client_and_leaves_nothing_open() -> None:
    network = FakeNetwork()
    client, metrics = tcp_client(network, A)
    await settle()
    backend = network.dials[0]
    backend.protocol.connection_lost(ConnectionResetError(104, "Connection reset by peer"))
    assert client.aborted
    await settle()
    assert metrics.traffic.active == 0 and backend.transport.closed


async def test_a_client_that_leaves_while_dialling_closes_the_backend() -> None:
    network = FakeNetwork()
    client, metrics = tcp_client(network, A)
    client.close()
    await settle()
    assert metrics.traffic.active == 0
    assert all(d.transport is None or d.transport.closed for d in network.dials)


async def test_affinity_is_recorded_for_the_backend_that_answered() -> None:
    network = FakeNetwork(refused={("127.1.0.2", 8080)})
    tcp_client(network, A, B, affinity=60)
    await settle()
    network.refused.clear()
    network.accept("127.96.0.20", 80)
    await settle()
    assert [d.host for d in network.dials] == ["127.1.0.2", "127.1.0.3", "127.1.0.3"]


def udp_frontend(network: FakeNetwork, clock: FakeClock, *backends: Backend) -> UdpFrontend:
    route = Route("kube-system/kube-dns:dns", backends, Balancer(clock, ROUND_ROBIN))
    frontend = UdpFrontend(RouteRef(route), network, clock, ProxyMetrics().traffic, timeout=30)
    frontend.connection_made(FakeDatagramTransport())
    return frontend


async def test_udp_datagrams_of_one_client_share_a_flow_and_replies_come_back() -> None:
    network, clock = FakeNetwork(), FakeClock()
    frontend = udp_frontend(network, clock, A, B)
    frontend.datagram_received(b"q1", ("127.0.0.5", 5353))
    frontend.datagram_received(b"q2", ("127.0.0.5", 5353))  # while the flow opens: held
    await settle()
    frontend.datagram_received(b"q3", ("127.0.0.5", 5353))
    frontend.datagram_received(b"other", ("127.0.0.6", 5353))
    await settle()
    first, second = network.dials
    assert (first.host, first.source, second.host) == ("127.1.0.2", "127.0.0.5", "127.1.0.3")
    assert [d for d, _ in first.transport.sent] == [b"q1", b"q2", b"q3"]
    first.protocol.datagram_received(b"answer", ("127.1.0.2", 8080))
    assert frontend.transport.sent == [(b"answer", ("127.0.0.5", 5353))]  # type: ignore[union-attr]


async def test_an_idle_udp_flow_closes_after_the_timeout_and_activity_extends_it() -> None:
    network, clock = FakeNetwork(), FakeClock()
    frontend = udp_frontend(network, clock, A)
    client = ("127.0.0.5", 5353)
    frontend.datagram_received(b"q", client)
    await settle()
    flow = frontend.flows[client]
    await clock.step(20)
    frontend.datagram_received(b"again", client)
    await clock.step(20)  # 40 s after the first, 20 s idle
    assert frontend.flows.get(client) is flow and not flow.closed
    await clock.step(11)
    assert client not in frontend.flows and flow.closed and network.dials[0].transport.closed
    frontend.datagram_received(b"new", client)  # a new flow, a new choice
    await settle()
    assert len(network.dials) == 2


async def test_an_icmp_refusal_closes_the_flow() -> None:
    network, clock = FakeNetwork(), FakeClock()
    frontend = udp_frontend(network, clock, A)
    frontend.datagram_received(b"q", ("127.0.0.5", 5353))
    await settle()
    network.dials[0].protocol.error_received(ConnectionRefusedError(111, "Connection refused"))
    assert frontend.flows == {}
