"""core/v1 references and selectors shared by pods, volumes, services and events."""

from __future__ import annotations

from minikube_py.api.models.base import Int32, K8sModel, Quantity
from minikube_py.api.models.tags import tag

OPENAPI_PACKAGE = "io.k8s.api.core.v1"


class ObjectReference(K8sModel):
    """A reference to an object, with enough information to inspect or modify it."""

    kind: str | None = tag(1, "omitempty")
    """Kind of the referent."""
    namespace: str | None = tag(2, "omitempty")
    """Namespace of the referent."""
    name: str | None = tag(3, "omitempty")
    """Name of the referent."""
    uid: str | None = tag(4, "omitempty")
    """UID of the referent."""
    api_version: str | None = tag(5, "omitempty")
    """API version of the referent."""
    resource_version: str | None = tag(6, "omitempty")
    """The referent's resource version this reference was made against, if any."""
    field_path: str | None = tag(7, "omitempty")
    """Names a piece of the object rather than the whole, such as ``spec.containers{name}``."""


class LocalObjectReference(K8sModel):
    """The name of an object in the same namespace."""

    name: str | None = tag(1, "omitempty")
    """Name of the referent."""


class TypedLocalObjectReference(K8sModel):
    """An object in the same namespace, by API group, kind and name."""

    required_fields = ("kind", "name")

    api_group: str | None = tag(1, "*")
    """API group of the referent; empty means the core group."""
    kind: str | None = tag(2)
    """Kind of the referent."""
    name: str | None = tag(3)
    """Name of the referent."""


class TypedObjectReference(TypedLocalObjectReference):
    """An object by API group, kind, name and namespace."""

    namespace: str | None = tag(4, "*", "omitempty")
    """Namespace of the referent, when it may differ from the referrer's."""


class ObjectFieldSelector(K8sModel):
    """Selects a field of the pod."""

    required_fields = ("fieldPath",)

    api_version: str | None = tag(1, "omitempty")
    """Version of the schema ``fieldPath`` is written in; defaults to ``v1``."""
    field_path: str | None = tag(2)
    """Path of the field to select, such as ``metadata.name`` or ``status.podIP``."""


class ResourceFieldSelector(K8sModel):
    """Selects a container resource (limits and requests), scaled by a divisor."""

    required_fields = ("resource",)

    container_name: str | None = tag(1, "omitempty")
    """Container name; required for volumes, optional for environment variables."""
    resource: str | None = tag(2)
    """Resource to select, such as ``limits.cpu`` or ``requests.memory``."""
    divisor: Quantity | None = tag(3, "omitempty")
    """Output format of the exposed value; defaults to ``1``."""


class ConfigMapKeySelector(LocalObjectReference, inline=1):
    """Selects one key of a ConfigMap."""

    required_fields = ("key",)

    key: str | None = tag(2)
    """The key to select."""
    optional: bool | None = tag(3, "*", "omitempty")
    """Whether the ConfigMap or its key may be missing."""


class SecretKeySelector(LocalObjectReference, inline=1):
    """Selects one key of a Secret in the pod's namespace."""

    required_fields = ("key",)

    key: str | None = tag(2)
    """The key of the secret to select. Must be a valid secret key."""
    optional: bool | None = tag(3, "*", "omitempty")
    """Whether the Secret or its key may be missing."""


class KeyToPath(K8sModel):
    """Maps a string key to a path within a volume."""

    required_fields = ("key", "path")

    key: str | None = tag(1)
    """The key to project."""
    path: str | None = tag(2)
    """Relative path of the file the key is written to. No ``..`` elements, no leading ``/``."""
    mode: Int32 | None = tag(3, "*", "omitempty")
    """Mode bits of this file (0000 to 0777); defaults to the volume's default mode."""
