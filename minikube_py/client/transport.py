"""The client's HTTP seam: ``Transport`` sends one ``HTTPRequest`` and returns an ``HTTPResponse``.

``RESTClient`` (rate limiting, retries, decoding) sits on top and knows nothing of the HTTP
library below. Two transports:

* ``AiohttpTransport`` (what every component uses): HTTP/1.1 connections pooled by aiohttp
  (a queue per host, a parser in C). It replaced httpx, whose per-request objects cost about
  twice the client CPU and left ~46 objects of cyclic garbage per request: at 1,000 requests
  per second the young-generation collections that freed them paused a simulated node's event
  loop for 100-250 ms (``benchmarks/node_scale.py``, Lease renewal p99 85 ms). A request here
  leaves no cyclic garbage.
* ``HttpxTransport``: any ``httpx.AsyncBaseTransport`` (``httpx.MockTransport`` in the
  client's unit tests, an ASGI app in process). Documented fake network, not a shortcut: it
  goes through the same ``Transport`` contract, errors included.

Failures that got no usable HTTP answer raise ``TransportError`` (the retry policy reasons
about them): ``ConnectError``/``ConnectTimeout`` when nothing was sent (``not_sent``),
``ReadTimeout`` and ``ConnectionLost`` when the request may have reached the server, and
``DecodingError`` (never retried) for a body whose encoding is corrupt.
"""

from __future__ import annotations

import ssl
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass
from typing import Protocol

import aiohttp
import httpx
from aiohttp.http_exceptions import ContentEncodingError
from multidict import CIMultiDict
from yarl import URL

# Below uvicorn's 5 s keep-alive: never send on a connection the server is closing.
KEEPALIVE_SECONDS = 4.0


class TransportError(Exception):
    """No (usable) HTTP answer came. ``not_sent``: the connection was never established, so
    the request certainly did not reach the server (safe to retry whatever the method);
    ``retryable``: sending again may help (not for a body that cannot be decoded)."""

    not_sent = False
    retryable = True


class ConnectError(TransportError):
    """Refused, unreachable, or the TLS handshake failed (a certificate that fails
    verification is the ``__cause__``)."""

    not_sent = True


class ConnectTimeout(TransportError):
    not_sent = True


class ReadTimeout(TransportError):
    """Sent, but no (complete) answer within the read timeout."""


class ConnectionLost(TransportError):
    """The server closed or reset the connection before answering completely."""


class DecodingError(TransportError):
    """The answer's body does not decode (a corrupt ``Content-Encoding``): it will not next
    time either."""

    retryable = False


@dataclass(frozen=True, slots=True)
class HTTPRequest:
    """One request: ``url`` is absolute and already encoded; ``connect_timeout`` bounds
    getting a connection, ``read_timeout`` (None: none, for watches) each read."""

    method: str
    url: str
    headers: Mapping[str, str]
    body: bytes | None = None
    connect_timeout: float | None = None
    read_timeout: float | None = None


class HTTPResponse(Protocol):
    """An answer whose head has arrived. ``content`` is the whole body when the request was
    sent with ``stream=False``; a streamed body comes from ``chunks`` (raising
    ``TransportError`` when the connection fails mid-body). ``aclose`` gives the connection
    back (or drops it when the body was not read to its end)."""

    status: int
    headers: Mapping[str, str]  # case-insensitive
    content: bytes

    def chunks(self) -> AsyncIterator[bytes]: ...

    async def aclose(self) -> None: ...


class Transport(Protocol):
    async def send(self, request: HTTPRequest, *, stream: bool) -> HTTPResponse:
        """The answer to ``request``; raises ``TransportError`` when none came."""
        ...

    async def aclose(self) -> None: ...


class AiohttpTransport:
    """Up to ``limit`` connections (streams included); ``ssl_context`` for ``https`` URLs.
    The aiohttp session is created on first use, inside the running event loop."""

    def __init__(self, ssl_context: ssl.SSLContext | None = None, *, limit: int = 100) -> None:
        self._ssl = ssl_context
        self._limit = limit
        self._session: aiohttp.ClientSession | None = None
        self._timeouts: dict[tuple[float | None, float | None], aiohttp.ClientTimeout] = {}

    def _get_session(self) -> aiohttp.ClientSession:
        if self._session is None or self._session.closed:
            connector = aiohttp.TCPConnector(
                ssl=self._ssl if self._ssl is not None else True,
                limit=self._limit,
                keepalive_timeout=KEEPALIVE_SECONDS,
            )
            self._session = aiohttp.ClientSession(connector=connector)
        return self._session

    def _timeout(self, request: HTTPRequest) -> aiohttp.ClientTimeout:
        key = (request.connect_timeout, request.read_timeout)
        timeout = self._timeouts.get(key)
        if timeout is None:
            connect = request.connect_timeout
            timeout = self._timeouts[key] = aiohttp.ClientTimeout(
                total=None,
                # waiting for a pooled connection, then connecting: each gets the timeout
                connect=None if connect is None else 2 * connect,
                sock_connect=request.connect_timeout,
                sock_read=request.read_timeout,
            )
        return timeout

    async def send(self, request: HTTPRequest, *, stream: bool) -> HTTPResponse:
        try:
            response = await self._get_session().request(
                request.method,
                URL(request.url, encoded=True),
                headers=request.headers,
                data=request.body,
                timeout=self._timeout(request),
                allow_redirects=False,
                # only what the caller set: no octet-stream Content-Type for a body without one
                skip_auto_headers=("Content-Type",),
            )
        except aiohttp.ClientError as err:
            raise _transport_error(err) from (
                err.certificate_error if isinstance(err, aiohttp.ClientConnectorCertificateError) else err
            )
        except TimeoutError as err:  # not aiohttp's own: sending may have begun
            raise ReadTimeout("timed out") from err
        answer = _AiohttpResponse(response)
        if not stream:
            try:
                answer.content = await response.read()
            except aiohttp.ClientError as err:
                raise _transport_error(err) from err
            except TimeoutError as err:
                raise ReadTimeout("timed out reading") from err
            finally:
                response.release()
        return answer

    async def aclose(self) -> None:
        if self._session is not None:
            await self._session.close()


class _AiohttpResponse:
    __slots__ = ("_response", "content", "headers", "status")

    def __init__(self, response: aiohttp.ClientResponse) -> None:
        self._response = response
        self.status = response.status
        self.headers: Mapping[str, str] = response.headers
        self.content = b""

    async def chunks(self) -> AsyncIterator[bytes]:
        try:
            async for chunk in self._response.content.iter_any():
                yield chunk
        except aiohttp.ClientError as err:
            raise _transport_error(err) from err
        except TimeoutError as err:
            raise ReadTimeout("timed out reading") from err

    async def aclose(self) -> None:
        self._response.release()


def _transport_error(err: aiohttp.ClientError) -> TransportError:
    message = str(err) or type(err).__name__
    if isinstance(err.__cause__, ContentEncodingError):
        return DecodingError(message)
    if isinstance(err, aiohttp.ClientConnectorError):  # refused, DNS, TLS handshake
        return ConnectError(message)
    if isinstance(err, aiohttp.ConnectionTimeoutError):
        return ConnectTimeout(message)
    if isinstance(err, aiohttp.ServerTimeoutError):
        return ReadTimeout(message)
    return ConnectionLost(message)  # disconnected, reset, truncated body


class HttpxTransport:
    """Any ``httpx.AsyncBaseTransport`` behind the ``Transport`` contract (see the module
    doc); httpx's errors become the matching ``TransportError``."""

    def __init__(self, transport: httpx.AsyncBaseTransport) -> None:
        self._transport = transport

    async def send(self, request: HTTPRequest, *, stream: bool) -> HTTPResponse:
        outgoing = httpx.Request(
            request.method,
            request.url,
            headers=dict(request.headers),
            content=request.body,
            extensions={
                "timeout": {
                    "connect": request.connect_timeout,
                    "pool": request.connect_timeout,
                    "read": request.read_timeout,
                    "write": request.connect_timeout,
                }
            },
        )
        try:
            response = await self._transport.handle_async_request(outgoing)
        except (httpx.TransportError, httpx.DecodingError) as err:
            raise _from_httpx(err) from err
        answer = _HttpxResponse(response)
        if not stream:
            try:
                answer.content = await response.aread()
            except (httpx.TransportError, httpx.DecodingError) as err:
                raise _from_httpx(err) from err
            finally:
                await response.aclose()
        return answer

    async def aclose(self) -> None:
        await self._transport.aclose()


class _HttpxResponse:
    __slots__ = ("_response", "content", "headers", "status")

    def __init__(self, response: httpx.Response) -> None:
        self._response = response
        self.status = response.status_code
        self.headers: Mapping[str, str] = CIMultiDict(response.headers.multi_items())
        self.content = b""

    async def chunks(self) -> AsyncIterator[bytes]:
        try:
            async for chunk in self._response.aiter_bytes():
                yield chunk
        except (httpx.TransportError, httpx.DecodingError) as err:
            raise _from_httpx(err) from err

    async def aclose(self) -> None:
        await self._response.aclose()


def _from_httpx(err: httpx.TransportError | httpx.DecodingError) -> TransportError:
    message = str(err) or type(err).__name__
    if isinstance(err, httpx.DecodingError):
        return DecodingError(message)
    if isinstance(err, httpx.ConnectError):
        return ConnectError(message)
    if isinstance(err, httpx.ConnectTimeout | httpx.PoolTimeout):
        return ConnectTimeout(message)
    if isinstance(err, httpx.TimeoutException):
        return ReadTimeout(message)
    return ConnectionLost(message)
