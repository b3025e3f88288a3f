"""core/v1 kinds without pods: Namespace, ConfigMap, Secret, ServiceAccount, Event,
LimitRange and ResourceQuota."""

from __future__ import annotations

from minikube_py.api.models.base import Bytes, Int32, K8sModel, MicroTime, ResourceList, StrMap, Time
from minikube_py.api.models.core_refs import LocalObjectReference, ObjectReference
from minikube_py.api.models.meta import ObjectMeta, TypeMeta
from minikube_py.api.models.tags import tag
from minikube_py.api.scheme import NO_COLLECTION, STATUS, Served, Subresource

OPENAPI_PACKAGE = "io.k8s.api.core.v1"
FINALIZE = Subresource("finalize", "", ("update",))
TOKEN = Subresource("token", "TokenRequest", ("create",), "authentication.k8s.io", "v1")


class NamespaceSpec(K8sModel):
    """The attributes of a namespace."""

    finalizers: list[str] | None = tag(1, "omitempty")
    """Must be empty before the namespace is removed from storage."""


class NamespaceCondition(K8sModel):
    """The state of one aspect of a namespace."""

    required_fields = ("type", "status")

    type: str | None = tag(1)
    """Type of the condition, such as ``NamespaceDeletionContentFailure``."""
    status: str | None = tag(2)
    """``True``, ``False`` or ``Unknown``."""
    last_transition_time: Time | None = tag(4, "omitempty")
    """Last time the condition changed from one status to another."""
    reason: str | None = tag(5, "omitempty")
    """Brief reason for the last transition."""
    message: str | None = tag(6, "omitempty")
    """Human-readable details of the last transition."""


class NamespaceStatus(K8sModel):
    """The current status of a namespace."""

    phase: str | None = tag(1, "omitempty")
    """``Active`` or ``Terminating``."""
    conditions: list[NamespaceCondition] | None = tag(2, "omitempty", merge_key="type")
    """Current observed conditions of the namespace."""


class Namespace(TypeMeta):
    """A scope for names. Each namespace has its own set of named objects."""

    kinds = (
        Served("", "v1", "namespaces", False, ("ns",), verbs=NO_COLLECTION, subresources=(FINALIZE, STATUS)),
    )

    metadata: ObjectMeta | None = tag(1, "omitempty")
    """Standard object metadata."""
    spec: NamespaceSpec | None = tag(2, "omitempty")
    """The behaviour of the namespace."""
    status: NamespaceStatus | None = tag(3, "omitempty")
    """The current status of the namespace. Read-only."""


class ConfigMap(TypeMeta):
    """Configuration data for pods to consume."""

    kinds = (Served("", "v1", "configmaps", True, ("cm",)),)

    metadata: ObjectMeta | None = tag(1, "omitempty")
    """Standard object metadata."""
    immutable: bool | None = tag(4, "*", "omitempty")
    """When true, ``data`` and ``binaryData`` cannot be changed (only the metadata can)."""
    data: StrMap | None = tag(2, "omitempty")
    """UTF-8 configuration data. Keys consist of alphanumerics, ``-``, ``_`` or ``.``; they may
    not overlap with ``binaryData``."""
    binary_data: dict[str, Bytes] | None = tag(3, "omitempty")
    """Binary configuration data, base64-encoded."""


class Secret(TypeMeta):
    """Secret data of a certain type, at most 1MB in total."""

    kinds = (Served("", "v1", "secrets", True),)

    metadata: ObjectMeta | None = tag(1, "omitempty")
    """Standard object metadata."""
    immutable: bool | None = tag(5, "*", "omitempty")
    """When true, ``data`` cannot be changed (only the metadata can)."""
    data: dict[str, Bytes] | None = tag(2, "omitempty")
    """The secret data, base64-encoded. Keys consist of alphanumerics, ``-``, ``_`` or ``.``."""
    string_data: StrMap | None = tag(4, "omitempty")
    """Write-only convenience: non-binary data merged into ``data`` on write; never returned."""
    type: str | None = tag(3, "omitempty")
    """Used to ease programmatic handling of the data, such as
    ``kubernetes.io/service-account-token``; defaults to ``Opaque``."""


class ServiceAccount(TypeMeta):
    """An identity for processes that run in a pod, plus the secrets it may use."""

    kinds = (Served("", "v1", "serviceaccounts", True, ("sa",), subresources=(TOKEN,)),)

    metadata: ObjectMeta | None = tag(1, "omitempty")
    """Standard object metadata."""
    secrets: list[ObjectReference] | None = tag(2, "omitempty", merge_key="name")
    """Deprecated: secrets of the account, for older clients."""
    image_pull_secrets: list[LocalObjectReference] | None = tag(3, "omitempty")
    """Secrets for pulling images in pods running as this account."""
    automount_service_account_token: bool | None = tag(4, "*", "omitempty")
    """Whether pods running as this account get a token mounted automatically."""


class EventSource(K8sModel):
    """The component that generated an event."""

    component: str | None = None
    """Component from which the event is generated."""
    host: str | None = None
    """Node name on which the event is generated."""


class EventSeries(K8sModel):
    """A series of events that keep happening."""

    count: Int32 | None = None
    """Number of occurrences in this series up to the last heartbeat."""
    last_observed_time: MicroTime | None = None
    """Time of the last occurrence observed."""


class Event(TypeMeta):
    """A report of an event somewhere in the cluster (the legacy core/v1 form)."""

    kinds = (Served("", "v1", "events", True, ("ev",)),)

    required_fields = ("metadata", "involvedObject")

    metadata: ObjectMeta | None = None
    """Standard object metadata."""
    involved_object: ObjectReference | None = None
    """The object this event is about."""
    reason: str | None = None
    """Short, machine-understandable reason for the transition into the object's current state."""
    message: str | None = None
    """Human-readable description of the status of this operation."""
    source: EventSource | None = None
    """The component reporting the event (use ``reportingComponent`` in new code)."""
    first_timestamp: Time | None = None
    """When the event was first recorded."""
    last_timestamp: Time | None = None
    """When the most recent occurrence was recorded."""
    count: Int32 | None = None
    """The number of times the event has occurred."""
    type: str | None = None
    """``Normal`` or ``Warning``."""
    event_time: MicroTime | None = None
    """When the event was first observed."""
    series: EventSeries | None = None
    """Data about the series this event represents, if any."""
    action: str | None = None
    """What action was taken or failed regarding the object."""
    related: ObjectReference | None = None
    """A second object involved, if any."""
    reporting_component: str | None = None
    """Name of the controller that emitted the event, such as ``kubernetes.io/kubelet``."""
    reporting_instance: str | None = None
    """ID of the controller instance, such as ``kubelet-xyzf``."""


class LimitRangeItem(K8sModel):
    """Limits on resource use for one kind of object."""

    required_fields = ("type",)

    type: str | None = None
    """Type of resource the limit applies to: ``Container``, ``Pod`` or
    ``PersistentVolumeClaim``."""
    max: ResourceList | None = None
    """Maximum usage by resource name."""
    min: ResourceList | None = None
    """Minimum usage by resource name."""
    default: ResourceList | None = None
    """Default limits by resource name, when a limit is omitted."""
    default_request: ResourceList | None = None
    """Default requests by resource name, when a request is omitted."""
    max_limit_request_ratio: ResourceList | None = None
    """Largest allowed ratio of limit to request, by resource name."""


class LimitRangeSpec(K8sModel):
    """The limits a LimitRange enforces."""

    required_fields = ("limits",)

    limits: list[LimitRangeItem] | None = None
    """Limits that are enforced."""


class LimitRange(TypeMeta):
    """Resource consumption limits per kind of resource in a namespace."""

    kinds = (Served("", "v1", "limitranges", True, ("limits",)),)

    metadata: ObjectMeta | None = None
    """Standard object metadata."""
    spec: LimitRangeSpec | None = None
    """The limits enforced."""


class ScopedResourceSelectorRequirement(K8sModel):
    """A requirement on a quota scope: a scope name, an operator and values."""

    required_fields = ("scopeName", "operator")

    scope_name: str | None = tag(1)
    """Name of the scope the selector applies to."""
    operator: str | None = tag(2)
    """Relationship of the scope to the values: ``In``, ``NotIn``, ``Exists`` or
    ``DoesNotExist``."""
    values: list[str] | None = tag(3, "omitempty")
    """Values; non-empty for ``In`` and ``NotIn``."""


class ScopeSelector(K8sModel):
    """Quota scope requirements, ANDed."""

    match_expressions: list[ScopedResourceSelectorRequirement] | None = tag(1, "omitempty")
    """Scope selector requirements by scope of the resources."""


class ResourceQuotaSpec(K8sModel):
    """The hard limits a quota enforces."""

    hard: ResourceList | None = tag(1, "omitempty")
    """Hard limit for each named resource."""
    scopes: list[str] | None = tag(2, "omitempty")
    """Filters; an object must match every scope to be tracked by the quota."""
    scope_selector: ScopeSelector | None = tag(3, "*", "omitempty")
    """Expression-based filter, combined with ``scopes``."""


class ResourceQuotaStatus(K8sModel):
    """The enforced hard limits and the current usage."""

    hard: ResourceList | None = tag(1, "omitempty")
    """The enforced hard limit for each named resource."""
    used: ResourceList | None = tag(2, "omitempty")
    """The current observed usage of each named resource in the namespace."""


class ResourceQuota(TypeMeta):
    """Aggregate quota restrictions enforced per namespace."""

    kinds = (Served("", "v1", "resourcequotas", True, ("quota",), subresources=(STATUS,)),)

    metadata: ObjectMeta | None = tag(1, "omitempty")
    """Standard object metadata."""
    spec: ResourceQuotaSpec | None = tag(2, "omitempty")
    """The desired quota."""
    status: ResourceQuotaStatus | None = tag(3, "omitempty")
    """The actual enforced quota and its current usage."""
