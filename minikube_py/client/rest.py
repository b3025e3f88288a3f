"""``RESTClient``: the ``Client`` that speaks HTTP(S) to an apiserver.

Requests go through a ``Transport`` (``transport.py``; aiohttp's connection pool unless one is
given). Every request, each retry and each watch establishment first takes a token from the
client-side rate limiter (``TokenBucket``), then is sent and, when it fails in a retryable way,
sent again (``retry.RetryPolicy``). A non-2xx answer raises ``ApiError`` decoded from the
server's ``Status`` (410: ``Gone``); a request that gets no answer at all raises
``ConnectionFailure``.

Watches stream the response body line by line with no read timeout (the server ends them at
``timeoutSeconds``); the generator closes the HTTP stream when the consumer stops (``aclose``,
``break`` inside ``contextlib.aclosing``, cancellation). A connection lost mid-stream ends the
stream quietly, as client-go's ``StreamWatcher`` does: the caller re-watches from its last RV.
"""

from __future__ import annotations

import contextlib
import dataclasses
import logging
from collections.abc import AsyncIterator, Mapping
from pathlib import Path
from types import TracebackType
from urllib.parse import quote, urlencode

from yarl import URL

from minikube_py.api.errors import ApiError
from minikube_py.api.scheme import ResourceType
from minikube_py.api.unstructured import Object
from minikube_py.client.config import ClientConfig, load_kubeconfig
from minikube_py.client.interfaces import ConnectionFailure, WatchEvent
from minikube_py.client.ratelimit import TokenBucket
from minikube_py.client.resource import RESTResource
from minikube_py.client.retry import RetryPolicy, parse_retry_after
from minikube_py.client.status import error_from_response
from minikube_py.client.transport import (
    AiohttpTransport,
    ConnectionLost,
    HTTPRequest,
    HTTPResponse,
    ReadTimeout,
    Transport,
    TransportError,
)
from minikube_py.client.watch import decode_events
from minikube_py.clock import Clock, RealClock
from minikube_py.jsonutil import loads

# What a path may carry unescaped (RFC 3986 pchar and "/"). "%" too: callers escape names
# themselves (``RESTResource``: "system:node:x" -> "system%3Anode%3Ax"), never twice.
PATH_SAFE = "/:@!$&'()*+,;=~%"

logger = logging.getLogger("client")

# Like Go's http.Transport as client-go configures it: plenty of connections per host
# (watch streams hold one each).
CONNECTIONS = 100


class RESTClient:
    """The ``Client`` over HTTP(S). ``transport`` replaces the network (tests); ``clock``
    paces the rate limiter and retry waits; ``retry`` is the retry policy."""

    def __init__(
        self,
        config: ClientConfig,
        *,
        clock: Clock | None = None,
        retry: RetryPolicy | None = None,
        transport: Transport | None = None,
    ) -> None:
        self.config = config
        self._clock: Clock = clock or RealClock()
        self._retry = retry or RetryPolicy()
        self._limiter = TokenBucket(config.qps, config.burst, self._clock)
        self._server = str(URL(config.server)).rstrip("/")  # IDNA host names as ASCII
        self._headers = {"User-Agent": config.user_agent, "Accept": "application/json"}
        if config.token:
            self._headers["Authorization"] = f"Bearer {config.token}"
        if transport is None:
            tls = config.ssl_context() if config.server.startswith("https:") else None
            transport = AiohttpTransport(tls, limit=CONNECTIONS)
        self._transport = transport

    @classmethod
    def from_kubeconfig(
        cls,
        path: Path | str,
        *,
        context: str | None = None,
        qps: float | None = None,
        burst: int | None = None,
        user_agent: str | None = None,
    ) -> RESTClient:
        """A client for ``context`` (default: the current one) of the kubeconfig at ``path``;
        ``qps``, ``burst`` and ``user_agent`` override the defaults. Raises ``KubeconfigError``."""
        config = load_kubeconfig(path, context)
        if qps is not None:
            config = dataclasses.replace(config, qps=qps)
        if burst is not None:
            config = dataclasses.replace(config, burst=burst)
        if user_agent is not None:
            config = dataclasses.replace(config, user_agent=user_agent)
        return cls(config)

    def resource(self, resource_type: ResourceType, namespace: str | None = None) -> RESTResource:
        return RESTResource(self, resource_type, namespace)

    def set_token(self, token: str) -> None:
        """Send ``Authorization: Bearer <token>`` from now on (a renewed bound token)."""
        self._headers["Authorization"] = f"Bearer {token}"

    async def close(self) -> None:
        await self._transport.aclose()

    async def __aenter__(self) -> RESTClient:
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.close()

    async def request(
        self,
        method: str,
        path: str,
        *,
        params: Mapping[str, str] | None = None,
        body: bytes | None = None,
        content_type: str | None = None,
        what: str = "",
    ) -> Object:
        """Send one request (rate limited, retried) and return the decoded JSON body (``{}``
        when empty). ``path`` is absolute (``/version``); ``what`` (``get pods x``) completes
        generic error messages. Raises ``ApiError``."""
        response = await self._send(method, path, params, body, content_type, stream=False, what=what)
        content = response.content
        if not content:
            return {}
        try:
            decoded = loads(content)
        except (ValueError, RecursionError) as err:
            raise _undecodable(response.status, err) from err
        if not isinstance(decoded, dict):
            raise _undecodable(response.status, TypeError("not a JSON object"))
        return decoded

    async def stream_watch(
        self, path: str, params: Mapping[str, str], what: str = ""
    ) -> AsyncIterator[WatchEvent]:
        """Watch events of the GET ``path?params`` (``watch=true`` among them). Establishing the
        stream is rate limited and retried; ``Gone`` when its resourceVersion is too old."""
        response = await self._send("GET", path, params, None, None, stream=True, what=what)
        try:
            async with contextlib.aclosing(decode_events(_body(response, path))) as events:
                async for event in events:
                    yield event
        finally:
            await response.aclose()

    async def _send(
        self,
        method: str,
        path: str,
        params: Mapping[str, str] | None,
        body: bytes | None,
        content_type: str | None,
        *,
        stream: bool,
        what: str,
    ) -> HTTPResponse:
        """The first 2xx response (with its body read unless ``stream``), after retries."""
        url = self._server + quote(path, safe=PATH_SAFE)
        if params:
            url += "?" + urlencode(params)
        headers = self._headers if not content_type else {**self._headers, "Content-Type": content_type}
        request = HTTPRequest(
            method,
            url,
            headers,
            body,
            connect_timeout=self.config.timeout,
            read_timeout=None if stream else self.config.timeout,
        )
        start, attempt = self._clock.monotonic(), 0
        while True:
            attempt += 1
            await self._limiter.wait()
            try:
                response = await self._transport.send(request, stream=stream)
            except TransportError as err:
                wait = None
                if self._retry.retryable_error(method, err):
                    wait = self._retry.delay(attempt, self._clock.monotonic() - start)
                if wait is None:
                    raise ConnectionFailure(f'{method.title()} "{url}": {err}') from err
                logger.debug("retrying %s %s in %.2fs: %s", method, url, wait, err)
                await self._clock.sleep(wait)
                continue
            if 200 <= response.status < 300:
                return response
            content = response.content
            if stream:
                try:
                    content = b"".join([chunk async for chunk in response.chunks()])
                except TransportError:
                    content = b""
                finally:
                    await response.aclose()
            retry_after = parse_retry_after(response.headers.get("retry-after"))
            if self._retry.retryable_status(method, response.status, retry_after):
                wait = self._retry.delay(attempt, self._clock.monotonic() - start, retry_after)
                if wait is not None:
                    logger.debug("retrying %s %s in %.2fs: %d", method, url, wait, response.status)
                    await self._clock.sleep(wait)
                    continue
            raise error_from_response(response.status, content, retry_after, what)


async def _body(response: HTTPResponse, path: str) -> AsyncIterator[bytes]:
    """A streaming body's chunks; a connection lost mid-stream ends it (like client-go)."""
    try:
        async for chunk in response.chunks():
            yield chunk
    except (ConnectionLost, ReadTimeout) as err:
        logger.debug("watch stream %s ended: %s", path, err)


def _undecodable(code: int, err: Exception) -> ApiError:
    return ApiError(500, "InternalError", f"unable to decode the response (status {code}): {err}")
