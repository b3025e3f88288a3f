"""core/v1 containers: image, command, ports, environment, resources and mounts."""

from __future__ import annotations

from typing import Annotated

from minikube_py.api.models.base import Int32, K8sModel, OneOf, ResourceList
from minikube_py.api.models.core_probe import Lifecycle, Probe
from minikube_py.api.models.core_refs import (
    ConfigMapKeySelector,
    LocalObjectReference,
    ObjectFieldSelector,
    ResourceFieldSelector,
    SecretKeySelector,
)
from minikube_py.api.models.core_security import SecurityContext
from minikube_py.api.models.tags import tag

OPENAPI_PACKAGE = "io.k8s.api.core.v1"

Protocol = Annotated[str, OneOf("SCTP", "TCP", "UDP")]
PullPolicy = Annotated[str, OneOf("Always", "IfNotPresent", "Never")]


class ContainerPort(K8sModel):
    """A network port in a single container."""

    required_fields = ("containerPort",)

    name: str | None = tag(1, "omitempty")
    """An IANA_SVC_NAME, unique within the pod, that services can refer to."""
    host_port: Int32 | None = tag(2, "omitempty")
    """Port to expose on the host (1-65535); most containers do not need it."""
    container_port: Int32 | None = tag(3)
    """Port to expose on the pod's IP address (1-65535)."""
    protocol: Protocol | None = tag(4, "omitempty")
    """Protocol of the port; defaults to ``TCP``."""
    host_ip: str | None = tag(5, "omitempty")
    """Host IP to bind the host port to."""


class FileKeySelector(K8sModel):
    """Selects a key of an env file in a volume."""

    required_fields = ("volumeName", "path", "key")

    volume_name: str | None = tag(1)
    """The name of the volume mount holding the env file."""
    path: str | None = tag(2)
    """Path of the env file within the volume."""
    key: str | None = tag(3)
    """The key within the env file."""
    optional: bool | None = tag(4, "*", "omitempty")
    """Whether the file or its key may be missing."""


class EnvVarSource(K8sModel):
    """Where the value of an environment variable comes from."""

    field_ref: ObjectFieldSelector | None = tag(1, "*", "omitempty")
    """A field of the pod: ``metadata.name``, ``metadata.namespace``, ``metadata.labels['<KEY>']``,
    ``spec.nodeName``, ``status.podIP`` and the like."""
    resource_field_ref: ResourceFieldSelector | None = tag(2, "*", "omitempty")
    """A resource of the container: limits and requests of CPU, memory and ephemeral storage."""
    config_map_key_ref: ConfigMapKeySelector | None = tag(3, "*", "omitempty")
    """A key of a ConfigMap."""
    secret_key_ref: SecretKeySelector | None = tag(4, "*", "omitempty")
    """A key of a Secret in the pod's namespace."""
    file_key_ref: FileKeySelector | None = tag(5, "*", "omitempty")
    """A key of an env file in a volume."""


class EnvVar(K8sModel):
    """An environment variable present in a container."""

    required_fields = ("name",)

    name: str | None = tag(1)
    """Name of the environment variable."""
    value: str | None = tag(2, "omitempty")
    """The value. ``$(VAR_NAME)`` references to earlier variables are expanded; ``$$`` escapes."""
    value_from: EnvVarSource | None = tag(3, "*", "omitempty")
    """Source of the value; cannot be used with a non-empty ``value``."""


class ConfigMapEnvSource(LocalObjectReference, inline=1):
    """A ConfigMap whose keys become environment variables."""

    optional: bool | None = tag(2, "*", "omitempty")
    """Whether the ConfigMap may be missing."""


class SecretEnvSource(LocalObjectReference, inline=1):
    """A Secret whose keys become environment variables."""

    optional: bool | None = tag(2, "*", "omitempty")
    """Whether the Secret may be missing."""


class EnvFromSource(K8sModel):
    """A source of a set of environment variables."""

    prefix: str | None = tag(1, "omitempty")
    """Optional text prepended to the name of each variable."""
    config_map_ref: ConfigMapEnvSource | None = tag(2, "*", "omitempty")
    """The ConfigMap to take variables from."""
    secret_ref: SecretEnvSource | None = tag(3, "*", "omitempty")
    """The Secret to take variables from."""


class ResourceClaim(K8sModel):
    """A reference to one entry of the pod's ``resourceClaims``."""

    required_fields = ("name",)

    name: str | None = tag(1)
    """Name of an entry in ``spec.resourceClaims`` of the pod."""
    request: str | None = tag(2, "omitempty")
    """A request of the claim to use; empty means the whole claim."""


class ResourceRequirements(K8sModel):
    """Compute resource requirements."""

    limits: ResourceList | None = tag(1, "omitempty")
    """The maximum amount of compute resources allowed."""
    requests: ResourceList | None = tag(2, "omitempty")
    """The minimum amount of compute resources required; defaults to the limits when omitted."""
    claims: list[ResourceClaim] | None = tag(3, "omitempty")
    """Dynamically allocated resources (from ``spec.resourceClaims``) used by this container."""


class VolumeMount(K8sModel):
    """Mounts a volume within a container."""

    required_fields = ("name", "mountPath")

    name: str | None = tag(1)
    """Must match the name of a volume of the pod."""
    read_only: bool | None = tag(2, "omitempty")
    """Mount read-only if true. Defaults to false."""
    recursive_read_only: str | None = tag(7, "*", "omitempty")
    """Whether read-only mounts are recursively read-only: ``Disabled``, ``IfPossible`` or
    ``Enabled``."""
    mount_path: str | None = tag(3)
    """Path within the container to mount the volume at. Must not contain ``:``."""
    sub_path: str | None = tag(4, "omitempty")
    """Path within the volume to mount instead of its root."""
    mount_propagation: str | None = tag(5, "*", "omitempty")
    """How mounts propagate between host and container: ``None``, ``HostToContainer`` or
    ``Bidirectional``."""
    sub_path_expr: str | None = tag(6, "omitempty")
    """Like ``subPath`` but with ``$(VAR_NAME)`` references expanded from the container's
    environment. Exclusive with ``subPath``."""


class VolumeDevice(K8sModel):
    """Maps a raw block device into a container."""

    required_fields = ("name", "devicePath")

    name: str | None = tag(1)
    """Must match the name of a persistentVolumeClaim volume of the pod."""
    device_path: str | None = tag(2)
    """Path inside the container the device is mapped to."""


class ContainerResizePolicy(K8sModel):
    """How a container reacts to a resize of one resource."""

    required_fields = ("resourceName", "restartPolicy")

    resource_name: str | None = tag(1)
    """The resource this policy applies to: ``cpu`` or ``memory``."""
    restart_policy: str | None = tag(2)
    """What happens on a resize: ``NotRequired`` or ``RestartContainer``."""


class ContainerRestartRuleOnExitCodes(K8sModel):
    """Exit codes that match a restart rule."""

    operator: str | None = tag(1, "omitempty")
    """How the exit code is compared to ``values``: ``In`` or ``NotIn``."""
    values: list[Int32] | None = tag(2, "omitempty")
    """The exit codes to compare against."""


class ContainerRestartRule(K8sModel):
    """A rule deciding whether a container that exited is restarted."""

    action: str | None = tag(1, "omitempty")
    """What to do when the rule matches: ``Restart``."""
    exit_codes: ContainerRestartRuleOnExitCodes | None = tag(2, "*", "omitempty")
    """Matches the container's exit code."""


class Container(K8sModel):
    """A single application container to run within a pod."""

    required_fields = ("name",)

    name: str | None = tag(1)
    """Name of the container, a DNS label unique within the pod. Cannot be updated."""
    image: str | None = tag(2, "omitempty")
    """Container image name. Workload controllers may leave it empty in templates."""
    command: list[str] | None = tag(3, "omitempty")
    """Entrypoint array, run without a shell; defaults to the image's ENTRYPOINT. ``$(VAR_NAME)``
    references are expanded from the container's environment."""
    args: list[str] | None = tag(4, "omitempty")
    """Arguments to the entrypoint; defaults to the image's CMD. ``$(VAR_NAME)`` references are
    expanded from the container's environment."""
    working_dir: str | None = tag(5, "omitempty")
    """The container's working directory; defaults to the runtime's default."""
    ports: list[ContainerPort] | None = tag(6, "omitempty", merge_key="containerPort")
    """Ports to expose from the container. Informational: any port a process listens on is
    reachable from the network."""
    env_from: list[EnvFromSource] | None = tag(19, "omitempty")
    """Sources of environment variables; ``env`` wins on duplicate keys."""
    env: list[EnvVar] | None = tag(7, "omitempty", merge_key="name")
    """Environment variables to set in the container."""
    resources: ResourceRequirements | None = tag(8, "omitempty")
    """Compute resources this container requires."""
    resize_policy: list[ContainerResizePolicy] | None = tag(23, "omitempty")
    """Resize policy for the container's resources."""
    restart_policy: str | None = tag(24, "*", "omitempty")
    """Restart behaviour of this container; only ``Always`` for init containers (sidecars)."""
    restart_policy_rules: list[ContainerRestartRule] | None = tag(25, "omitempty")
    """Rules deciding, from the exit code, whether the container is restarted."""
    volume_mounts: list[VolumeMount] | None = tag(9, "omitempty", merge_key="mountPath")
    """Pod volumes to mount into the container's filesystem."""
    volume_devices: list[VolumeDevice] | None = tag(21, "omitempty", merge_key="devicePath")
    """Block devices to be used by the container."""
    liveness_probe: Probe | None = tag(10, "*", "omitempty")
    """Periodic probe of container liveness; the container restarts when it fails."""
    readiness_probe: Probe | None = tag(11, "*", "omitempty")
    """Periodic probe of container readiness; the container leaves service endpoints when it
    fails."""
    startup_probe: Probe | None = tag(22, "*", "omitempty")
    """Probe that must succeed before any other probe runs; the container restarts when it
    fails."""
    lifecycle: Lifecycle | None = tag(12, "*", "omitempty")
    """Actions the management system runs in response to container lifecycle events."""
    termination_message_path: str | None = tag(13, "omitempty")
    """File the container's termination message is read from; defaults to
    ``/dev/termination-log``."""
    termination_message_policy: Annotated[str, OneOf("FallbackToLogsOnError", "File")] | None = tag(
        20, "omitempty"
    )
    """How the termination message is filled; defaults to ``File``."""
    image_pull_policy: PullPolicy | None = tag(14, "omitempty")
    """When the image is pulled; defaults to ``Always`` for ``:latest`` tags, else
    ``IfNotPresent``."""
    security_context: SecurityContext | None = tag(15, "*", "omitempty")
    """Security options the container runs with."""
    stdin: bool | None = tag(16, "omitempty")
    """Allocate a buffer for stdin in the runtime. Defaults to false."""
    stdin_once: bool | None = tag(17, "omitempty")
    """Close stdin after the first attach session disconnects. Defaults to false."""
    tty: bool | None = tag(18, "omitempty")
    """Allocate a TTY for the container (needs ``stdin``). Defaults to false."""


class EphemeralContainerCommon(Container):
    """The fields an ephemeral container shares with ``Container`` (upstream spells them out again,
    to document which ones an ephemeral container may not set)."""


class EphemeralContainer(EphemeralContainerCommon, inline=1):
    """A temporary container added to a running pod for troubleshooting. It has no resources,
    ports or probes and is never restarted."""

    target_container_name: str | None = tag(2, "omitempty")
    """Name of the container whose namespaces (IPC, PID, ...) this one targets."""
