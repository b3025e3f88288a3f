"""The pod connection subresources, ``pods/log``, ``exec``, ``attach`` and ``portforward``, up to
the node agent (upstream's ``LogREST``, ``ExecREST``, ``AttachREST``, ``PortForwardREST`` with the
pod strategy's ``LogLocation``, ``streamLocation`` and ``PortForwardLocation``).

A request goes the way upstream's does, and stops at the first failure:

1. (exec, attach, portforward) ``dryRun`` is refused: 400 ``dryRun is not supported``;
2. the options are converted from the query (``queryparams``): 400 with Go's message;
3. (log) upstream's ``ValidatePodLogOptions``: 422 ``PodLogOptions "web" is invalid: ...``;
4. the pod (404), then the container (``validate_container``; not for portforward);
5. the node: an unbound pod's log is an empty 204 (upstream's ``LocationStreamer`` without a
   location), for the others a 400 ``pod web does not have a host assigned``; then the Node and
   its address (``NodeConnection.locate``);
6. log: the node agent's ``/containerLogs/<ns>/<pod>/<container>?<options>`` is relayed, streamed
   when it streams (``follow=true``). The others proxy only connection upgrades, so a plain
   request is a 400 ``Upgrade request required``; an upgrade is tunnelled to the node agent's
   ``/exec``, ``/attach`` or ``/portForward`` (``upgradeproxy``), an unreachable node agent being
   upstream's ``error dialing backend: ...``.

Like upstream's apiserver, nothing here requires a command for exec, a stream for exec or attach,
or ports for portforward: the node agent answers those.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any, TypeVar

from starlette.requests import Request
from starlette.responses import Response

from apiserver.nodeproxy import NodeLocation, node_connection
from apiserver.registry.store import GenericStore
from apiserver.request.queryparams import (
    ConversionError,
    Query,
    first,
    format_rfc3339,
    to_bool,
    to_int64,
    to_ports,
    to_time,
)
from apiserver.upgradeproxy import open_tunnel
from minikube_py.api import errors, field_errors
from minikube_py.api.unstructured import Object

CONNECT_VERBS = ("get", "create")  # upstream connects GET (websockets) and POST (SPDY)
GET_VERBS = ("get", "watch")  # a GET with watch=true is still a GET of the log
T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class PodLogOptions:
    container: str = ""
    follow: bool = False
    previous: bool = False
    since_seconds: int | None = None
    since_time: datetime | None = None
    timestamps: bool = False
    tail_lines: int | None = None
    limit_bytes: int | None = None
    insecure_skip_tls_verify_backend: bool = False

    @classmethod
    def from_query(cls, query: Query) -> PodLogOptions:
        """Upstream's conversion, field by field in its order (the first failure wins)."""
        since_time = first(query, "sinceTime")
        return cls(
            container=first(query, "container") or "",
            follow=_flag(query, "follow"),
            previous=_flag(query, "previous"),
            since_seconds=_int64(query, "sinceSeconds"),
            since_time=to_time(since_time) if since_time is not None else None,
            timestamps=_flag(query, "timestamps"),
            tail_lines=_int64(query, "tailLines"),
            limit_bytes=_int64(query, "limitBytes"),
            insecure_skip_tls_verify_backend=_flag(query, "insecureSkipTLSVerifyBackend"),
        )

    def validate(self, name: str) -> None:
        """Upstream's ``ValidatePodLogOptions``; raises 422 ``PodLogOptions "name" is invalid``."""
        found: list[field_errors.FieldError] = []
        if self.tail_lines is not None and self.tail_lines < 0:
            found.append(
                field_errors.invalid("tailLines", self.tail_lines, "must be greater than or equal to 0")
            )
        if self.limit_bytes is not None and self.limit_bytes < 1:
            found.append(field_errors.invalid("limitBytes", self.limit_bytes, "must be greater than 0"))
        if self.since_seconds is not None and self.since_time is not None:
            why = "at most one of `sinceTime` or `sinceSeconds` may be specified"
            found.append(field_errors.forbidden("", why))
        elif self.since_seconds is not None and self.since_seconds < 1:
            found.append(field_errors.invalid("sinceSeconds", self.since_seconds, "must be greater than 0"))
        if found:
            message = f'PodLogOptions "{name}" is invalid: {field_errors.aggregate_message(found)}'
            causes = [errors.Cause(e.reason, e.body(), e.field) for e in found]
            raise errors.ApiError(422, "Invalid", message, name, "", "PodLogOptions", causes)

    def params(self) -> list[tuple[str, str]]:
        """The node agent's query, as upstream's ``LogLocation`` builds it."""
        flags = (("follow", self.follow), ("previous", self.previous), ("timestamps", self.timestamps))
        params = [(key, "true") for key, on in flags if on]
        for key, number in (
            ("sinceSeconds", self.since_seconds),
            ("tailLines", self.tail_lines),
            ("limitBytes", self.limit_bytes),
        ):
            if number is not None:
                params.append((key, str(number)))
        if self.since_time is not None:
            params.append(("sinceTime", format_rfc3339(self.since_time)))
        return params


@dataclass(frozen=True, slots=True)
class StreamOptions:
    """``PodExecOptions`` (with ``command``) and ``PodAttachOptions``."""

    stdin: bool = False
    stdout: bool = False
    stderr: bool = False
    tty: bool = False
    container: str = ""
    command: tuple[str, ...] = ()

    @classmethod
    def from_query(cls, query: Query) -> StreamOptions:
        return cls(
            stdin=_flag(query, "stdin"),
            stdout=_flag(query, "stdout"),
            stderr=_flag(query, "stderr"),
            tty=_flag(query, "tty"),
            container=first(query, "container") or "",
            command=tuple(query.getlist("command")),
        )

    def params(self) -> list[tuple[str, str]]:
        """Upstream's ``streamParams``: the kubelet's ``input``/``output``/``error``/``tty``."""
        flags = (("input", self.stdin), ("output", self.stdout), ("error", self.stderr), ("tty", self.tty))
        return [(key, "1") for key, on in flags if on] + [("command", c) for c in self.command]


async def log(request: Request, store: GenericStore, verb: str, namespace: str, name: str) -> Response:
    if verb not in GET_VERBS:
        raise errors.method_not_supported("pods/log", "", verb)
    options = _converted(PodLogOptions.from_query, request)
    options.validate(name)
    pod = await store.get(namespace, name)
    container = validate_container(options.container, pod)
    node_name = (pod.get("spec") or {}).get("nodeName")
    if not node_name:
        return Response(status_code=204)
    nodes = node_connection(request.scope)
    location = await nodes.locate(node_name)
    url = location.url(_pod_path("containerLogs", pod, container), options.params())
    return await nodes.stream_log(url, name=name, insecure=options.insecure_skip_tls_verify_backend)


async def exec_(request: Request, store: GenericStore, verb: str, namespace: str, name: str) -> Response:
    return await _stream(request, store, verb, namespace, name, "exec")


async def attach(request: Request, store: GenericStore, verb: str, namespace: str, name: str) -> Response:
    return await _stream(request, store, verb, namespace, name, "attach")


async def portforward(
    request: Request, store: GenericStore, verb: str, namespace: str, name: str
) -> Response:
    _check_connect(request, "portforward", verb)
    ports = _converted(lambda query: to_ports(query.getlist("ports")), request)
    pod = await store.get(namespace, name)
    location = await _locate(request, pod, name)
    params = [("port", ",".join(map(str, ports)))] if ports else []
    meta = pod["metadata"]
    path = f"/portForward/{meta.get('namespace', '')}/{meta['name']}"
    return await _upgrade(request, location, location.url(path, params))


def validate_container(container: str, pod: Object) -> str:
    """Upstream's ``validateContainer``: the named container must be in the pod (init and
    ephemeral containers count); with no name, the pod's only container."""
    spec, pod_name = pod.get("spec") or {}, pod["metadata"]["name"]
    if container:
        if container not in _container_names(spec):
            raise errors.bad_request(f"container {container} is not valid for pod {pod_name}")
        return container
    containers = spec.get("containers") or []
    if len(containers) == 1:
        return str(containers[0].get("name", ""))
    if not containers:
        raise errors.bad_request(f"a container name must be specified for pod {pod_name}")
    choices = " ".join(_container_names(spec))  # Go's %s of a []string: [a b]
    message = f"a container name must be specified for pod {pod_name}, choose one of: [{choices}]"
    raise errors.bad_request(message)


def is_upgrade_request(request: Request) -> bool:
    """Upstream's ``httpstream.IsUpgradeRequest``: a ``Connection`` header naming ``upgrade``."""
    return any("upgrade" in value.lower() for value in request.headers.getlist("connection"))


async def _stream(
    request: Request, store: GenericStore, verb: str, namespace: str, name: str, subresource: str
) -> Response:
    _check_connect(request, subresource, verb)
    options = _converted(StreamOptions.from_query, request)
    pod = await store.get(namespace, name)
    container = validate_container(options.container, pod)
    location = await _locate(request, pod, name)
    url = location.url(_pod_path(subresource, pod, container), options.params())
    return await _upgrade(request, location, url)


def _check_connect(request: Request, subresource: str, verb: str) -> None:
    if verb not in CONNECT_VERBS:
        raise errors.method_not_supported(f"pods/{subresource}", "", verb)
    if request.query_params.getlist("dryRun"):
        raise errors.bad_request("dryRun is not supported")


async def _locate(request: Request, pod: Object, name: str) -> NodeLocation:
    node_name = (pod.get("spec") or {}).get("nodeName")
    if not node_name:
        raise errors.bad_request(f"pod {name} does not have a host assigned")
    return await node_connection(request.scope).locate(node_name)


async def _upgrade(request: Request, location: NodeLocation, url: str) -> Response:
    """Upstream's upgrade-aware proxy: the tunnel to the node agent (``upgradeproxy``)."""
    if not is_upgrade_request(request):
        raise errors.bad_request("Upgrade request required")
    return await open_tunnel(request, node_connection(request.scope), location, url)


def _pod_path(kind: str, pod: Object, container: str) -> str:
    meta = pod["metadata"]
    return f"/{kind}/{meta.get('namespace', '')}/{meta['name']}/{container}"


def _container_names(spec: dict[str, Any]) -> list[str]:
    """Names in upstream's ``VisitContainers`` order: init, regular, then ephemeral containers."""
    groups = ("initContainers", "containers", "ephemeralContainers")
    return [str(c.get("name", "")) for group in groups for c in spec.get(group) or []]


def _converted(convert: Callable[[Query], T], request: Request) -> T:
    try:
        return convert(request.query_params)
    except ConversionError as err:
        raise errors.bad_request(str(err)) from None


def _flag(query: Query, key: str) -> bool:
    value = first(query, key)
    return value is not None and to_bool(value)


def _int64(query: Query, key: str) -> int | None:
    value = first(query, key)
    return to_int64(value) if value is not None else None
