"""The retry policy and its use by ``RESTClient`` (unit tests over ``httpx.MockTransport``,
plus one against a real closed port)."""

from __future__ import annotations

import socket
import ssl
from collections.abc import Callable, Iterator

import httpx
import pytest

from minikube_py.api.errors import ApiError
from minikube_py.client import ClientConfig, ConnectionFailure, RESTClient, RetryPolicy
from minikube_py.client.resourcetypes import CONFIGMAPS
from minikube_py.client.retry import parse_retry_after
from minikube_py.client.transport import ConnectError, ConnectionLost
from tests.client.fakes import RecordingClock, mock_client

CM = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "x", "namespace": "default"}}
TOO_MANY = {
    "kind": "Status",
    "apiVersion": "v1",
    "status": "Failure",
    "message": "Too many requests, please try again later.",
    "reason": "TooManyRequests",
    "details": {"retryAfterSeconds": 2},
    "code": 429,
}


def scripted(
    *outcomes: httpx.Response | Exception,
) -> tuple[Callable[[httpx.Request], httpx.Response], list[str]]:
    """A handler answering with ``outcomes`` in turn (raising exceptions), the last one forever."""
    seen: list[str] = []
    replies: Iterator[httpx.Response | Exception] = iter(outcomes)
    last: list[httpx.Response | Exception] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(f"{request.method} {request.url.path}")
        outcome = next(replies, None)
        if outcome is None:
            outcome = last[0]
        else:
            last[:] = [outcome]
        if isinstance(outcome, Exception):
            raise outcome
        return outcome

    return handler, seen


def ok() -> httpx.Response:
    return httpx.Response(200, json=CM)


def test_policy_backoff_doubles_and_stops_at_the_attempt_and_time_budgets() -> None:
    policy = RetryPolicy()
    assert [policy.delay(n, 0.0) for n in range(1, 6)] == [0.1, 0.2, 0.4, 0.8, None]
    assert policy.delay(1, 0.0, retry_after=3.0) == 3.0
    assert policy.delay(2, 9.0, retry_after=2.0) is None  # would pass 10 s in all
    assert RetryPolicy(max_attempts=20).delay(10, 0.0) == 5.0  # capped


def test_policy_retryable_answers_and_errors() -> None:
    policy = RetryPolicy()
    assert policy.retryable_status("POST", 429, None)
    assert policy.retryable_status("GET", 503, 1.0)
    assert not policy.retryable_status("POST", 503, 1.0)  # may have been applied
    assert not policy.retryable_status("GET", 500, None)  # no Retry-After: a real failure
    assert not policy.retryable_status("GET", 409, 1.0)
    refused = ConnectError("refused")
    reset = ConnectionLost("reset")
    assert policy.retryable_error("POST", refused)
    assert not policy.retryable_error("POST", reset)
    assert all(policy.retryable_error(m, reset) for m in ("GET", "PUT", "PATCH", "DELETE"))


def test_parse_retry_after() -> None:
    assert parse_retry_after("3") == 3.0
    assert parse_retry_after(" 0 ") == 0.0
    assert parse_retry_after(None) is None
    assert parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT") is None
    assert parse_retry_after("-1") is None


async def test_429_with_retry_after_is_retried_after_that_long() -> None:
    handler, seen = scripted(httpx.Response(429, json=TOO_MANY, headers={"Retry-After": "2"}), ok())
    clock = RecordingClock()
    async with mock_client(handler, clock=clock) as client:
        created = await client.resource(CONFIGMAPS, "default").create(CM)
    assert created["metadata"]["name"] == "x"
    assert seen == ["POST /api/v1/namespaces/default/configmaps"] * 2  # POST too: it was not processed
    assert clock.sleeps == [2.0]


async def test_429_until_the_budget_is_spent_raises_too_many_requests() -> None:
    handler, seen = scripted(httpx.Response(429, json=TOO_MANY, headers={"Retry-After": "1"}))
    clock = RecordingClock()
    async with mock_client(handler, clock=clock) as client:
        with pytest.raises(ApiError) as err:
            await client.resource(CONFIGMAPS, "default").get("x")
    assert (err.value.code, err.value.reason, err.value.retry_after) == (429, "TooManyRequests", 2)
    assert len(seen) == 5
    assert clock.sleeps == [1.0] * 4


async def test_5xx_with_retry_after_is_retried_for_idempotent_requests_only() -> None:
    unavailable = httpx.Response(503, text="shutting down", headers={"Retry-After": "1"})
    handler, seen = scripted(unavailable, ok())
    async with mock_client(handler) as client:
        await client.resource(CONFIGMAPS, "default").update(CM)
    assert seen == ["PUT /api/v1/namespaces/default/configmaps/x"] * 2

    handler, seen = scripted(unavailable, ok())
    async with mock_client(handler) as client:
        with pytest.raises(ApiError) as err:
            await client.resource(CONFIGMAPS, "default").create(CM)
    assert len(seen) == 1
    assert (err.value.code, err.value.reason) == (503, "ServiceUnavailable")
    assert err.value.message == "the server is currently unable to handle the request (post configmaps x)"


async def test_500_without_retry_after_is_not_retried() -> None:
    handler, seen = scripted(httpx.Response(500, text="boom"), ok())
    async with mock_client(handler) as client:
        with pytest.raises(ApiError) as err:
            await client.resource(CONFIGMAPS, "default").get("x")
    assert len(seen) == 1
    assert (err.value.code, err.value.reason) == (500, "InternalError")
    assert "boom" in err.value.message


async def test_connection_errors_back_off_and_end_in_connection_failure() -> None:
    handler, seen = scripted(httpx.ConnectError("Connection refused"))
    clock = RecordingClock()
    async with mock_client(handler, clock=clock) as client:
        with pytest.raises(ConnectionFailure) as err:
            await client.resource(CONFIGMAPS, "default").create(CM)
    assert len(seen) == 5  # a POST that never connected is safe to resend
    assert clock.sleeps == [0.1, 0.2, 0.4, 0.8]
    assert err.value.message == (
        'Post "https://apiserver.test/api/v1/namespaces/default/configmaps": Connection refused'
    )
    assert isinstance(err.value, ApiError) and err.value.code == 0


async def test_a_reset_after_sending_is_retried_for_put_but_not_for_post() -> None:
    handler, seen = scripted(httpx.RemoteProtocolError("Server disconnected"), ok())
    async with mock_client(handler) as client:
        await client.resource(CONFIGMAPS, "default").update(CM)
    assert len(seen) == 2

    handler, seen = scripted(httpx.RemoteProtocolError("Server disconnected"), ok())
    async with mock_client(handler) as client:
        with pytest.raises(ConnectionFailure, match="Server disconnected"):
            await client.resource(CONFIGMAPS, "default").create(CM)
    assert len(seen) == 1


async def test_connection_refused_on_a_real_port_is_retried_then_raised() -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]  # closed again: nothing listens there
    clock = RecordingClock()
    config = ClientConfig(server=f"http://127.0.0.1:{port}", qps=0)
    async with RESTClient(config, clock=clock) as client:
        with pytest.raises(ConnectionFailure) as err:
            await client.resource(CONFIGMAPS, "default").get("x")
    assert clock.sleeps == [0.1, 0.2, 0.4, 0.8]
    assert err.value.message.startswith(
        f'Get "http://127.0.0.1:{port}/api/v1/namespaces/default/configmaps/x": '
    )
    assert isinstance(err.value.__cause__, ConnectError)


async def test_every_try_takes_a_rate_limiter_token() -> None:
    handler, seen = scripted(httpx.Response(429, json=TOO_MANY, headers={"Retry-After": "0"}), ok())
    clock = RecordingClock()
    async with mock_client(handler, clock=clock, qps=10.0, burst=1) as client:
        await client.resource(CONFIGMAPS, "default").get("x")  # token 1, then 429
        await client.resource(CONFIGMAPS, "default").get("x")
    assert len(seen) == 3
    # Retry-After 0, then the retry and the next request each wait 1/qps for a token
    assert clock.sleeps == [0.0, 0.1, 0.1]


def test_a_failed_certificate_verification_is_not_retried() -> None:
    try:
        raise ConnectError("[SSL: CERTIFICATE_VERIFY_FAILED]") from ssl.SSLCertVerificationError(1, "bad")
    except ConnectError as err:
        assert not RetryPolicy().retryable_error("GET", err)
