"""How the apiserver reaches node agents: upstream's kubelet client configuration and
``NodeConnectionInfoGetter``, plus the ``LocationStreamer`` that relays a node agent's response.

A ``NodeConnection`` answers two questions for the pod connection subresources (``log``,
``exec``, ``attach``, ``portforward``):

* where: the Node's first reported address of the preferred types (upstream's default order:
  ``Hostname``, ``InternalDNS``, ``InternalIP``, ``ExternalDNS``, ``ExternalIP``) and its
  ``status.daemonEndpoints.kubeletEndpoint.Port`` (``DEFAULT_PORT`` when unset);
* how: HTTPS verified against ``ca_file`` (the system trust store when None), presenting the
  ``client_cert``/``client_key`` pair (the cluster PKI's ``apiserver-kubelet-client``) when given.

``stream_log`` proxies logs; exec, attach and portforward upgrades are tunnelled by
``upgradeproxy`` with ``locate`` and ``ssl_context``; ``dial`` only checks that the node agent
accepts a TLS connection.

Failures answer upstream's Statuses: a missing Node is ``nodes "x" not found``; a Node without a
usable address is a 500 ``no preferred addresses found; known addresses: [...]``; an unreachable
node agent is a 500 without a reason carrying Go's message (``Get "https://...": dial tcp ...:
connect: connection refused``); a node agent's error response is mapped like upstream's
``GenericHttpResponseChecker``.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
import os
import socket
import ssl
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, MutableMapping, Sequence
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlencode, urljoin

import httpx
from starlette.responses import Response, StreamingResponse

from minikube_py.api import errors
from minikube_py.api.field_errors import go_quote

logger = logging.getLogger("apiserver")

DEFAULT_PORT = 10250
PREFERRED_ADDRESS_TYPES = ("Hostname", "InternalDNS", "InternalIP", "ExternalDNS", "ExternalIP")
DIAL_TIMEOUT = 5.0
MAX_ERROR_BODY = 50_000  # upstream reads at most this much of a node agent's error response
REDIRECTS = (301, 302, 303, 307, 308)
# The key under which ResourceEndpoints hands the connection to subresource handlers.
SCOPE_KEY = "node_connection"

NodeGetter = Callable[[str], Awaitable[dict[str, Any]]]


@dataclasses.dataclass(frozen=True, slots=True)
class NodeLocation:
    """A node agent's HTTPS endpoint."""

    host: str
    port: int

    @property
    def host_port(self) -> str:
        return f"[{self.host}]:{self.port}" if ":" in self.host else f"{self.host}:{self.port}"

    def url(self, path: str, params: Sequence[tuple[str, str]] = ()) -> str:
        """``https://host:port/path?params``; parameters sorted by key like Go's ``Encode``."""
        query = urlencode(sorted(params, key=lambda kv: kv[0]))
        return f"https://{self.host_port}{quote(path)}" + (f"?{query}" if query else "")


@dataclasses.dataclass(frozen=True)
class NodeConnection:
    """Where node agents are and how to reach them (see the module docstring).

    The CLI builds one from the cluster PKI and passes it to ``build_app``; ``ResourceEndpoints``
    binds it to the nodes store (``with_nodes``), so ``locate`` can read Node objects."""

    ca_file: Path | None = None
    client_cert: Path | None = None
    client_key: Path | None = None
    default_port: int = DEFAULT_PORT
    preferred_address_types: tuple[str, ...] = PREFERRED_ADDRESS_TYPES
    dial_timeout: float = DIAL_TIMEOUT
    get_node: NodeGetter | None = dataclasses.field(default=None, compare=False)

    def with_nodes(self, get_node: NodeGetter) -> NodeConnection:
        return dataclasses.replace(self, get_node=get_node)

    async def locate(self, node_name: str) -> NodeLocation:
        """Upstream's ``GetConnectionInfo``: the Node's preferred address and kubelet port."""
        if self.get_node is None:
            raise errors.internal("the node connection is not bound to the nodes store")
        status = (await self.get_node(node_name)).get("status") or {}
        host = preferred_address(status.get("addresses") or [], self.preferred_address_types)
        port = ((status.get("daemonEndpoints") or {}).get("kubeletEndpoint") or {}).get("Port")
        if isinstance(port, int) and not isinstance(port, bool) and port > 0:
            return NodeLocation(host, port)
        return NodeLocation(host, self.default_port)

    def ssl_context(self, *, insecure: bool = False) -> ssl.SSLContext:
        """Client TLS: the CA (or system roots), the client certificate; ``insecure`` skips
        verifying the node agent (upstream's ``insecureSkipTLSVerifyBackend``)."""
        context = ssl.create_default_context(cafile=str(self.ca_file) if self.ca_file else None)
        if self.client_cert is not None:
            context.load_cert_chain(self.client_cert, self.client_key)
        if insecure:
            context.check_hostname = False
            context.verify_mode = ssl.CERT_NONE
        return context

    async def stream_log(self, url: str, *, name: str, insecure: bool = False) -> Response:
        """GET ``url`` from a node agent and relay the body as ``text/plain``, chunk by chunk as
        it arrives (so ``follow=true`` streams). Raises ``ApiError`` as upstream answers."""
        timeout = httpx.Timeout(self.dial_timeout, read=None)  # a followed log may idle for long
        # trust_env off: no proxy from the environment between the apiserver and its node agents
        tls = self.ssl_context(insecure=insecure)
        client = httpx.AsyncClient(verify=tls, timeout=timeout, trust_env=False)
        try:
            response = await client.send(client.build_request("GET", url), stream=True)
        except (httpx.HTTPError, httpx.InvalidURL) as err:
            await client.aclose()
            raise unreachable(f"Get {go_quote(url)}", err) from None
        except BaseException:
            await client.aclose()
            raise
        if not 200 <= response.status_code <= 206:
            try:
                problem = await _rejection(response, url, "pods/log", name)
            finally:
                await response.aclose()
                await client.aclose()
            raise problem
        headers = {"content-type": "text/plain"}  # upstream's LocationStreamer.ContentType
        return StreamingResponse(_relay(client, response), headers=headers)

    async def dial(self, location: NodeLocation) -> None:
        """Open and close a TLS connection to the node agent; raise upstream's ``error dialing
        backend`` Status when that fails."""
        try:
            _reader, writer = await asyncio.wait_for(
                asyncio.open_connection(location.host, location.port, ssl=self.ssl_context()),
                self.dial_timeout,
            )
        except (OSError, TimeoutError) as err:
            raise unreachable("error dialing backend", err, location) from None
        writer.close()
        with contextlib.suppress(OSError, ssl.SSLError):
            await writer.wait_closed()


def node_connection(scope: MutableMapping[str, Any]) -> NodeConnection:
    """The connection ``ResourceEndpoints`` put into the request scope."""
    connection = scope.get(SCOPE_KEY)
    if not isinstance(connection, NodeConnection):
        raise errors.internal("no node connection for this request")
    return connection


def preferred_address(addresses: Sequence[dict[str, Any]], preferred: Sequence[str]) -> str:
    """Upstream's ``GetPreferredNodeAddress``; a 500 (reason unknown) when none matches."""
    for kind in preferred:
        for address in addresses:
            if address.get("type") == kind:
                return str(address.get("address", ""))
    known = " ".join(f"{{{a.get('type', '')} {a.get('address', '')}}}" for a in addresses)
    raise errors.ApiError(500, "", f"no preferred addresses found; known addresses: [{known}]")


def unreachable(operation: str, err: BaseException, location: NodeLocation | None = None) -> errors.ApiError:
    """A 500 without a reason, as upstream answers an error that is not a Status."""
    return errors.ApiError(500, "", f"{operation}: {dial_failure(err, location)}")


def dial_failure(err: BaseException, location: NodeLocation | None = None) -> str:
    """Go's wording for a failed dial (``dial tcp 10.0.0.1:10250: connect: connection refused``)."""
    if location is None and isinstance(err, httpx.RequestError):
        url = err.request.url
        location = NodeLocation(url.host, url.port or 443)
    target = location.host_port if location else "?"
    for cause in _causes(err):
        if isinstance(cause, ssl.SSLCertVerificationError):
            return f"tls: failed to verify certificate: x509: {cause.verify_message or cause.reason}"
        if isinstance(cause, ssl.SSLError):
            return f"remote error: tls: {(cause.reason or str(cause)).lower().replace('_', ' ')}"
        if isinstance(cause, socket.gaierror):
            return f"dial tcp: lookup {location.host if location else '?'}: no such host"
        if isinstance(cause, TimeoutError | httpx.TimeoutException):
            return f"dial tcp {target}: i/o timeout"
        if isinstance(cause, OSError) and cause.errno:
            return f"dial tcp {target}: connect: {os.strerror(cause.errno).lower()}"
    return f"dial tcp {target}: {err}"


def _causes(err: BaseException) -> Iterator[BaseException]:
    """``err`` and what it was raised from, exception groups included, outermost first."""
    seen: set[int] = set()
    pending = [err]
    while pending:
        current = pending.pop(0)
        if id(current) in seen:
            continue
        seen.add(id(current))
        yield current
        if isinstance(current, BaseExceptionGroup):
            pending.extend(current.exceptions)
        pending.extend(e for e in (current.__cause__, current.__context__) if e is not None)


async def _rejection(response: httpx.Response, url: str, resource: str, name: str) -> errors.ApiError:
    """Upstream's redirect refusal and ``GenericHttpResponseChecker`` for a non-2xx answer."""
    location = response.headers.get("location")
    if response.status_code in REDIRECTS and location:
        return errors.ApiError(500, "", f"Get {go_quote(urljoin(url, location))}: redirects forbidden")
    body = bytearray()
    async for chunk in response.aiter_bytes():
        body += chunk
        if len(body) >= MAX_ERROR_BODY:
            break
    text = body[:MAX_ERROR_BODY].decode(errors="replace")
    return response_error(response.status_code, text, resource, name)


# upstream's NewGenericServerResponse: reason and message by code
_GENERIC: dict[int, tuple[str, str]] = {
    401: ("Unauthorized", "the server has asked for the client to provide credentials"),
    404: ("NotFound", "the server could not find the requested resource"),
    405: ("MethodNotAllowed", "the server does not allow this method on the requested resource"),
    409: ("Conflict", "the server reported a conflict"),
    422: ("Invalid", "the server rejected our request due to an error in our request"),
    429: ("TooManyRequests", "the server has received too many requests and has asked us to try again later"),
    503: ("ServiceUnavailable", "the server is currently unable to handle the request"),
    504: (
        "Timeout",
        "the server was unable to return a response in the time allotted, but may still be processing "
        "the request",
    ),
}


def response_error(code: int, body: str, resource: str, name: str) -> errors.ApiError:
    """A node agent's error response as upstream turns it into a Status."""
    if code == 500:
        return errors.internal(body)
    if code == 400:
        return errors.bad_request(body)
    reason, message = _GENERIC.get(
        code, ("", f"the server responded with the status code {code} but did not return more information")
    )
    if code == 403:
        reason, message = "Forbidden", body
    elif code > 500 and code not in _GENERIC:
        reason = "InternalError"
        message = f"an error on the server ({go_quote(body)}) has prevented the request from succeeding"
    return errors.ApiError(code, reason, f"{message} ( {resource} {name})", name, "", resource)


async def _relay(client: httpx.AsyncClient, response: httpx.Response) -> AsyncIterator[bytes]:
    try:
        async for chunk in response.aiter_bytes():
            yield chunk
    except httpx.HTTPError as err:  # the status line is sent: the stream can only end
        logger.warning("log stream from %s ended: %s", response.url, err)
    finally:
        await response.aclose()
        await client.aclose()
