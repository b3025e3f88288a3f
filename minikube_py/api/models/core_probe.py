"""core/v1 probes and lifecycle hooks: how the kubelet checks on and signals a container."""

from __future__ import annotations

from typing import Annotated

from minikube_py.api.models.base import Int32, Int64, IntOrString, K8sModel, OneOf

OPENAPI_PACKAGE = "io.k8s.api.core.v1"

URIScheme = Annotated[str, OneOf("HTTP", "HTTPS")]


class ExecAction(K8sModel):
    """Runs a command in the container."""

    command: list[str] | None = None
    """Command line to execute inside the container, with the container's working directory as
    its working directory. It is not run in a shell; exit status 0 means healthy."""


class HTTPHeader(K8sModel):
    """A custom header for HTTP probes."""

    required_fields = ("name", "value")

    name: str | None = None
    """The header field name (canonicalized on output)."""
    value: str | None = None
    """The header field value."""


class HTTPGetAction(K8sModel):
    """An HTTP GET request."""

    required_fields = ("port",)

    path: str | None = None
    """Path to access on the HTTP server."""
    port: IntOrString | None = None
    """Number (1-65535) or name (IANA_SVC_NAME) of the port to access on the container."""
    host: str | None = None
    """Host name to connect to; defaults to the pod IP. Prefer the Host header in ``httpHeaders``."""
    scheme: URIScheme | None = None
    """Scheme to use for connecting to the host; defaults to ``HTTP``."""
    http_headers: list[HTTPHeader] | None = None
    """Custom headers to set in the request. HTTP allows repeated headers."""


class TCPSocketAction(K8sModel):
    """Opens a TCP connection."""

    required_fields = ("port",)

    port: IntOrString | None = None
    """Number (1-65535) or name (IANA_SVC_NAME) of the port to access on the container."""
    host: str | None = None
    """Host name to connect to; defaults to the pod IP."""


class GRPCAction(K8sModel):
    """Calls the gRPC health checking service."""

    required_fields = ("port",)

    port: Int32 | None = None
    """Port number of the gRPC service (1-65535)."""
    service: str | None = None
    """Name of the service to place in the gRPC HealthCheckRequest; empty means the server's
    default behaviour."""


class SleepAction(K8sModel):
    """Sleeps for a while."""

    required_fields = ("seconds",)

    seconds: Int64 | None = None
    """Seconds to sleep."""


class ProbeHandler(K8sModel):
    """The action a probe takes. Exactly one of the fields must be set."""

    exec: ExecAction | None = None
    """Runs a command."""
    http_get: HTTPGetAction | None = None
    """Performs an HTTP GET request."""
    tcp_socket: TCPSocketAction | None = None
    """Checks that a TCP port accepts connections."""
    grpc: GRPCAction | None = None
    """Calls a gRPC health check."""


class Probe(ProbeHandler):
    """A health check run against a container to learn whether it is alive or ready to
    receive traffic."""

    initial_delay_seconds: Int32 | None = None
    """Seconds after the container started before the first probe."""
    timeout_seconds: Int32 | None = None
    """Seconds after which the probe times out. Defaults to 1, minimum 1."""
    period_seconds: Int32 | None = None
    """How often (in seconds) to perform the probe. Defaults to 10, minimum 1."""
    success_threshold: Int32 | None = None
    """Consecutive successes needed after a failure to count as successful. Defaults to 1; must
    be 1 for liveness and startup probes."""
    failure_threshold: Int32 | None = None
    """Consecutive failures needed after a success to count as failed. Defaults to 3."""
    termination_grace_period_seconds: Int64 | None = None
    """Grace period for the pod to terminate after a probe failure, overriding the pod's value."""


class LifecycleHandler(K8sModel):
    """An action run at a lifecycle hook. Exactly one of the fields must be set (``tcpSocket`` is
    deprecated)."""

    exec: ExecAction | None = None
    """Runs a command."""
    http_get: HTTPGetAction | None = None
    """Performs an HTTP GET request."""
    tcp_socket: TCPSocketAction | None = None
    """Deprecated, kept for backward compatibility and not supported as a hook."""
    sleep: SleepAction | None = None
    """Sleeps before the container is terminated."""


class Lifecycle(K8sModel):
    """Actions the management system runs in response to container lifecycle events."""

    post_start: LifecycleHandler | None = None
    """Called right after the container is created. On failure the container is restarted as its
    restart policy says; the container's management blocks until the hook completes."""
    pre_stop: LifecycleHandler | None = None
    """Called right before the container is terminated (API request, probe failure, preemption,
    contention), counting against the termination grace period."""
    stop_signal: str | None = None
    """The signal sent to stop the container, overriding the image's default."""
