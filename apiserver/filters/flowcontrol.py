"""Flow control filters: priority and fairness (``PriorityAndFairnessFilter``) or, when it is
off, max-in-flight (``MaxInFlightFilter``); ``flow_control`` picks one from the
``SecurityConfig``. They run after authentication, so the user is known.

A rejected request gets upstream's answer, which is not a ``Status``: ``429`` with the plain
text ``Too many requests, please try again later.`` (Go's ``http.Error``: ``text/plain``,
``nosniff``) and ``Retry-After`` (``1`` for max-in-flight, the priority level's
``DroppedRequests`` figure for priority and fairness). Priority and fairness also names the
matched FlowSchema and priority level by UID in ``X-Kubernetes-PF-FlowSchema-UID`` and
``X-Kubernetes-PF-PriorityLevel-UID``, on served and rejected responses alike.
"""

from __future__ import annotations

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from apiserver.flowcontrol.bootstrap import MASTERS
from apiserver.flowcontrol.controller import PriorityAndFairness
from apiserver.flowcontrol.longrunning import is_long_running, is_mutating
from apiserver.flowcontrol.maxinflight import MaxInFlight
from apiserver.flowcontrol.metrics import SCOPE_KEY
from apiserver.request.context import current_request_info, current_user
from apiserver.request.info import RequestInfo
from apiserver.request.user import UserInfo
from apiserver.security import SecurityConfig

TOO_MANY_REQUESTS_BODY = b"Too many requests, please try again later.\n"


def flow_control(app: ASGIApp, security: SecurityConfig) -> ASGIApp:
    """``app`` behind the configured flow control (none when both limits are 0 and priority
    and fairness is off)."""
    read_only, mutating = security.max_requests_inflight, security.max_mutating_requests_inflight
    if security.enable_priority_and_fairness:
        return PriorityAndFairnessFilter(app, PriorityAndFairness(read_only + mutating))
    if read_only or mutating:
        return MaxInFlightFilter(app, MaxInFlight(read_only, mutating))
    return app


async def too_many_requests(
    send: Send, retry_after: int, headers: tuple[tuple[bytes, bytes], ...] = ()
) -> None:
    await send(
        {
            "type": "http.response.start",
            "status": 429,
            "headers": [
                *headers,
                (b"content-type", b"text/plain; charset=utf-8"),
                (b"x-content-type-options", b"nosniff"),
                (b"retry-after", str(retry_after).encode()),
                (b"content-length", str(len(TOO_MANY_REQUESTS_BODY)).encode()),
            ],
        }
    )
    await send({"type": "http.response.body", "body": TOO_MANY_REQUESTS_BODY})


def _request(scope: Scope) -> tuple[UserInfo, RequestInfo | None]:
    return current_user.get(), current_request_info.get()


class MaxInFlightFilter:
    """Upstream's ``WithMaxInFlightLimit``: long-running requests are not counted; a request
    over its kind's limit is rejected at once, unless its user is in ``system:masters``."""

    def __init__(self, app: ASGIApp, limiter: MaxInFlight) -> None:
        self.app, self.limiter = app, limiter

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        user, info = _request(scope)
        if scope["type"] != "http" or info is None or is_long_running(info):
            await self.app(scope, receive, send)
            return
        mutating = is_mutating(info)
        if not self.limiter.try_acquire(mutating):
            if MASTERS in user.groups:
                await self.app(scope, receive, send)
            else:
                await too_many_requests(send, 1)
            return
        try:
            await self.app(scope, receive, send)
        finally:
            self.limiter.release(mutating)


class PriorityAndFairnessFilter:
    """Upstream's ``WithPriorityAndFairness``: long-running requests other than watches pass
    unclassified; a watch holds its seat only until it is set up (its response starts)."""

    def __init__(self, app: ASGIApp, controller: PriorityAndFairness) -> None:
        self.app, self.controller = app, controller

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        user, info = _request(scope)
        if scope["type"] != "http" or info is None:
            await self.app(scope, receive, send)
            return
        scope[SCOPE_KEY] = self.controller.metrics
        watch = info.verb == "watch"
        if not watch and is_long_running(info):
            await self.app(scope, receive, send)
            return
        classification, flow = self.controller.classify(user, info)
        seat = await self.controller.start(classification, flow)
        if seat is None:
            await too_many_requests(send, self.controller.retry_after(classification), classification.headers)
            return

        async def send_classified(message: Message) -> None:
            if message["type"] == "http.response.start":
                message = {**message, "headers": [*message.get("headers", []), *classification.headers]}
                if watch:
                    seat.finish()  # the watch is set up: its seat goes to the next request
            await send(message)

        try:
            await self.app(scope, receive, send_classified)
        finally:
            seat.finish()
