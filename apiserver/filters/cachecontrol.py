"""Upstream's ``WithCacheControl``: responses are per user (behind authn/authz), so any response
that does not set ``Cache-Control`` itself gets ``no-cache, private``.

Without it, HTTP caches in clients keep stale answers: kubectl's disk cache replays an old
``/version`` for a host:port that now serves another cluster.
"""

from __future__ import annotations

from starlette.types import ASGIApp, Message, Receive, Scope, Send

CACHE_CONTROL = (b"cache-control", b"no-cache, private")


class CacheControl:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_cache_control(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                if all(name.lower() != CACHE_CONTROL[0] for name, _ in headers):
                    message = {**message, "headers": [*headers, CACHE_CONTROL]}
            await send(message)

        await self.app(scope, receive, send_with_cache_control)
