"""The proxy on real loopback sockets with real backend servers (the API is a fake client):
TCP echo and HTTP through ClusterIPs and NodePorts, UDP echo, refused and resetting backends,
a Service without endpoints, a large transfer under flow control, an address in use. Each
runs on asyncio's loop and on uvloop (the command line's; ``conftest.py``)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import socket
from typing import Any

import httpx
import pytest

from minikube_py.clock import RealClock
from nodeagent.proxy.network import AsyncioNetwork
from nodeagent.proxy.proxier import ProxyConfig
from tests.nodeagent.proxy.backends import refused_address, tcp_server, udp_server, unique_ip
from tests.nodeagent.proxy.harness import Harness, endpoint, endpoint_slice, node, running, service
from tests.waiting import eventually

PORT = 8000


def harness(**config: Any) -> Harness:
    return Harness(AsyncioNetwork(), RealClock(), ProxyConfig(min_sync_period=0.0, **config))


async def serving(h: Harness, key: tuple[str, str, int]) -> None:
    await eventually(lambda: key in h.proxier.listeners.open, f"the proxy listening on {key}")


async def echo(host: str, port: int, data: bytes, source: str = "127.0.0.1") -> bytes:
    reader, writer = await asyncio.open_connection(host, port, local_addr=(source, 0))
    writer.write(data)
    writer.write_eof()
    answer = await reader.read()
    writer.close()
    return answer


async def test_tcp_through_a_cluster_ip_reaches_every_backend_with_the_clients_address() -> None:
    ip = unique_ip()
    h = harness()
    async with tcp_server() as (a_host, a_port, a_peers), tcp_server() as (b_host, b_port, b_peers):
        await h.apply(
            service("web", ip, {"name": "http", "port": PORT, "protocol": "TCP"}),
            endpoint_slice("web", endpoint(a_host), port=a_port, suffix="a"),
            endpoint_slice("web", endpoint(b_host), port=b_port, suffix="b"),
        )
        async with running(h):
            await serving(h, ("TCP", ip, PORT))
            await eventually(
                lambda: len(h.proxier.listeners.open[("TCP", ip, PORT)].ref.route.backends) == 2, "2"
            )
            for _ in range(40):  # random choice: both are reached (a miss has odds of 2^-39)
                assert await echo(ip, PORT, b"hello", source="127.0.0.33") == b"hello"
            assert a_peers and b_peers and set(a_peers + b_peers) == {"127.0.0.33"}


async def test_a_refusing_endpoint_is_skipped_fast_and_a_service_without_endpoints_refuses() -> None:
    ip, empty = unique_ip(), unique_ip()
    dead_host, dead_port = refused_address()
    h = harness(selection="round-robin")
    loop = asyncio.get_running_loop()
    async with tcp_server() as (host, port, peers):
        await h.apply(
            service("web", ip, {"name": "http", "port": PORT, "protocol": "TCP"}),
            endpoint_slice("web", endpoint(dead_host), port=dead_port, suffix="dead"),
            endpoint_slice("web", endpoint(host), port=port, suffix="live"),
            service("empty", empty, {"name": "http", "port": PORT, "protocol": "TCP"}),
        )
        async with running(h):
            await serving(h, ("TCP", ip, PORT))
            start = loop.time()
            for _ in range(10):  # round-robin: the dead one is first every other time
                assert await echo(ip, PORT, b"x") == b"x"
            assert loop.time() - start < 1.0
            assert h.proxier.metrics.traffic.dial_failures == 5
            start = loop.time()
            with pytest.raises(ConnectionRefusedError):
                await asyncio.open_connection(empty, PORT)
            await h.apply(endpoint_slice("web", endpoint(host, ready=False), port=port, suffix="live"))
            await eventually(
                lambda: len(h.proxier.listeners.open[("TCP", ip, PORT)].ref.route.backends) == 1, "1"
            )
            with pytest.raises(ConnectionResetError):  # only the dead one: reset at once, no hang
                await echo(ip, PORT, b"x")
            assert loop.time() - start < 1.0
    assert len(peers) == 10  # every connection reached the live one


async def test_udp_through_a_cluster_ip_keeps_one_flow_per_client() -> None:
    ip = unique_ip()
    h = harness()
    async with udp_server() as (host, port, peers):
        await h.apply(
            service("dns", ip, {"name": "dns", "port": 53, "protocol": "UDP"}),
            endpoint_slice("dns", endpoint(host), port=port, name="dns", protocol="UDP"),
        )
        async with running(h):
            await serving(h, ("UDP", ip, 53))
            loop = asyncio.get_running_loop()
            with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as client:
                client.bind(("127.0.0.44", 0))
                client.setblocking(False)
                await loop.sock_connect(client, (ip, 53))
                for query in (b"one", b"two"):
                    await loop.sock_sendall(client, query)
                    assert await asyncio.wait_for(loop.sock_recv(client, 100), 5) == query
            assert peers == ["127.0.0.44", "127.0.0.44"]
            assert h.proxier.metrics.traffic.udp_flows == 1


async def test_http_through_a_node_port_on_the_nodes_address() -> None:
    ip, node_ip = unique_ip(), unique_ip("127.63")
    h = harness(node_names=frozenset({"node-1"}))
    async with tcp_server("http", name="pod-a") as (host, port, _):
        await h.apply(
            node("node-1", node_ip),
            service(
                "web",
                ip,
                {"name": "http", "port": PORT, "nodePort": 30080, "protocol": "TCP"},
                type="NodePort",
            ),
            endpoint_slice("web", endpoint(host), port=port),
        )
        async with running(h):
            await serving(h, ("TCP", node_ip, 30080))
            async with httpx.AsyncClient() as client:
                for url in (f"http://{node_ip}:30080/", f"http://{ip}:{PORT}/"):
                    response = await client.get(url)
                    assert (response.status_code, response.text) == (200, "pod-a")


async def test_a_backend_that_accepts_then_resets_resets_the_client_and_leaks_nothing() -> None:
    ip = unique_ip()
    h = harness()
    async with tcp_server("reset") as (host, port, _):
        await h.apply(
            service("web", ip, {"name": "http", "port": PORT, "protocol": "TCP"}),
            endpoint_slice("web", endpoint(host), port=port),
        )
        async with running(h):
            await serving(h, ("TCP", ip, PORT))
            reader, writer = await asyncio.open_connection(ip, PORT)
            writer.write(b"hello")
            with contextlib.suppress(ConnectionResetError):  # the reset passed on, or a close
                assert await asyncio.wait_for(reader.read(), 5) == b""
            writer.close()
            await eventually(lambda: h.proxier.metrics.traffic.active == 0, "no open connection")


async def test_a_large_transfer_survives_flow_control_byte_for_byte() -> None:
    ip = unique_ip()
    h = harness()
    payload = os.urandom(8 << 20)
    async with tcp_server() as (host, port, _):
        await h.apply(
            service("web", ip, {"name": "http", "port": PORT, "protocol": "TCP"}),
            endpoint_slice("web", endpoint(host), port=port),
        )
        async with running(h):
            await serving(h, ("TCP", ip, PORT))
            reader, writer = await asyncio.open_connection(ip, PORT)

            async def send() -> None:
                writer.write(payload)
                await writer.drain()
                writer.write_eof()

            sending = asyncio.ensure_future(send())
            received = await asyncio.wait_for(reader.read(-1), 30)
            await sending
            writer.close()
            assert received == payload
            assert h.proxier.metrics.traffic.bytes_to_backends == len(payload)


async def test_an_address_another_process_serves_is_logged_and_taken_when_freed(
    caplog: pytest.LogCaptureFixture,
) -> None:
    ip = unique_ip()
    h = harness(bind_retry_period=0.2)
    squatter = socket.socket()
    squatter.bind((ip, PORT))
    squatter.listen()
    async with tcp_server() as (host, port, _):
        await h.apply(
            service("web", ip, {"name": "http", "port": PORT, "protocol": "TCP"}),
            endpoint_slice("web", endpoint(host), port=port),
        )
        with caplog.at_level(logging.INFO, "proxy"):
            async with running(h):
                await eventually(lambda: ("TCP", ip, PORT) in h.proxier.listeners.failed, "the failed bind")
                squatter.close()
                await serving(h, ("TCP", ip, PORT))
                assert await echo(ip, PORT, b"mine") == b"mine"
    messages = [r.getMessage() for r in caplog.records]
    assert (
        messages.count(
            "proxy: another process (another cluster on this machine?) "
            f"serves {ip}:{PORT}; retrying every 0.2s"
        )
        == 1
    )
    assert f"proxy: now serving {ip}:{PORT} (default/web:http)" in messages
