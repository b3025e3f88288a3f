"""The ingress controller end to end inside one process: real loopback sockets, real backend
HTTP servers, the API faked. Two hosts to two Services, Exact vs Prefix, ingress-nginx's
headers, keep-alive on both sides, streamed bodies, 404 / 503 (logged once) / 502 (after the
other endpoints) / a reset mid-response closing the client connection, an Upgrade passed
through, and the Ingresses' status."""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import AsyncIterator

import httpx
import pytest

from minikube_py.api import errors
from minikube_py.client.resourcetypes import SERVICES
from nodeagent.ingress.controller import ENDPOINT_SLICES, INGRESSES
from tests.nodeagent.ingress.backends import Backend, refused_port
from tests.nodeagent.ingress.harness import endpoint_slice, ingress, rule, running_controller, seeded, service
from tests.waiting import eventually


@pytest.fixture
async def backends() -> AsyncIterator[dict[str, Backend]]:
    made = {
        name: await Backend(name, mode).start()
        for name, mode in [
            ("a", "ok"),
            ("b", "ok"),
            ("exact", "ok"),
            ("reset", "reset"),
            ("echo", "upgrade"),
            ("closer", "close"),
            ("dropper", "drop-second"),
        ]
    }
    yield made
    for backend in made.values():
        await backend.stop()


def two_hosts(b: dict[str, Backend]) -> object:
    return seeded(
        ingress(
            "web",
            rule("a.localhost", ("/", "Prefix", "a", 80), ("/exact", "Exact", "exact", "http")),
            rule("b.localhost", ("/", "Prefix", "b", 80)),
            rule("missing.localhost", ("/", "Prefix", "nowhere", 80)),
            rule("empty.localhost", ("/", "Prefix", "empty", 80)),
            rule("refused.localhost", ("/", "Prefix", "refused", 80)),
            rule("reset.localhost", ("/", "Prefix", "reset", 80)),
            rule("echo.localhost", ("/", "Prefix", "echo", 80)),
            rule("closer.localhost", ("/", "Prefix", "closer", 80)),
            rule("dropper.localhost", ("/", "Prefix", "dropper", 80)),
        ),
        services=[
            service("a"),
            service("b"),
            service("exact", 8080, "http"),
            service("empty"),
            service("refused"),
            service("reset"),
            service("echo"),
            service("closer"),
            service("dropper"),
        ],
        slices=[
            endpoint_slice("a", b["a"].port),
            endpoint_slice("b", b["b"].port),
            endpoint_slice("exact", b["exact"].port, port_name="http"),
            endpoint_slice("empty", b["a"].port, ready=False),
            endpoint_slice("refused", refused_port()),
            endpoint_slice("reset", b["reset"].port),
            endpoint_slice("echo", b["echo"].port),
            endpoint_slice("closer", b["closer"].port),
            endpoint_slice("dropper", b["dropper"].port),
        ],
    )


async def test_two_hosts_reach_two_services_with_exact_and_prefix_paths(backends: dict[str, Backend]) -> None:
    async with running_controller(two_hosts(backends)) as ing, httpx.AsyncClient(base_url=ing.url) as http:  # type: ignore[arg-type]
        a = await http.get("/any/path?q=1", headers={"Host": "a.localhost"})
        b = await http.get("/", headers={"Host": "b.localhost"})
        exact = await http.get("/exact", headers={"Host": "a.localhost"})
        below_exact = await http.get("/exact/more", headers={"Host": "a.localhost"})
        assert (a.status_code, a.json()["backend"], a.json()["line"]) == (
            200,
            "a",
            "GET /any/path?q=1 HTTP/1.1",
        )
        assert b.json()["backend"] == "b"
        assert exact.json()["backend"] == "exact" and below_exact.json()["backend"] == "a"
        headers = a.json()["headers"]
        assert headers["host"] == "a.localhost"
        assert headers["x-forwarded-for"] == headers["x-real-ip"] == "127.0.0.1"
        assert (headers["x-forwarded-host"], headers["x-forwarded-proto"]) == ("a.localhost", "http")
        assert headers["x-forwarded-port"] == str(ing.port) and len(headers["x-request-id"]) == 32
        # one client connection carried all four; the backend's connection was kept alive too
        assert backends["a"].connections == 1 and len(backends["a"].requests) == 2


async def test_a_client_supplied_forwarded_for_is_replaced(backends: dict[str, Backend]) -> None:
    async with running_controller(two_hosts(backends)) as ing, httpx.AsyncClient(base_url=ing.url) as http:  # type: ignore[arg-type]
        r = await http.get("/", headers={"Host": "a.localhost", "X-Forwarded-For": "6.6.6.6"})
        assert r.json()["headers"]["x-forwarded-for"] == "127.0.0.1"


async def test_bodies_stream_both_ways(backends: dict[str, Backend]) -> None:
    async def chunks() -> AsyncIterator[bytes]:
        for i in range(50):
            yield f"chunk{i},".encode()

    async with running_controller(two_hosts(backends)) as ing, httpx.AsyncClient(base_url=ing.url) as http:  # type: ignore[arg-type]
        r = await http.post("/upload", headers={"Host": "b.localhost"}, content=chunks())
        assert r.status_code == 200
        assert r.json()["body"] == "".join(f"chunk{i}," for i in range(50))
        assert r.json()["headers"]["transfer-encoding"] == "chunked"
        sized = await http.put("/put", headers={"Host": "b.localhost"}, content=b"x" * 200_000)
        assert len(sized.json()["body"]) == 200_000


async def test_no_rule_is_404_from_the_default_backend(backends: dict[str, Backend]) -> None:
    async with running_controller(two_hosts(backends)) as ing, httpx.AsyncClient(base_url=ing.url) as http:  # type: ignore[arg-type]
        r = await http.get("/", headers={"Host": "nobody.localhost"})
        assert r.status_code == 404 and "404 Not Found" in r.text
        after = await http.get("/", headers={"Host": "a.localhost"})  # the connection lives on
        assert after.json()["backend"] == "a"


async def test_missing_service_and_no_ready_endpoints_are_503_logged_once(
    backends: dict[str, Backend], caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING, "ingress")
    async with running_controller(two_hosts(backends)) as ing, httpx.AsyncClient(base_url=ing.url) as http:  # type: ignore[arg-type]
        for _ in range(3):
            missing = await http.post("/", headers={"Host": "missing.localhost"}, content=b"dropped")
            empty = await http.get("/", headers={"Host": "empty.localhost"})
            assert (missing.status_code, empty.status_code) == (503, 503)
        lines = [r.getMessage() for r in caplog.records if "503" in r.getMessage()]
        assert lines == [
            'ingress default/web: answering 503: service "default/nowhere" does not exist',
            'ingress default/web: answering 503: service "default/empty" has no ready endpoints on port 80',
        ]


async def test_a_refusing_endpoint_is_skipped_and_all_refusing_is_502(backends: dict[str, Backend]) -> None:
    fake = two_hosts(backends)
    async with running_controller(fake) as ing, httpx.AsyncClient(base_url=ing.url) as http:  # type: ignore[arg-type]
        r = await http.get("/", headers={"Host": "refused.localhost"})
        assert r.status_code == 502 and "502 Bad Gateway" in r.text
        await fake.resource(ENDPOINT_SLICES, "default").create(endpoint_slice("refused", backends["b"].port))  # type: ignore[attr-defined]
        await eventually(
            lambda: len(ing.controller.route("refused.localhost", "/").endpoints) == 2, "two endpoints"
        )
        answers = [await http.get("/", headers={"Host": "refused.localhost"}) for _ in range(4)]
        assert {(r.status_code, r.json()["backend"]) for r in answers} == {(200, "b")}


async def test_a_backend_reset_mid_response_closes_the_client_connection(
    backends: dict[str, Backend],
) -> None:
    async with running_controller(two_hosts(backends)) as ing:
        reader, writer = await asyncio.open_connection("127.0.0.1", ing.port)
        writer.write(b"GET / HTTP/1.1\r\nHost: reset.localhost\r\n\r\n")
        received = await reader.read()  # to EOF: the proxy closes instead of finishing the body
        writer.close()
        assert received.startswith(b"HTTP/1.1 200 ") and b"content-length: 100000" in received.lower()
        assert len(received.split(b"\r\n\r\n", 1)[1]) < 100_000
        assert not ing.proxy.pool._idle.get(("127.0.0.1", backends["reset"].port))
        async with httpx.AsyncClient(base_url=ing.url) as http:  # the controller still serves
            assert (await http.get("/", headers={"Host": "a.localhost"})).status_code == 200


async def test_an_upgrade_becomes_a_byte_pipe(backends: dict[str, Backend]) -> None:
    async with running_controller(two_hosts(backends)) as ing:
        reader, writer = await asyncio.open_connection("127.0.0.1", ing.port)
        writer.write(
            b"GET /ws HTTP/1.1\r\nHost: echo.localhost\r\nConnection: Upgrade\r\nUpgrade: echo\r\n\r\n"
        )
        head = await reader.readuntil(b"\r\n\r\n")
        assert head.startswith(b"HTTP/1.1 101 ")
        writer.write(b"hello")
        assert await reader.readexactly(5) == b"HELLO"
        writer.close()
        seen = backends["echo"].requests[0]["headers"]
        assert seen["upgrade"] == "echo" and seen["connection"].lower() == "upgrade"  # type: ignore[index]


async def test_served_ingresses_get_the_address_in_their_status(backends: dict[str, Backend]) -> None:
    fake = seeded(
        ingress("mine", rule("a.io", ("/", "Prefix", "a", 80))),
        ingress("classless", rule("b.io", ("/", "Prefix", "a", 80)), class_name=None),
        ingress("theirs", rule("c.io", ("/", "Prefix", "a", 80)), class_name="nginx"),
        services=[service("a")],
        slices=[endpoint_slice("a", backends["a"].port)],
    )
    async with running_controller(fake) as ing, httpx.AsyncClient(base_url=ing.url) as http:
        wanted = {
            "loadBalancer": {
                "ingress": [
                    {
                        "ip": "127.0.0.1",
                        "ports": [
                            {"port": ing.port, "protocol": "TCP"},
                            {"port": ing.tls_port, "protocol": "TCP"},
                        ],
                    }
                ]
            }
        }
        for name in ("mine", "classless"):  # the class is the default: class-less ones are served
            await eventually(lambda n=name: fake.stored(INGRESSES, "default", n)["status"] == wanted, name)  # type: ignore[index,misc]
        assert "status" not in (fake.stored(INGRESSES, "default", "theirs") or {})
        assert ing.controller.recorder.events == ["Normal Sync Scheduled for sync"] * 2  # type: ignore[union-attr]
        assert (await http.get("/", headers={"Host": "c.io"})).status_code == 404
        assert (await http.get("/", headers={"Host": "b.io"})).json()["backend"] == "a"
        assert fake.stored(SERVICES, "default", "a") is not None


async def test_routes_follow_ingress_changes(backends: dict[str, Backend]) -> None:
    fake = two_hosts(backends)
    async with running_controller(fake) as ing, httpx.AsyncClient(base_url=ing.url) as http:  # type: ignore[arg-type]
        await fake.resource(INGRESSES, "default").create(
            ingress("late", rule("late.localhost", ("/", "Prefix", "b", 80)))
        )  # type: ignore[attr-defined]
        await eventually(
            lambda: ing.controller.route("late.localhost", "/").backend is not None, "the new route"
        )
        r = await http.get("/", headers={"Host": "late.localhost"})
        assert json.loads(r.text)["backend"] == "b"
        await fake.resource(INGRESSES, "default").delete("late")  # type: ignore[attr-defined]
        await eventually(
            lambda: ing.controller.route("late.localhost", "/").backend is None, "the route gone"
        )
        assert (await http.get("/", headers={"Host": "late.localhost"})).status_code == 404


async def test_a_kept_alive_connection_the_backend_closed_is_replaced(backends: dict[str, Backend]) -> None:
    async with running_controller(two_hosts(backends)) as ing, httpx.AsyncClient(base_url=ing.url) as http:  # type: ignore[arg-type]
        answers = [await http.get(f"/{i}", headers={"Host": "closer.localhost"}) for i in range(5)]
        assert [r.status_code for r in answers] == [200] * 5
        assert backends["closer"].connections == 5


async def test_a_bodiless_request_the_kept_alive_backend_dropped_is_retried_once(
    backends: dict[str, Backend],
) -> None:
    async with running_controller(two_hosts(backends)) as ing, httpx.AsyncClient(base_url=ing.url) as http:  # type: ignore[arg-type]
        answers = [await http.get(f"/{i}", headers={"Host": "dropper.localhost"}) for i in range(3)]
        assert [r.status_code for r in answers] == [200] * 3
        assert backends["dropper"].connections == 3  # each second request went to a new one


async def test_an_http10_request_without_host_goes_to_the_host_less_rules(
    backends: dict[str, Backend],
) -> None:
    fake = seeded(
        ingress(
            "any",
            {
                "http": {
                    "paths": [
                        {
                            "path": "/",
                            "pathType": "Prefix",
                            "backend": {"service": {"name": "a", "port": {"number": 80}}},
                        }
                    ]
                }
            },
        ),
        services=[service("a")],
        slices=[endpoint_slice("a", backends["a"].port)],
    )
    async with running_controller(fake) as ing:
        reader, writer = await asyncio.open_connection("127.0.0.1", ing.port)
        writer.write(b"GET /old HTTP/1.0\r\n\r\n")
        answer = await reader.read()  # HTTP/1.0: the proxy closes after the response
        writer.close()
        assert answer.startswith(b"HTTP/1.1 200 ")
        assert json.loads(answer.split(b"\r\n\r\n", 1)[1])["headers"]["host"] == f"127.0.0.1:{ing.port}"


async def test_a_request_that_is_not_http_is_answered_400(backends: dict[str, Backend]) -> None:
    async with running_controller(two_hosts(backends)) as ing:
        reader, writer = await asyncio.open_connection("127.0.0.1", ing.port)
        writer.write(b"\x16\x03\x01 not http at all\r\n\r\n")
        answer = await reader.read()
        writer.close()
        assert answer.startswith(b"HTTP/1.1 400 ")


async def test_a_failed_status_write_is_retried(backends: dict[str, Backend]) -> None:
    fake = seeded(
        ingress("mine", rule("a.io", ("/", "Prefix", "a", 80))),
        services=[service("a")],
        slices=[endpoint_slice("a", backends["a"].port)],
    )
    fake.fail("update", "ingresses", errors.ApiError(500, "InternalError", "etcd is sulking"), times=2)
    async with running_controller(fake) as ing:
        await eventually(
            lambda: fake.stored(INGRESSES, "default", "mine")["status"], "the status", timeout=10
        )  # type: ignore[index]
        assert len(fake.filter_actions("update", "ingresses")) == 3
        assert ing.controller.route("a.io", "/").endpoints  # routing went on meanwhile
