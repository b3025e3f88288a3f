"""``read_body``: the one way handlers read a request body, bounded as upstream's handlers
read it (``limitedReadBody``): at most 3 MiB (``MAX_REQUEST_BODY_BYTES``, the most etcd
stores), whatever its content type, with or without a ``Content-Length`` (chunked).

Reading stops at the first chunk past the limit, so a 400 MiB body costs at most the limit in
memory, not 400 MiB; a ``Content-Length`` over the limit is refused before a byte is read (the
same 413 upstream gives after reading the limit). The 413 goes out while the body is still
arriving, so the server closes the connection after it (``minikube_py.httphead``) instead of
reading the rest.

``unbounded_body`` streams a body without the limit, for the proxy subresources alone.

A client that goes away mid-body gets (nobody) upstream's answer to a body read error, a 500
``unexpected EOF``; the server logs one line, not a traceback.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator

from starlette.requests import ClientDisconnect, Request

from apiserver.storage.errors import MAX_VALUE_BYTES
from minikube_py.api import errors

MAX_REQUEST_BODY_BYTES = MAX_VALUE_BYTES  # upstream's MaxRequestBodyBytes: 3 MiB

log = logging.getLogger("apiserver")


def too_large(limit: int = MAX_REQUEST_BODY_BYTES) -> errors.ApiError:
    """Upstream's 413: ``Request entity too large: limit is 3145728``."""
    return errors.too_large(f"Request entity too large: limit is {limit}")


async def read_body(request: Request, limit: int = MAX_REQUEST_BODY_BYTES) -> bytes:
    """The whole body, at most ``limit`` bytes; raises the 413 ``ApiError`` beyond it, and a
    500 ``ApiError`` when the client disconnects before the body is complete."""
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > limit:
        raise too_large(limit)
    chunks: list[bytes] = []
    size = 0
    try:
        async for chunk in request.stream():
            size += len(chunk)
            if size > limit:
                raise too_large(limit)
            chunks.append(chunk)
    except ClientDisconnect:
        path = request.url.path
        log.info("%s %s: the client disconnected after %d bytes of the body", request.method, path, size)
        raise errors.ApiError(500, "", "unexpected EOF") from None
    return b"".join(chunks)


async def unbounded_body(request: Request) -> AsyncIterator[bytes]:
    """The body chunk by chunk as it arrives, with no limit: only for the proxy subresources,
    whose bodies upstream passes on without reading them (nothing decodes them). A client that
    goes away mid-body is the same 500 ``unexpected EOF`` as in ``read_body``, one log line."""
    size = 0
    try:
        async for chunk in request.stream():
            size += len(chunk)
            if chunk:
                yield chunk
    except ClientDisconnect:
        path = request.url.path
        log.info("%s %s: the client disconnected after %d bytes of the body", request.method, path, size)
        raise errors.ApiError(500, "", "unexpected EOF") from None
