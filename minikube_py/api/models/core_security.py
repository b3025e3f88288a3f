"""core/v1 security settings for containers and pods."""

from __future__ import annotations

from typing import Annotated

from minikube_py.api.models.base import Int64, K8sModel, OneOf
from minikube_py.api.models.tags import tag

OPENAPI_PACKAGE = "io.k8s.api.core.v1"

ProfileType = Annotated[str, OneOf("Localhost", "RuntimeDefault", "Unconfined")]


class Capabilities(K8sModel):
    """POSIX capabilities to add to or drop from a running container."""

    add: list[str] | None = tag(1, "omitempty")
    """Added capabilities."""
    drop: list[str] | None = tag(2, "omitempty")
    """Removed capabilities."""


class SELinuxOptions(K8sModel):
    """SELinux labels to apply to a container."""

    user: str | None = tag(1, "omitempty")
    """The SELinux user label."""
    role: str | None = tag(2, "omitempty")
    """The SELinux role label."""
    type: str | None = tag(3, "omitempty")
    """The SELinux type label."""
    level: str | None = tag(4, "omitempty")
    """The SELinux level label."""


class SeccompProfile(K8sModel):
    """A seccomp profile. Exactly one source may be set."""

    required_fields = ("type",)

    type: ProfileType | None = tag(1)
    """Which kind of seccomp profile applies."""
    localhost_profile: str | None = tag(2, "*", "omitempty")
    """Path of a profile on the node, relative to the kubelet's seccomp directory; only with type
    ``Localhost``."""


class AppArmorProfile(K8sModel):
    """An AppArmor profile."""

    required_fields = ("type",)

    type: ProfileType | None = tag(1)
    """Which kind of AppArmor profile applies."""
    localhost_profile: str | None = tag(2, "*", "omitempty")
    """A profile loaded on the node; only with type ``Localhost``."""


class WindowsSecurityContextOptions(K8sModel):
    """Windows-specific options and credentials."""

    gmsa_credential_spec_name: str | None = tag(1, "*", "omitempty")
    """Name of the GMSA credential spec to use."""
    gmsa_credential_spec: str | None = tag(2, "*", "omitempty")
    """Where the GMSA admission webhook inlines the credential spec named above."""
    run_as_user_name: str | None = tag(3, "*", "omitempty")
    """User name to run the container process as; defaults to the image's user."""
    host_process: bool | None = tag(4, "*", "omitempty")
    """Whether the container runs as a Windows host process."""


class SecurityContext(K8sModel):
    """Security configuration for one container. Where a field is also in the pod's security
    context, the container's value wins."""

    capabilities: Capabilities | None = tag(1, "*", "omitempty")
    """Capabilities to add or drop; defaults to the runtime's set."""
    privileged: bool | None = tag(2, "*", "omitempty")
    """Run the container privileged, like a root process on the host. Defaults to false."""
    se_linux_options: SELinuxOptions | None = tag(3, "*", "omitempty")
    """SELinux context for the container; defaults to a random one chosen by the runtime."""
    windows_options: WindowsSecurityContextOptions | None = tag(10, "*", "omitempty")
    """Windows-specific settings."""
    run_as_user: Int64 | None = tag(4, "*", "omitempty")
    """UID to run the entrypoint as; defaults to the image's user."""
    run_as_group: Int64 | None = tag(8, "*", "omitempty")
    """GID to run the entrypoint as; defaults to the runtime's default."""
    run_as_non_root: bool | None = tag(5, "*", "omitempty")
    """Require the container to run as a non-root user; the kubelet refuses to start it otherwise."""
    read_only_root_filesystem: bool | None = tag(6, "*", "omitempty")
    """Mount the container's root filesystem read-only. Defaults to false."""
    allow_privilege_escalation: bool | None = tag(7, "*", "omitempty")
    """Whether a process may gain more privileges than its parent (no_new_privs)."""
    proc_mount: Annotated[str, OneOf("Default", "Unmasked")] | None = tag(9, "*", "omitempty")
    """The kind of /proc mount to use; defaults to ``Default``."""
    seccomp_profile: SeccompProfile | None = tag(11, "*", "omitempty")
    """Seccomp options, overriding the pod's."""
    app_armor_profile: AppArmorProfile | None = tag(12, "*", "omitempty")
    """AppArmor options, overriding the pod's."""


class Sysctl(K8sModel):
    """A kernel parameter to set."""

    required_fields = ("name", "value")

    name: str | None = tag(1)
    """Name of the property."""
    value: str | None = tag(2)
    """Value of the property."""


class PodSecurityContext(K8sModel):
    """Pod-level security attributes and common container settings. Container security contexts
    override the fields they share with it."""

    se_linux_options: SELinuxOptions | None = tag(1, "*", "omitempty")
    """SELinux context applied to all containers."""
    windows_options: WindowsSecurityContextOptions | None = tag(8, "*", "omitempty")
    """Windows-specific settings applied to all containers."""
    run_as_user: Int64 | None = tag(2, "*", "omitempty")
    """UID to run the entrypoint of every container as."""
    run_as_group: Int64 | None = tag(6, "*", "omitempty")
    """GID to run the entrypoint of every container as."""
    run_as_non_root: bool | None = tag(3, "*", "omitempty")
    """Require every container to run as a non-root user."""
    supplemental_groups: list[Int64] | None = tag(4, "omitempty")
    """Groups added to the first process of each container, besides its primary GID."""
    supplemental_groups_policy: Annotated[str, OneOf("Merge", "Strict")] | None = tag(12, "*", "omitempty")
    """How the supplemental groups of the first process are computed."""
    fs_group: Int64 | None = tag(5, "*", "omitempty")
    """A supplemental group owning the pod's volumes; new files are created in it."""
    sysctls: list[Sysctl] | None = tag(7, "omitempty")
    """Namespaced sysctls used for the pod."""
    fs_group_change_policy: Annotated[str, OneOf("Always", "OnRootMismatch")] | None = tag(
        9, "*", "omitempty"
    )
    """When volume ownership and permissions are changed before being exposed in the pod."""
    seccomp_profile: SeccompProfile | None = tag(10, "*", "omitempty")
    """Seccomp options for all containers."""
    app_armor_profile: AppArmorProfile | None = tag(11, "*", "omitempty")
    """AppArmor options for all containers."""
    se_linux_change_policy: str | None = tag(13, "*", "omitempty")
    """How the SELinux context is applied to volumes: ``MountOption`` or ``Recursive``."""
