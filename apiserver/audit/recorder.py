"""``ExchangeRecorder``: watches one audited request go through the handler and sends its
stages (upstream's ``auditResponseWriter`` plus the deferred part of ``WithAudit``).

- ``receive``: keeps the request body when the event needs it (a create or update body names
  the object at any level; at ``Request`` and above every write body is the requestObject).
- ``send``: the response start records the code, and for a long-running request (watch, logs,
  exec...) sends ``ResponseStarted``; the body is kept only for what the event needs (a
  ``Status`` on failure or deletion; the responseObject at ``RequestResponse``), never for a
  long-running request, so watches stream untouched.
- ``complete`` sends ``ResponseComplete``; ``panic`` sends ``Panic`` with a 500 status.
The impersonated user (impersonation runs after audit) is read when the response starts and
when it completes.
"""

from __future__ import annotations

from typing import Any

from starlette.types import Message, Receive, Scope, Send

from apiserver.audit.bodies import decode_body, without_managed_fields
from apiserver.audit.context import AuditContext
from apiserver.audit.metadata import header
from apiserver.audit.policy import PANIC, REQUEST, REQUEST_RESPONSE, RESPONSE_COMPLETE, RESPONSE_STARTED
from apiserver.request.context import current_user
from apiserver.request.info import RequestInfo
from apiserver.request.user import UserInfo

WRITE_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})
NAMING_VERBS = frozenset({"create", "update"})  # whose body names the object
STATUS_DELETE_VERBS = frozenset({"delete", "deletecollection"})  # may answer a success Status
MAX_STATUS_BODY = 64 * 1024
CONNECTION_CLOSED_EARLY = {
    "metadata": {},
    "status": "Success",
    "message": "Connection closed early",
    "code": 200,
}


class ExchangeRecorder:
    def __init__(
        self,
        ctx: AuditContext,
        scope: Scope,
        info: RequestInfo,
        user: UserInfo | None,
        long_running: bool,
    ) -> None:
        self.ctx, self.scope, self.info, self.user = ctx, scope, info, user
        self.long_running = long_running
        self.started = False
        keep_request = scope["method"] in WRITE_METHODS and (
            ctx.at_least(REQUEST) or (info.verb in NAMING_VERBS and info.is_resource_request)
        )
        self.request_chunks: list[bytes] | None = [] if keep_request else None
        self.response_chunks: list[bytes] | None = None
        self.response_type = ""

    def wrap_receive(self, receive: Receive) -> Receive:
        chunks = self.request_chunks
        if chunks is None:
            return receive

        async def receive_kept() -> Message:
            message = await receive()
            if message["type"] == "http.request":
                chunks.append(message.get("body", b""))
            return message

        return receive_kept

    def wrap_send(self, send: Send) -> Send:
        async def send_recorded(message: Message) -> None:
            kind = message["type"]
            if kind == "http.response.start":
                self._start(message)
            elif kind == "http.response.body" and self.response_chunks is not None:
                self.response_chunks.append(message.get("body", b""))
            await send(message)

        return send_recorded

    def _start(self, message: Message) -> None:
        self.started = True
        code = int(message["status"])
        self.ctx.set_code(code)
        self._check_impersonation()
        if self.long_running:
            self._log_request_body()
            self.ctx.process_stage(RESPONSE_STARTED)
            return
        if code >= 300 or self.info.verb in STATUS_DELETE_VERBS or self.ctx.level == REQUEST_RESPONSE:
            content_type = _header(message, b"content-type")
            if "json" in content_type:
                self.response_type = content_type
                self.response_chunks = []

    def complete(self) -> None:
        self._check_impersonation()
        self._log_request_body()
        self._log_response_body()
        if self.ctx.response_status is None:
            self.ctx.response_status = dict(CONNECTION_CLOSED_EARLY)
            if self.long_running:
                self.ctx.process_stage(RESPONSE_STARTED)
        self.ctx.process_stage(RESPONSE_COMPLETE)

    def panic(self, err: BaseException) -> None:
        self._check_impersonation()
        self._log_request_body()
        self.ctx.response_status = {
            "metadata": {},
            "status": "Failure",
            "message": f"APIServer panic'd: {err}",
            "reason": "InternalError",
            "code": 500,
        }
        self.ctx.process_stage(PANIC)

    def _check_impersonation(self) -> None:
        if self.ctx.impersonated_user is not None or self.user is None:
            return
        for now in (self.scope.get("impersonated_user"), current_user.get()):
            if now is not None and now is not self.user and now != self.user:
                self.ctx.log_impersonated_user(now)
                return

    def _log_request_body(self) -> None:
        chunks, self.request_chunks = self.request_chunks, None
        if not chunks:
            return
        obj = decode_body(b"".join(chunks), header(self.scope, b"content-type"))
        if not isinstance(obj, dict | list):
            return
        if isinstance(obj, dict) and self.info.verb in NAMING_VERBS:
            self.ctx.enrich_object_ref(obj)
        if self.ctx.at_least(REQUEST):
            self.ctx.request_object = self._trimmed(obj)

    def _log_response_body(self) -> None:
        chunks, self.response_chunks = self.response_chunks, None
        if not chunks:
            return
        raw = b"".join(chunks)
        full = self.ctx.level == REQUEST_RESPONSE
        if not full and (len(raw) > MAX_STATUS_BODY or b'"Status"' not in raw):
            return
        obj = decode_body(raw, self.response_type)
        if not isinstance(obj, dict):
            return
        if obj.get("kind") == "Status" and obj.get("apiVersion") == "v1":
            self.ctx.log_status(obj)
        if full:
            self.ctx.response_object = self._trimmed(obj)

    def _trimmed(self, obj: Any) -> Any:
        config = self.ctx.config
        return without_managed_fields(obj) if config and config.omit_managed_fields else obj


def _header(message: Message, name: bytes) -> str:
    for key, value in message.get("headers", ()):
        if key.lower() == name:
            return str(value.decode("latin-1"))
    return ""
