"""``AiohttpTransport``: the client's HTTP/1.1 connections, pooled by aiohttp under httpx.

httpx stays the client API (requests, responses, timeouts, the retry policy's error types);
this transport moves the bytes. It replaces httpcore's connection pool, whose cost grows with
the number of connections and waiting requests: each request scans every pooled connection
and polls the idle ones' sockets. Measured in one process with the apiserver
(``benchmarks/controllers.py``, a ReplicaSet creating 1,000 pods with up to 500 in flight),
httpcore took ~36% of all CPU; aiohttp's pool is a queue per host and its parser is in C.

aiohttp errors become the httpx errors the retry policy reasons about: connection refused or
a failed TLS handshake is ``ConnectError`` (a failed certificate check keeps the
``ssl.SSLCertVerificationError`` as its cause), a timeout while connecting ``ConnectTimeout``,
a lost connection ``RemoteProtocolError``/``ReadError``, a read timeout ``ReadTimeout``.
The aiohttp session is created on first use, inside the running event loop.
"""

from __future__ import annotations

import ssl
from collections.abc import AsyncIterator

import aiohttp
import httpx
from yarl import URL

KEEPALIVE_SECONDS = 4.0  # below uvicorn's 5 s keep-alive: never send on a connection being closed


class AiohttpTransport(httpx.AsyncBaseTransport):
    """Up to ``limit`` connections (streams included); ``ssl_context`` for ``https`` URLs."""

    def __init__(self, ssl_context: ssl.SSLContext | None = None, *, limit: int = 100) -> None:
        self._ssl = ssl_context
        self._limit = limit
        self._session: aiohttp.ClientSession | None = None

    def _get_session(self) -> aiohttp.ClientSession:
        if self._session is None or self._session.closed:
            connector = aiohttp.TCPConnector(
                ssl=self._ssl if self._ssl is not None else True,
                limit=self._limit,
                keepalive_timeout=KEEPALIVE_SECONDS,
            )
            # httpx decodes Content-Encoding itself; aiohttp must hand over the raw body
            self._session = aiohttp.ClientSession(connector=connector, auto_decompress=False)
        return self._session

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        timeouts = request.extensions.get("timeout", {})
        timeout = aiohttp.ClientTimeout(
            total=None,
            connect=_seconds(timeouts.get("pool"), timeouts.get("connect")),
            sock_connect=timeouts.get("connect"),
            sock_read=timeouts.get("read"),
        )
        headers = [(name.decode("latin-1"), value.decode("latin-1")) for name, value in request.headers.raw]
        body = await request.aread()
        try:
            response = await self._get_session().request(
                request.method,
                URL(str(request.url), encoded=True),
                headers=headers,
                data=body or None,
                timeout=timeout,
                allow_redirects=False,
                skip_auto_headers=("User-Agent", "Accept", "Accept-Encoding", "Content-Type"),
            )
        except aiohttp.ClientConnectorCertificateError as err:
            raise httpx.ConnectError(str(err), request=request) from err.certificate_error
        except aiohttp.ClientConnectorError as err:
            raise httpx.ConnectError(str(err) or type(err).__name__, request=request) from err
        except aiohttp.ConnectionTimeoutError as err:
            raise httpx.ConnectTimeout(str(err) or "timed out connecting", request=request) from err
        except aiohttp.ServerTimeoutError as err:
            raise httpx.ReadTimeout(str(err) or "timed out reading", request=request) from err
        except aiohttp.ServerDisconnectedError as err:
            raise httpx.RemoteProtocolError(str(err) or "server disconnected", request=request) from err
        except aiohttp.ClientError as err:
            raise httpx.ReadError(str(err) or type(err).__name__, request=request) from err
        return httpx.Response(
            status_code=response.status,
            headers=[(k.decode("latin-1"), v.decode("latin-1")) for k, v in response.raw_headers],
            stream=_ResponseStream(response, request),
            extensions={"http_version": b"HTTP/1.1"},
            request=request,
        )

    async def aclose(self) -> None:
        if self._session is not None:
            await self._session.close()


class _ResponseStream(httpx.AsyncByteStream):
    """The response body as it arrives; closing it returns (or drops) the connection."""

    def __init__(self, response: aiohttp.ClientResponse, request: httpx.Request) -> None:
        self._response = response
        self._request = request

    async def __aiter__(self) -> AsyncIterator[bytes]:
        try:
            async for chunk in self._response.content.iter_any():
                yield chunk
        except aiohttp.ServerTimeoutError as err:
            raise httpx.ReadTimeout(str(err) or "timed out reading", request=self._request) from err
        except (aiohttp.ClientPayloadError, aiohttp.ServerDisconnectedError) as err:
            raise httpx.RemoteProtocolError(str(err) or "connection lost", request=self._request) from err
        except aiohttp.ClientError as err:
            raise httpx.ReadError(str(err) or type(err).__name__, request=self._request) from err

    async def aclose(self) -> None:
        self._response.release()


def _seconds(*parts: float | None) -> float | None:
    known = [p for p in parts if p is not None]
    return sum(known) if known else None
