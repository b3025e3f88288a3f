"""Fills ``scope["request_info"]`` (what the request means) for every later stage."""

from __future__ import annotations

from urllib.parse import parse_qsl

from starlette.types import ASGIApp, Receive, Scope, Send

from apiserver.request.context import current_request_info
from apiserver.request.info import request_info
from apiserver.request.queryparams import first_values


class RequestInfoFilter:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            # as url.Values read by upstream's conversions: blank values count, the first wins
            pairs = parse_qsl(scope.get("query_string", b"").decode("latin-1"), keep_blank_values=True)
            query = first_values(pairs)
            scope["request_info"] = info = request_info(scope["method"], scope["path"], query)
            current_request_info.set(info)
        await self.app(scope, receive, send)
