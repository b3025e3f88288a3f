"""core/v1 probes and lifecycle hooks: how the kubelet checks on and signals a container."""

from __future__ import annotations

from typing import Annotated

from minikube_py.api.models.base import Int32, Int64, IntOrString, K8sModel, OneOf
from minikube_py.api.models.tags import tag

OPENAPI_PACKAGE = "io.k8s.api.core.v1"

URIScheme = Annotated[str, OneOf("HTTP", "HTTPS")]


class ExecAction(K8sModel):
    """Runs a command in the container."""

    command: list[str] | None = tag(1, "omitempty")
    """Command line to execute inside the container, with the container's working directory as
    its working directory. It is not run in a shell; exit status 0 means healthy."""


class HTTPHeader(K8sModel):
    """A custom header for HTTP probes."""

    required_fields = ("name", "value")

    name: str | None = tag(1)
    """The header field name (canonicalized on output)."""
    value: str | None = tag(2)
    """The header field value."""


class HTTPGetAction(K8sModel):
    """An HTTP GET request."""

    required_fields = ("port",)

    path: str | None = tag(1, "omitempty")
    """Path to access on the HTTP server."""
    port: IntOrString | None = tag(2)
    """Number (1-65535) or name (IANA_SVC_NAME) of the port to access on the container."""
    host: str | None = tag(3, "omitempty")
    """Host name to connect to; defaults to the pod IP. Prefer the Host header in ``httpHeaders``."""
    scheme: URIScheme | None = tag(4, "omitempty")
    """Scheme to use for connecting to the host; defaults to ``HTTP``."""
    http_headers: list[HTTPHeader] | None = tag(5, "omitempty")
    """Custom headers to set in the request. HTTP allows repeated headers."""


class TCPSocketAction(K8sModel):
    """Opens a TCP connection."""

    required_fields = ("port",)

    port: IntOrString | None = tag(1)
    """Number (1-65535) or name (IANA_SVC_NAME) of the port to access on the container."""
    host: str | None = tag(2, "omitempty")
    """Host name to connect to; defaults to the pod IP."""


class GRPCAction(K8sModel):
    """Calls the gRPC health checking service."""

    required_fields = ("port",)

    port: Int32 | None = tag(1)
    """Port number of the gRPC service (1-65535)."""
    service: str | None = tag(2, "*")
    """Name of the service to place in the gRPC HealthCheckRequest; empty means the server's
    default behaviour."""


class SleepAction(K8sModel):
    """Sleeps for a while."""

    required_fields = ("seconds",)

    seconds: Int64 | None = tag(1)
    """Seconds to sleep."""


class ProbeHandler(K8sModel):
    """The action a probe takes. Exactly one of the fields must be set."""

    exec: ExecAction | None = tag(1, "*", "omitempty")
    """Runs a command."""
    http_get: HTTPGetAction | None = tag(2, "*", "omitempty")
    """Performs an HTTP GET request."""
    tcp_socket: TCPSocketAction | None = tag(3, "*", "omitempty")
    """Checks that a TCP port accepts connections."""
    grpc: GRPCAction | None = tag(4, "*", "omitempty")
    """Calls a gRPC health check."""


class Probe(ProbeHandler, inline=1, inline_name="handler"):
    """A health check run against a container to learn whether it is alive or ready to
    receive traffic."""

    initial_delay_seconds: Int32 | None = tag(2, "omitempty")
    """Seconds after the container started before the first probe."""
    timeout_seconds: Int32 | None = tag(3, "omitempty")
    """Seconds after which the probe times out. Defaults to 1, minimum 1."""
    period_seconds: Int32 | None = tag(4, "omitempty")
    """How often (in seconds) to perform the probe. Defaults to 10, minimum 1."""
    success_threshold: Int32 | None = tag(5, "omitempty")
    """Consecutive successes needed after a failure to count as successful. Defaults to 1; must
    be 1 for liveness and startup probes."""
    failure_threshold: Int32 | None = tag(6, "omitempty")
    """Consecutive failures needed after a success to count as failed. Defaults to 3."""
    termination_grace_period_seconds: Int64 | None = tag(7, "*", "omitempty")
    """Grace period for the pod to terminate after a probe failure, overriding the pod's value."""


class LifecycleHandler(K8sModel):
    """An action run at a lifecycle hook. Exactly one of the fields must be set (``tcpSocket`` is
    deprecated)."""

    exec: ExecAction | None = tag(1, "*", "omitempty")
    """Runs a command."""
    http_get: HTTPGetAction | None = tag(2, "*", "omitempty")
    """Performs an HTTP GET request."""
    tcp_socket: TCPSocketAction | None = tag(3, "*", "omitempty")
    """Deprecated, kept for backward compatibility and not supported as a hook."""
    sleep: SleepAction | None = tag(4, "*", "omitempty")
    """Sleeps before the container is terminated."""


class Lifecycle(K8sModel):
    """Actions the management system runs in response to container lifecycle events."""

    post_start: LifecycleHandler | None = tag(1, "*", "omitempty")
    """Called right after the container is created. On failure the container is restarted as its
    restart policy says; the container's management blocks until the hook completes."""
    pre_stop: LifecycleHandler | None = tag(2, "*", "omitempty")
    """Called right before the container is terminated (API request, probe failure, preemption,
    contention), counting against the termination grace period."""
    stop_signal: str | None = tag(3, "*", "omitempty")
    """The signal sent to stop the container, overriding the image's default."""
