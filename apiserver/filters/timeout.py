"""``RequestTimeout``: upstream's ``WithRequestDeadline`` and
``WithTimeoutForNonLongRunningRequests`` in one filter, after request info and before
authentication, so that every stage of a request (reading its body, waiting for a
flow-control seat, storage) counts.

A request that is not long-running (``flowcontrol.longrunning``: watch, proxy, exec, attach,
port-forward and logs are) gets ``--request-timeout`` (60 s), or less when its ``timeout``
query parameter (a Go duration, as client-go sends it) asks for less; a malformed one is a
400. When the time is up the handler is cancelled, which releases whatever it holds (its
flow-control seat first: a body trickling in at one byte a second no longer keeps other
users' requests waiting), and the client gets upstream's 504 ``Timeout`` Status,
``Timeout: request did not complete within the allotted timeout`` (which its audit event
records too). A response that had already started cannot be replaced: its connection is
dropped, as upstream aborts it.
"""

from __future__ import annotations

import asyncio
import logging
from urllib.parse import parse_qs

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from apiserver.audit.context import AuditContext
from apiserver.flowcontrol.longrunning import is_long_running
from apiserver.request.context import current_request_info
from apiserver.status import status_response
from minikube_py.goduration import parse_go_duration

TIMED_OUT = "Timeout: request did not complete within the allotted timeout"
INVALID_TIMEOUT = "invalid timeout specified in the request URL"
TIMEOUT_STATUS = {"status": "Failure", "message": TIMED_OUT, "reason": "Timeout", "code": 504}

log = logging.getLogger("apiserver")


class RequestTimeout:
    """See the module docstring; ``request_timeout`` 0 turns the filter off."""

    def __init__(self, app: ASGIApp, request_timeout: float) -> None:
        self.app, self.request_timeout = app, request_timeout

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        info = current_request_info.get()
        if scope["type"] != "http" or info is None or is_long_running(info) or self.request_timeout <= 0:
            await self.app(scope, receive, send)
            return
        try:
            seconds = self.timeout(scope)
        except ValueError as err:
            await status_response(400, "BadRequest", f"{INVALID_TIMEOUT} - {err}")(scope, receive, send)
            return
        started = False

        async def send_tracked(message: Message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        task = asyncio.current_task()
        assert task is not None
        expired = False

        def expire() -> None:
            nonlocal expired
            expired = True
            ctx: AuditContext | None = scope.get("audit")
            if ctx is not None and not started:  # the event records the answer the client gets
                ctx.log_status(TIMEOUT_STATUS)
                ctx.set_code(504)
            task.cancel()

        deadline = asyncio.get_running_loop().call_later(seconds, expire)
        try:
            await self.app(scope, receive, send_tracked)
        except asyncio.CancelledError:
            if not expired or task.uncancel() > 0:
                raise  # cancelled for another reason (the server stopping) as well
            if started:  # nothing can be said any more: the server drops the connection
                log.info("%s %s: timed out after its response started", scope["method"], scope["path"])
                return
            await status_response(504, "Timeout", TIMED_OUT)(scope, receive, send)
        else:
            if expired:  # the handler swallowed the cancellation: take it back all the same
                task.uncancel()
        finally:
            deadline.cancel()

    def timeout(self, scope: Scope) -> float:
        """``--request-timeout``, or the request's ``timeout`` when shorter (and above 0);
        raises ``ValueError`` when that is not a Go duration."""
        query = parse_qs(scope.get("query_string", b"").decode("latin-1"), keep_blank_values=True)
        value = (query.get("timeout") or [""])[0]
        if not value:
            return self.request_timeout
        asked = parse_go_duration(value)
        return asked if 0 < asked < self.request_timeout else self.request_timeout
