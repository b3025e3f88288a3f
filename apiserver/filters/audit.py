"""Audit filters (upstream's ``WithAuditInit``, ``WithAudit`` and
``WithFailedAuthenticationAudit``).

- ``AuditInit`` (outermost; holds the ``AuditConfig``): every request gets an audit ID (the
  client's ``Audit-Id`` header, else a new UUID), echoed in the ``Audit-Id`` response header,
  and an ``AuditContext`` in ``scope["audit"]`` whose annotations dict is
  ``apiserver.request.context.audit_annotations``.
- ``Audit`` (after authentication): evaluates the policy for the user and request; unless the
  level is ``None`` it sends ``RequestReceived``, then (see ``ExchangeRecorder``)
  ``ResponseStarted`` for long-running requests and ``ResponseComplete``; when the handler
  raises, ``Panic`` (the client still gets a 500 Status if nothing was sent yet) and the
  exception goes on to the server, which logs it.
- ``audit_failed_authentication``: the authentication filter's 401 path; the request is audited
  without a user, as one ``ResponseStarted`` event whose message names the credentials tried.
"""

from __future__ import annotations

import time

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from apiserver.audit.config import AuditConfig
from apiserver.audit.context import AuditContext
from apiserver.audit.metadata import attempted_credentials, header
from apiserver.audit.policy import (
    NONE,
    REQUEST,
    REQUEST_RECEIVED,
    RESPONSE_STARTED,
    Attributes,
    level_at_least,
)
from apiserver.audit.recorder import ExchangeRecorder
from apiserver.flowcontrol.longrunning import is_long_running
from apiserver.request.context import (
    audit_annotations,
    audit_records_request,
    current_request_info,
    current_user,
)
from apiserver.request.info import RequestInfo
from apiserver.request.user import UserInfo
from apiserver.status import status_response
from minikube_py.uid import new_uuid

AUDIT_ID_HEADER = b"audit-id"


class AuditInit:
    def __init__(self, app: ASGIApp, config: AuditConfig | None = None) -> None:
        self.app = app
        self.config = config

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        audit_id = header(scope, AUDIT_ID_HEADER) or new_uuid()
        annotations: dict[str, str] = {}
        scope["audit_id"] = audit_id
        scope["audit"] = AuditContext(audit_id, time.time(), annotations, self.config)
        audit_annotations.set(annotations)
        id_header = (AUDIT_ID_HEADER, audit_id.encode("latin-1", "replace"))

        async def send_with_id(message: Message) -> None:
            if message["type"] == "http.response.start":
                message = {**message, "headers": [*message.get("headers", ()), id_header]}
            await send(message)

        await self.app(scope, receive, send_with_id)


class Audit:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        started = _start(scope, current_user.get())
        if started is None:
            await self.app(scope, receive, send)
            return
        ctx, info, user = started
        ctx.process_stage(REQUEST_RECEIVED)
        recorder = ExchangeRecorder(ctx, scope, info, user, is_long_running(info))
        try:
            await self.app(scope, recorder.wrap_receive(receive), recorder.wrap_send(send))
        except Exception as err:
            recorder.panic(err)
            if not recorder.started:
                await status_response(500, "InternalError", f"Internal error occurred: {err}")(
                    scope, receive, send
                )
            raise
        except BaseException:  # cancelled (client gone, shutdown): the request still completed
            recorder.complete()
            raise
        recorder.complete()


def audit_failed_authentication(scope: Scope, send: Send) -> Send:
    """``send`` for a 401 answer: audits it (when the policy does) as the response starts."""
    started = _start(scope, None)
    if started is None:
        return send
    ctx = started[0]
    ctx.response_status = {"metadata": {}, "message": attempted_credentials(scope)}

    async def send_audited(message: Message) -> None:
        if message["type"] == "http.response.start":
            ctx.set_code(int(message["status"]))
            ctx.process_stage(RESPONSE_STARTED)
        await send(message)

    return send_audited


def _start(scope: Scope, user: UserInfo | None) -> tuple[AuditContext, RequestInfo, UserInfo | None] | None:
    """Evaluate the policy and start the event; None when the request is not audited."""
    ctx: AuditContext | None = scope.get("audit")
    if scope["type"] != "http" or ctx is None or ctx.auditing is None or ctx.config is not None:
        return None
    config = ctx.auditing
    info = current_request_info.get()
    if info is None:
        return None
    decision = config.evaluator.evaluate(Attributes(user, info))
    if decision.level == NONE:
        return None
    audit_records_request.set(level_at_least(decision.level, REQUEST))
    ctx.start(decision, config.sink, scope, user, info)
    return ctx, info, user
