"""The node agent's ``/exec/{namespace}/{pod}/{container}``, ``/attach/{namespace}/{pod}/{container}``
and ``/portForward/{namespace}/{pod}`` (upstream kubelet ``server.go`` and ``cri/streaming``): find
the pod and container, negotiate the protocol, answer ``101`` on the hijacked connection and run
the session. Attach is exec's protocol on the runtime's ``attach`` (the container's own streams);
it also ends when the client hangs up (detaches), the container running on.

Negotiation, as kubectl offers it:

* ``Upgrade: websocket``: exec takes ``v5.channel.k8s.io`` (or ``v4.channel.k8s.io``) from
  ``Sec-WebSocket-Protocol``; port forwarding runs SPDY inside binary messages when
  ``SPDY/3.1+portforward.k8s.io`` is offered (kubectl 1.31+; upstream's apiserver translates
  this one, here the node agent does), else the kubelet's channel protocols
  (``v4.channel.k8s.io``, ``v4.base64.channel.k8s.io`` or none; ``channelforward``) with the
  ports from the ``port`` query parameter.
* ``Upgrade: SPDY/3.1``: exec answers ``X-Stream-Protocol-Version: v4.channel.k8s.io`` when the
  client offers v4 (or v5, which includes it); port forwarding ``portforward.k8s.io``.
  Attach negotiates as exec does.

Refusals are plain text as upstream's: 400 for a missing stream, missing or bad WebSocket
ports or an unsupported upgrade, 403 when no protocol matches, 404 for an unknown pod or a
container that does not run, 500 ``pod not found ("web_default")`` for a port forward to a pod
without a ready sandbox.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable

from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response
from starlette.types import Receive, Scope, Send

from minikube_py.hijack import HIJACK, RawConnection, can_hijack
from nodeagent.node.streams.channelforward import (
    PORT_PARAMETER,
    ChannelCodec,
    negotiate,
    parse_ports,
    refusal,
    serve_channel_port_forward,
)
from nodeagent.node.streams.channels import SpdyChannels, WebSocketChannels
from nodeagent.node.streams.portforward import PodPorts, serve_port_forward
from nodeagent.node.streams.remotecommand import Channels, StreamOptions, internal_error, run_remote_command
from nodeagent.node.streams.spdy import SpdySession
from nodeagent.node.streams.target import StreamLookup, ready_sandbox
from nodeagent.node.streams.websocket import MessageStream, WebSocket, handshake_response, offered_protocols
from nodeagent.runtime.interface import ExecProcess, RuntimeError_

EXEC_WEBSOCKET = ("v5.channel.k8s.io", "v4.channel.k8s.io")
EXEC_SPDY = ("v5.channel.k8s.io", "v4.channel.k8s.io")
SPDY_EXEC_ANSWER = "v4.channel.k8s.io"
PORT_FORWARD_WEBSOCKET = "SPDY/3.1+portforward.k8s.io"
PORT_FORWARD_SPDY = "portforward.k8s.io"
FIRST_RESIZE_WAIT = 0.5
LINGER = 1.0  # how long a finished SPDY exec waits for the client to hang up first

Session = Callable[[RawConnection], Awaitable[None]]
Start = Callable[[tuple[int, int] | None], Awaitable[ExecProcess]]  # the terminal size to begin with


class HijackResponse(Response):
    """Runs ``session`` on the raw connection (``minikube_py.hijack``)."""

    def __init__(self, session: Session) -> None:
        super().__init__(status_code=101)
        self._session = session

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        await send({"type": HIJACK, "run": self._session})


def stream_routes(lookup: StreamLookup) -> dict[str, Callable[[Request], Awaitable[Response]]]:
    """The endpoints by path, for ``agent_app``."""

    async def remote_command(request: Request, attach: bool) -> Response:
        command = [] if attach else request.query_params.getlist("command")
        options = StreamOptions.from_query(dict(request.query_params), command)
        if not (options.stdin or options.stdout or options.stderr):
            return PlainTextResponse("you must specify at least 1 of stdin, stdout, stderr", 400)
        target, container = lookup(request.path_params["namespace"], request.path_params["pod"]), ""
        if target is None:
            return PlainTextResponse("pod does not exist", 404)
        container = request.path_params["container"]
        container_id = target.running_container_id(container)
        if container_id is None:
            return PlainTextResponse(f'container not found ("{container}")', 404)
        runtime = target.runtime

        async def start(size: tuple[int, int] | None) -> ExecProcess:
            if attach:
                return await runtime.attach(container_id, stdin=options.stdin)
            return await runtime.exec_stream(
                container_id, options.command, stdin=options.stdin, tty=options.tty, size=size
            )

        return _negotiate_exec(request, start, options, hangup_detaches=attach)

    async def exec_(request: Request) -> Response:
        return await remote_command(request, attach=False)

    async def attach(request: Request) -> Response:
        return await remote_command(request, attach=True)

    async def port_forward(request: Request) -> Response:
        """Upstream's order: the WebSocket ports (400), the pod (404), its sandbox (500), then
        the protocol (403)."""
        upgrade = _upgrade(request)
        offered = offered_protocols(request.headers.getlist("sec-websocket-protocol"))
        channels = upgrade == "websocket" and PORT_FORWARD_WEBSOCKET not in offered
        ports: list[int] = []
        if channels:
            try:
                ports = parse_ports(request.query_params.getlist(PORT_PARAMETER))
            except ValueError as err:
                return PlainTextResponse(str(err), 400)
        target = lookup(request.path_params["namespace"], request.path_params["pod"])
        if target is None:
            return PlainTextResponse("pod does not exist", 404)
        sandbox_id = await ready_sandbox(target)
        if sandbox_id is None:
            return PlainTextResponse(f'pod not found ("{target.full_name}")', 500)
        pod = PodPorts(target.runtime, sandbox_id)
        if channels:
            return _channel_port_forward(request, offered, ports, pod)
        return _negotiate_port_forward(request, pod)

    return {
        "/exec/{namespace}/{pod}/{container}": exec_,
        "/attach/{namespace}/{pod}/{container}": attach,
        "/portForward/{namespace}/{pod}": port_forward,
    }


def _upgrade(request: Request) -> str:
    if not can_hijack(request.scope):
        return ""
    return request.headers.get("upgrade", "").lower()


def _negotiate_exec(
    request: Request, start: Start, options: StreamOptions, hangup_detaches: bool
) -> Response:
    """Exec (or attach: ``hangup_detaches``, the session ending when the connection does)."""

    async def execute(channels: Channels, connection: asyncio.Task[None]) -> None:
        size = None
        if options.tty:  # the client sends its terminal's size first: start with it
            with contextlib.suppress(TimeoutError):
                size = await asyncio.wait_for(channels.read_resize(), FIRST_RESIZE_WAIT)
        try:
            process = await start(size)
        except RuntimeError_ as err:
            await channels.finish(internal_error(str(err)))
            return
        if size is not None and hangup_detaches:
            await process.resize(*size)  # an attached terminal exists already
        relaying = asyncio.ensure_future(run_remote_command(process, channels, options))
        try:
            watched = {relaying, connection} if hangup_detaches else {relaying}
            await asyncio.wait(watched, return_when=asyncio.FIRST_COMPLETED)
        finally:
            relaying.cancel()  # the client hung up first (or we are cancelled): detach
        await asyncio.wait({relaying})
        if not relaying.cancelled():
            relaying.result()

    upgrade = _upgrade(request)
    if upgrade == "websocket":
        offered = offered_protocols(request.headers.getlist("sec-websocket-protocol"))
        protocol = next((p for p in EXEC_WEBSOCKET if p in offered), None)
        if protocol is None:
            return _no_protocol(offered, EXEC_WEBSOCKET)
        key = request.headers.get("sec-websocket-key", "")

        async def websocket_session(connection: RawConnection) -> None:
            await connection.write(handshake_response(key, protocol))
            channels = WebSocketChannels(WebSocket(connection), 5 if protocol.startswith("v5") else 4)
            async with asyncio.TaskGroup() as tasks:
                reading = tasks.create_task(channels.serve())
                await execute(channels, reading)
                reading.cancel()

        return HijackResponse(websocket_session)
    if upgrade == "spdy/3.1":
        offered = [v.strip() for v in request.headers.getlist("x-stream-protocol-version")]
        if not any(p in offered for p in EXEC_SPDY):
            return _no_protocol(offered, (SPDY_EXEC_ANSWER,))

        async def spdy_session(connection: RawConnection) -> None:
            await connection.write(_spdy_switch(SPDY_EXEC_ANSWER))
            session = SpdySession(connection)
            async with asyncio.TaskGroup() as tasks:
                serving = tasks.create_task(session.serve())
                channels = await SpdyChannels.accept(session, options)
                if channels is not None:
                    await execute(channels, serving)
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(asyncio.shield(serving), LINGER)
                serving.cancel()

        return HijackResponse(spdy_session)
    return PlainTextResponse("Upgrade request required", 400)


def _channel_port_forward(request: Request, offered: list[str], ports: list[int], pod: PodPorts) -> Response:
    """The WebSocket channel protocols (``channelforward``)."""
    protocol = negotiate(offered)
    if protocol is None:
        return PlainTextResponse(refusal(offered), 403)
    key = request.headers.get("sec-websocket-key", "")

    async def websocket_session(connection: RawConnection) -> None:
        await connection.write(handshake_response(key, protocol))
        codec = ChannelCodec.for_protocol(protocol)
        await serve_channel_port_forward(WebSocket(connection), codec, ports, pod)

    return HijackResponse(websocket_session)


def _negotiate_port_forward(request: Request, pod: PodPorts) -> Response:
    """SPDY, raw or tunnelled in WebSocket (``portforward``)."""

    async def forward(session: SpdySession) -> None:
        async with asyncio.TaskGroup() as tasks:
            serving = tasks.create_task(session.serve())
            await serve_port_forward(session, pod)
            serving.cancel()

    upgrade = _upgrade(request)
    if upgrade == "websocket":
        key = request.headers.get("sec-websocket-key", "")

        async def websocket_session(connection: RawConnection) -> None:
            await connection.write(handshake_response(key, PORT_FORWARD_WEBSOCKET))
            await forward(SpdySession(MessageStream(WebSocket(connection), connection)))

        return HijackResponse(websocket_session)
    if upgrade == "spdy/3.1":
        offered = [v.strip() for v in request.headers.getlist("x-stream-protocol-version")]
        if PORT_FORWARD_SPDY not in offered:
            return _no_protocol(offered, (PORT_FORWARD_SPDY,))

        async def spdy_session(connection: RawConnection) -> None:
            await connection.write(_spdy_switch(PORT_FORWARD_SPDY))
            await forward(SpdySession(connection))

        return HijackResponse(spdy_session)
    return PlainTextResponse("Upgrade request required", 400)


def _spdy_switch(protocol: str) -> bytes:
    return (
        "HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: SPDY/3.1\r\n"
        f"X-Stream-Protocol-Version: {protocol}\r\n\r\n"
    ).encode()


def _no_protocol(offered: list[str], supported: tuple[str, ...]) -> Response:
    message = (
        f"unable to upgrade: unable to negotiate protocol: client supports {offered}, "
        f"server supports {list(supported)}"
    )
    return PlainTextResponse(message, 403)
