"""Request limits on a real apiserver over HTTPS (issue 13 items 2-4): heads over 1 MiB are a
431, slow heads are disconnected, bodies stop being read at 3 MiB (413) whatever their type
and framing, non-long-running requests end at ``--request-timeout`` (504) and release their
flow-control seat, watches end at ``--min-request-timeout`` when they ask for no timeout.

Limits are short here (``SHORT``) so that nothing waits long; every wait is on a condition."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import re
import ssl
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path

import httpx
import pytest

from apiserver.endpoints.watch import watch_timeout
from apiserver.filters.timeout import TIMED_OUT
from apiserver.security import SecurityConfig
from apiserver.serving import ServingOptions
from minikube_py.goduration import parse_go_duration
from minikube_py.httphead import TOO_LARGE_RESPONSE
from minikube_py.pki import CertKeyPair, ClusterPKI, ensure_client_certificate
from tests.apiserver.rawhttps import WAIT, head, parse_response, raw_https, status_of
from tests.audit.conftest import audit_log
from tests.client.apiserver import RunningApiserver, running_apiserver

SHORT = ServingOptions(request_timeout=1.0, min_request_timeout=1.0, read_header_timeout=0.5)
LIMIT = 3 * 1024 * 1024
TOO_LARGE_MESSAGE = "Request entity too large: limit is 3145728"
CONFIGMAPS = "/api/v1/namespaces/default/configmaps"


@pytest.fixture
async def server(tmp_path: Path) -> AsyncIterator[RunningApiserver]:
    """Short timeouts, for the tests of timeouts."""
    async with running_apiserver(tmp_path, serving=SHORT) as running:
        yield running


@pytest.fixture
async def roomy(tmp_path: Path) -> AsyncIterator[RunningApiserver]:
    """Upstream's timeouts, for the tests of sizes (a loaded machine must not turn a 413 into
    a 504)."""
    async with running_apiserver(tmp_path) as running:
        yield running


def admin(pki: ClusterPKI) -> CertKeyPair:
    return pki.admin


def https_client(running: RunningApiserver, cert: CertKeyPair | None = None) -> httpx.AsyncClient:
    context = ssl.create_default_context(cafile=str(running.pki.ca.cert))
    pair = cert or running.pki.admin
    context.load_cert_chain(str(pair.cert), str(pair.key))
    return httpx.AsyncClient(base_url=running.url, verify=context, timeout=WAIT)


async def assert_still_serving(running: RunningApiserver) -> None:
    async with https_client(running) as client:
        assert (await client.get("/version")).status_code == 200


# --- request heads --------------------------------------------------------------------------


async def test_a_head_over_one_mib_is_431_and_the_connection_closed(roomy: RunningApiserver) -> None:
    """Go's answer, before the header is complete: the client is still sending it (the
    issue's 64 MiB) when it comes."""
    async with raw_https(roomy.url, roomy.pki) as conn:
        assert await conn.send(head("GET", "/version").removesuffix(b"\r\n") + b"X-Big: ")
        sending = asyncio.create_task(_send_repeatedly(conn.send, b"a" * 65536, 1024))
        answer = await conn.until_closed()
        sending.cancel()
    assert answer == TOO_LARGE_RESPONSE
    await assert_still_serving(roomy)


async def test_a_head_within_the_limit_is_served(roomy: RunningApiserver) -> None:
    async with raw_https(roomy.url, roomy.pki) as conn:
        assert await conn.send(head("GET", "/version", "X-Big: " + "a" * 1_000_000, "Connection: close"))
        code, _, body = parse_response(await conn.until_closed())
    assert code == 200
    assert "gitVersion" in json.loads(body)


@pytest.mark.parametrize("sent", [b"", b"GET /version HTTP/1.1\r\nHost: a"], ids=["nothing", "half a head"])
async def test_a_head_that_does_not_arrive_in_time_is_disconnected(
    server: RunningApiserver, sent: bytes
) -> None:
    async with raw_https(server.url, server.pki) as conn:
        assert await conn.send(sent)
        assert await conn.until_closed() == b""  # Go answers nothing either
    await assert_still_serving(server)


async def test_the_head_timeout_starts_again_for_each_request(server: RunningApiserver) -> None:
    """A kept-alive connection is not cut while a response is awaited or between requests
    (that is the keep-alive timeout's job), only while a head is arriving."""
    async with https_client(server) as client:
        for _ in range(3):
            assert (await client.get("/version")).status_code == 200


# --- request bodies ---------------------------------------------------------------------------

BODY_TARGETS = {
    "json create": ("POST", CONFIGMAPS, "application/json"),
    "yaml create": ("POST", CONFIGMAPS, "application/yaml"),
    "protobuf create": ("POST", CONFIGMAPS, "application/vnd.kubernetes.protobuf"),
    "update": ("PUT", f"{CONFIGMAPS}/c", "application/json"),
    "merge patch": ("PATCH", f"{CONFIGMAPS}/c", "application/merge-patch+json"),
    "strategic merge patch": ("PATCH", f"{CONFIGMAPS}/c", "application/strategic-merge-patch+json"),
    "json patch": ("PATCH", f"{CONFIGMAPS}/c", "application/json-patch+json"),
    "apply patch": ("PATCH", f"{CONFIGMAPS}/c?fieldManager=t", "application/apply-patch+yaml"),
    "delete options": ("DELETE", f"{CONFIGMAPS}/c", "application/json"),
    "subresource": ("PUT", "/api/v1/namespaces/default/pods/p/status", "application/json"),
    "review": ("POST", "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews", "application/json"),
}


def assert_too_large(raw: bytes) -> None:
    code, headers, status = status_of(raw)
    assert (code, status["reason"], status["message"]) == (413, "RequestEntityTooLarge", TOO_LARGE_MESSAGE)
    assert status["kind"] == "Status" and status["code"] == 413
    assert headers["connection"] == "close"  # the rest of the body is not read


@pytest.mark.parametrize("target", list(BODY_TARGETS))
async def test_a_chunked_body_stops_being_read_at_the_limit(roomy: RunningApiserver, target: str) -> None:
    """No Content-Length: the 413 comes once the limit is passed, while the client is still
    sending (it never finishes here), so the body was not read whole first."""
    method, path, content_type = BODY_TARGETS[target]
    request = head(method, path, f"Content-Type: {content_type}", "Transfer-Encoding: chunked")
    chunk = b"%x\r\n" % 65536 + b"a" * 65536 + b"\r\n"
    async with raw_https(roomy.url, roomy.pki, admin(roomy.pki)) as conn:
        assert await conn.send(request)
        sending = asyncio.create_task(_send_repeatedly(conn.send, chunk, LIMIT // 65536 + 2))
        raw = await conn.until_closed()
        await sending
    assert_too_large(raw)
    await assert_still_serving(roomy)


@pytest.mark.parametrize("target", ["json create", "protobuf create", "json patch"])
async def test_a_declared_length_over_the_limit_is_refused_before_reading(
    roomy: RunningApiserver, target: str
) -> None:
    method, path, content_type = BODY_TARGETS[target]
    request = head(method, path, f"Content-Type: {content_type}", f"Content-Length: {400 * 1024 * 1024}")
    async with raw_https(roomy.url, roomy.pki, admin(roomy.pki)) as conn:
        assert await conn.send(request + b"{")  # and nothing more of the 400 MiB
        assert_too_large(await conn.until_closed())


async def test_a_body_at_the_limit_is_read(roomy: RunningApiserver) -> None:
    """Exactly 3 MiB gets past the reader (and is then refused for what it is, not its size)."""
    body = b" " * (LIMIT - 2) + b"{}"
    async with https_client(roomy) as client:
        response = await client.post(CONFIGMAPS, content=body, headers={"content-type": "application/json"})
    assert response.status_code != 413


async def test_a_client_gone_mid_body_is_one_log_line(
    roomy: RunningApiserver, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    request = head("POST", CONFIGMAPS, "Content-Type: application/json", "Content-Length: 1000")
    async with raw_https(roomy.url, roomy.pki, admin(roomy.pki)) as conn:
        assert await conn.send(request + b'{"metadata":')  # and then hang up
    await _until(lambda: any("disconnected after" in r.getMessage() for r in caplog.records))
    await assert_still_serving(roomy)
    assert not [r for r in caplog.records if r.exc_info or r.levelno >= logging.ERROR]
    assert "Traceback" not in caplog.text


async def _send_repeatedly(send: Callable[[bytes], Awaitable[bool]], data: bytes, times: int) -> None:
    for _ in range(times):
        if not await send(data):
            return


async def _until(condition: Callable[[], bool], timeout: float = WAIT) -> None:
    async with asyncio.timeout(timeout):
        while not condition():
            await asyncio.sleep(0.02)


# --- request timeouts -------------------------------------------------------------------------


async def trickled_post(running: RunningApiserver, cert: CertKeyPair) -> bytes:
    """A create whose body comes a byte every 50 ms, never all of it: what the server answers."""
    request = head("POST", CONFIGMAPS, "Content-Type: application/json", "Content-Length: 100000")
    async with raw_https(running.url, running.pki, cert) as conn:
        assert await conn.send(request)
        sending = asyncio.create_task(conn.trickle(b" " * 100000, 0.05))
        try:
            return await conn.until_closed()
        finally:
            sending.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await sending


def assert_timed_out(raw: bytes) -> None:
    code, headers, status = status_of(raw)
    assert status == {
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Failure",
        "message": TIMED_OUT,
        "reason": "Timeout",
        "details": {},
        "code": 504,
    }
    assert code == 504 and headers["connection"] == "close"


async def test_a_trickling_body_is_answered_504_at_the_request_timeout(server: RunningApiserver) -> None:
    assert_timed_out(await trickled_post(server, server.pki.admin))
    await assert_still_serving(server)


async def test_a_malformed_timeout_parameter_is_a_400(server: RunningApiserver) -> None:
    async with https_client(server) as client:
        response = await client.get(CONFIGMAPS, params={"timeout": "abc"})
    assert response.status_code == 400
    assert response.json()["message"] == (
        'invalid timeout specified in the request URL - time: invalid duration "abc"'
    )


async def test_watches_are_not_cut_by_the_request_timeout(server: RunningApiserver) -> None:
    """The watch outlives a request that timed out after it started, and still streams."""
    async with https_client(server) as client:
        params = {"watch": "1", "timeoutSeconds": "30"}
        async with client.stream("GET", CONFIGMAPS, params=params) as watch:
            assert watch.status_code == 200
            assert_timed_out(await trickled_post(server, server.pki.admin))  # the timeout has passed
            created = await client.post(CONFIGMAPS, json={"metadata": {"name": "after"}})
            assert created.status_code == 201
            lines = watch.aiter_lines()
            event = json.loads(await anext(lines))
    assert (event["type"], event["object"]["metadata"]["name"]) == ("ADDED", "after")


async def test_a_watch_without_timeout_seconds_ends_after_the_min_request_timeout(
    server: RunningApiserver,
) -> None:
    async with (
        https_client(server) as client,
        client.stream("GET", CONFIGMAPS, params={"watch": "1"}) as watch,
    ):
        assert watch.status_code == 200
        async with asyncio.timeout(WAIT):  # min 1 s: it ends within [1, 2) s, cleanly
            assert [line async for line in watch.aiter_lines()] == []
        await watch.aclose()


def test_watch_timeouts_are_spread_between_min_and_twice_min() -> None:
    drawn = {watch_timeout("", 10.0) for _ in range(200)} | {watch_timeout("0", 10.0) for _ in range(200)}
    assert all(10.0 <= seconds < 20.0 for seconds in drawn)
    assert len(drawn) > 100
    assert watch_timeout("5", 10.0) == 5
    assert watch_timeout("3600", 10.0) == 3600  # upstream does not cap timeoutSeconds


@pytest.mark.parametrize(
    ("text", "seconds"),
    [("30s", 30), ("1m30s", 90), ("1.5h", 5400), ("300ms", 0.3), ("-2s", -2), ("0", 0), (".5s", 0.5)],
)
def test_go_durations(text: str, seconds: float) -> None:
    assert parse_go_duration(text) == pytest.approx(seconds)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("abc", 'time: invalid duration "abc"'),
        ("", 'time: invalid duration ""'),
        ("10", 'time: missing unit in duration "10"'),
        ("3x", 'time: unknown unit "x" in duration "3x"'),
    ],
)
def test_go_duration_errors(text: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        parse_go_duration(text)


PRIORITY_AND_FAIRNESS = SecurityConfig(
    max_requests_inflight=4, max_mutating_requests_inflight=2, enable_priority_and_fairness=True
)


async def test_one_users_trickling_bodies_do_not_starve_another_users_creates(tmp_path: Path) -> None:
    """Issue 13: 60 trickling POSTs by one user made everyone else's creates 429 for as long
    as they lasted. Here alice trickles more bodies than her priority level has seats and
    queue room for; bob's creates succeed once the request timeout frees the seats."""
    async with running_apiserver(tmp_path, serving=SHORT, security=PRIORITY_AND_FAIRNESS) as running:
        alice = ensure_client_certificate(running.pki, "alice", user="alice")
        bob = ensure_client_certificate(running.pki, "bob", user="bob")
        trickles = [asyncio.create_task(trickled_post(running, alice)) for _ in range(12)]
        try:
            async with https_client(running, bob) as client:
                codes = []
                async with asyncio.timeout(WAIT * 2):
                    while not codes or codes[-1] != 201:
                        response = await client.post(CONFIGMAPS, json={"metadata": {"generateName": "b-"}})
                        codes.append(response.status_code)
                        if response.status_code != 201:
                            await asyncio.sleep(0.05)
            assert set(codes) <= {201, 429, 504}
            for raw in await asyncio.gather(*trickles):  # alice's end too, one way or another
                assert parse_response(raw)[0] in (429, 504)
        finally:
            for task in trickles:
                task.cancel()


async def test_the_audit_event_of_a_timed_out_request_records_the_504(tmp_path: Path) -> None:
    log = audit_log(tmp_path)
    audited = SecurityConfig(audit=log.config)
    async with running_apiserver(tmp_path, serving=SHORT, security=audited) as running:
        assert_timed_out(await trickled_post(running, running.pki.admin))
    completed = [e for e in log.for_uri(CONFIGMAPS) if e["stage"] == "ResponseComplete"]
    assert [(e["verb"], e["responseStatus"]["code"]) for e in completed] == [("create", 504)]
    assert completed[0]["responseStatus"]["message"] == TIMED_OUT


def test_every_handler_reads_bodies_through_the_bounded_reader() -> None:
    """A guard: ``request.body()``, ``.stream()`` or ``.json()`` anywhere else would read a
    body without the limit again."""
    root = Path(__file__).resolve().parents[2] / "apiserver"
    unbounded = re.compile(r"\.(body|stream|json|form)\(\)")
    found = [
        f"{path.relative_to(root)}:{number}"
        for path in root.rglob("*.py")
        if path.name != "requestbody.py"
        for number, line in enumerate(path.read_text().splitlines(), 1)
        if unbounded.search(line) and "request" in line
    ]
    assert found == []
