"""The seams the security issue fills: audit, flow control and authorization.

Each is already a stage of the chain (so the order is fixed and tested now); for now they let
every request through. Audit sits outside flow control, as upstream, so throttled requests are
audited too.
"""

from __future__ import annotations

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from minikube_py.uid import new_uuid


class Audit:
    """Gives every request an ``Audit-Id`` (echoed in the response, as upstream)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        audit_id = new_uuid()
        scope["audit_id"] = audit_id

        async def send_with_id(message: Message) -> None:
            if message["type"] == "http.response.start":
                message = {
                    **message,
                    "headers": [*message.get("headers", []), (b"audit-id", audit_id.encode())],
                }
            await send(message)

        await self.app(scope, receive, send_with_id)


class FlowControl:
    """Max-in-flight / priority and fairness: admits everything for now."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        await self.app(scope, receive, send)


class Authorization:
    """The authorizer union: allows everything for now (RBAC comes with the security issue)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        await self.app(scope, receive, send)
