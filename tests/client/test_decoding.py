"""Decoding without a server: watch lines and events, and ``Status`` bodies into ``ApiError``
(``Gone`` for 410), and watch streams over ``httpx.MockTransport`` (ERROR events, bookmarks,
410 at establishment, a connection lost mid-stream)."""

from __future__ import annotations

from collections.abc import AsyncIterator

import httpx
import pytest

from minikube_py.api.errors import ApiError, not_found
from minikube_py.client import BOOKMARK, Gone, WatchEvent
from minikube_py.client.resourcetypes import CONFIGMAPS, DEPLOYMENTS, NODES, PODS
from minikube_py.client.status import error_from_response
from minikube_py.client.watch import decode_event, split_lines
from minikube_py.jsonutil import dumps
from tests.client.fakes import mock_client

EXPIRED = {
    "kind": "Status",
    "apiVersion": "v1",
    "metadata": {},
    "status": "Failure",
    "message": "too old resource version: 5 (90)",
    "reason": "Expired",
    "code": 410,
}


async def chunks(*parts: bytes) -> AsyncIterator[bytes]:
    for part in parts:
        yield part


async def test_split_lines_across_chunk_boundaries() -> None:
    lines = [line async for line in split_lines(chunks(b'{"a":', b"1}\n\n{", b'"b":2}\n{"c"', b":3}"))]
    assert lines == [b'{"a":1}', b'{"b":2}', b'{"c":3}']


def test_decode_event_kinds_and_errors() -> None:
    event = decode_event(b'{"type":"ADDED","object":{"metadata":{"name":"a"}}}')
    assert event == WatchEvent("ADDED", {"metadata": {"name": "a"}})
    with pytest.raises(Gone, match="too old resource version"):
        decode_event(dumps({"type": "ERROR", "object": EXPIRED}))
    with pytest.raises(ApiError) as err:
        decode_event(dumps({"type": "ERROR", "object": {**EXPIRED, "code": 504, "reason": "Timeout"}}))
    assert (err.value.code, err.value.reason) == (504, "Timeout")
    assert not isinstance(err.value, Gone)
    with pytest.raises(ApiError, match="unable to decode"):
        decode_event(b"not json")
    with pytest.raises(ApiError, match="type 'WEIRD'"):
        decode_event(b'{"type":"WEIRD","object":{}}')


def test_status_round_trips_into_api_error() -> None:
    original = not_found("deployments", "web", "apps")
    decoded = error_from_response(404, dumps(original.status()))
    assert decoded == original


@pytest.mark.parametrize(
    ("code", "reason", "message"),
    [
        (404, "NotFound", "the server could not find the requested resource (get configmaps x)"),
        (409, "Conflict", "the server reported a conflict (get configmaps x)"),
        (
            429,
            "TooManyRequests",
            "the server has received too many requests and has asked us to try again later"
            " (get configmaps x)",
        ),
        (
            503,
            "ServiceUnavailable",
            "the server is currently unable to handle the request (get configmaps x)",
        ),
        (
            502,
            "InternalError",
            "an error on the server ('<html>bad gateway</html>') has prevented the request from succeeding"
            " (get configmaps x)",
        ),
        (
            418,
            "",
            "the server responded with the status code 418 but did not return more information"
            " (get configmaps x)",
        ),
    ],
)
def test_a_body_that_is_not_a_status_gets_upstreams_generic_error(
    code: int, reason: str, message: str
) -> None:
    err = error_from_response(code, b"<html>bad gateway</html>", what="get configmaps x")
    assert (err.code, err.reason, err.message) == (code, reason, message)


def test_410_without_status_is_gone() -> None:
    assert isinstance(error_from_response(410, b""), Gone)


def watch_server(
    body: httpx.SyncByteStream | bytes, status: int = 200
) -> tuple[list[httpx.Request], httpx.MockTransport]:
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        if isinstance(body, bytes):
            return httpx.Response(status, content=body)
        return httpx.Response(status, stream=body)

    return seen, httpx.MockTransport(handler)


async def test_watch_query_and_bookmarks() -> None:
    lines = [
        {"type": "ADDED", "object": {"metadata": {"name": "a", "resourceVersion": "11"}}},
        {
            "type": "BOOKMARK",
            "object": {"kind": "Deployment", "apiVersion": "apps/v1", "metadata": {"resourceVersion": "12"}},
        },
    ]
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, content=b"\n".join(dumps(line) for line in lines) + b"\n")

    async with mock_client(handler, token="secret-token", user_agent="tester/1") as client:
        watch = client.resource(DEPLOYMENTS, "ns1").watch(
            resource_version="10",
            label_selector="app=x",
            field_selector="metadata.name=a",
            timeout_seconds=30,
        )
        events = [event async for event in watch]
    assert [e.type for e in events] == ["ADDED", BOOKMARK]
    assert events[1].object["metadata"]["resourceVersion"] == "12"
    request = seen[0]
    assert request.url.path == "/apis/apps/v1/namespaces/ns1/deployments"
    assert dict(request.url.params) == {
        "watch": "true",
        "labelSelector": "app=x",
        "fieldSelector": "metadata.name=a",
        "resourceVersion": "10",
        "allowWatchBookmarks": "true",
        "timeoutSeconds": "30",
    }
    assert request.headers["authorization"] == "Bearer secret-token"
    assert request.headers["user-agent"] == "tester/1"


async def test_watch_410_at_establishment_is_gone() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(410, json=EXPIRED)

    async with mock_client(handler) as client:
        with pytest.raises(Gone, match="too old resource version: 5"):
            async for _ in client.resource(CONFIGMAPS).watch(resource_version="5"):
                pass


async def test_watch_error_event_is_raised_after_earlier_events() -> None:
    body = dumps({"type": "MODIFIED", "object": {"metadata": {"name": "a"}}}) + b"\n"
    body += dumps({"type": "ERROR", "object": EXPIRED}) + b"\n"

    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, content=body)

    got: list[str] = []
    async with mock_client(handler) as client:
        with pytest.raises(Gone):
            async for event in client.resource(CONFIGMAPS, "default").watch(resource_version="1"):
                got.append(event.type)
    assert got == ["MODIFIED"]


class Disconnecting(httpx.AsyncByteStream):
    """One event, then the connection drops."""

    async def __aiter__(self) -> AsyncIterator[bytes]:
        yield dumps({"type": "ADDED", "object": {"metadata": {"name": "a"}}}) + b"\n"
        raise httpx.RemoteProtocolError("peer closed connection without sending complete message body")


async def test_a_connection_lost_mid_stream_ends_the_watch_quietly() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, stream=Disconnecting())

    async with mock_client(handler) as client:
        events = [e async for e in client.resource(CONFIGMAPS, "default").watch()]
    assert [e.object["metadata"]["name"] for e in events] == ["a"]


async def test_paths_for_core_grouped_cluster_and_all_namespace_handles() -> None:
    seen: list[str] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(f"{request.method} {request.url.path}?{request.url.query.decode()}")
        return httpx.Response(200, json={"kind": "Status", "apiVersion": "v1", "status": "Success"})

    async with mock_client(handler) as client:
        await client.resource(PODS).list(limit=5, continue_="tok", resource_version="0")
        await client.resource(NODES, "ignored").get("n1")
        await client.resource(DEPLOYMENTS, "ns").patch(
            "d", b'{"spec":{}}', subresource="scale", field_manager="m"
        )
        await client.resource(PODS, "ns").delete("p", propagation_policy="Foreground", grace_period_seconds=0)
        await client.resource(PODS).update_status({"metadata": {"name": "p", "namespace": "ns2"}})
    assert seen == [
        "GET /api/v1/pods?resourceVersion=0&limit=5&continue=tok",
        "GET /api/v1/nodes/n1?",
        "PATCH /apis/apps/v1/namespaces/ns/deployments/d/scale?fieldManager=m",
        "DELETE /api/v1/namespaces/ns/pods/p?",
        "PUT /api/v1/namespaces/ns2/pods/p/status?",
    ]


async def test_names_and_selectors_are_escaped_exactly_once() -> None:
    """Regression: ``RESTResource`` escapes names itself; the client must not escape the "%"."""
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, json={"kind": "ConfigMap", "apiVersion": "v1", "metadata": {"name": "x"}})

    async with mock_client(handler) as client:
        await client.resource(CONFIGMAPS, "default").get("system:node:a")
        await client.resource(CONFIGMAPS, "default").list(label_selector="app in (a,b),tier!=db")
    assert seen[0].url.raw_path == b"/api/v1/namespaces/default/configmaps/system%3Anode%3Aa"
    assert seen[1].url.params["labelSelector"] == "app in (a,b),tier!=db"
    assert b"%25" not in seen[1].url.raw_path


async def test_a_server_with_a_non_ascii_host_name_is_sent_as_idna() -> None:
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, json={"kind": "ConfigMap", "apiVersion": "v1", "metadata": {"name": "x"}})

    async with mock_client(handler, server="https://bücher.test:6443/") as client:
        await client.resource(CONFIGMAPS, "default").get("x")
    assert str(seen[0].url) == "https://xn--bcher-kva.test:6443/api/v1/namespaces/default/configmaps/x"
