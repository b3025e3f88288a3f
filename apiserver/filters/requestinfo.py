"""Sets the request context for every later stage: ``current_request_info`` (what the request
means) and ``current_user`` (anonymous until authentication says otherwise), for this request
only (reset when it ends, so nothing carries over to the next request a task serves)."""

from __future__ import annotations

from urllib.parse import parse_qsl

from starlette.types import ASGIApp, Receive, Scope, Send

from apiserver.request.context import current_request_info, current_user
from apiserver.request.info import request_info
from apiserver.request.queryparams import first_values
from apiserver.request.user import ANONYMOUS_USER


class RequestInfoFilter:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        # as url.Values read by upstream's conversions: blank values count, the first wins
        pairs = parse_qsl(scope.get("query_string", b"").decode("latin-1"), keep_blank_values=True)
        info = request_info(scope["method"], scope["path"], first_values(pairs))
        info_token, user_token = current_request_info.set(info), current_user.set(ANONYMOUS_USER)
        try:
            await self.app(scope, receive, send)
        finally:
            current_user.reset(user_token)
            current_request_info.reset(info_token)
