"""events.k8s.io/v1 Event: the newer form of events."""

from __future__ import annotations

from minikube_py.api.models.base import Int32, K8sModel, MicroTime, Time
from minikube_py.api.models.core_objects import EventSource
from minikube_py.api.models.core_refs import ObjectReference
from minikube_py.api.models.meta import ObjectMeta, TypeMeta
from minikube_py.api.scheme import Served

OPENAPI_PACKAGE = "io.k8s.api.events.v1"


class EventSeries(K8sModel):
    """A series of events that keep happening."""

    required_fields = ("count", "lastObservedTime")

    count: Int32 | None = None
    """Number of occurrences in this series up to the last heartbeat."""
    last_observed_time: MicroTime | None = None
    """Time of the last occurrence observed."""


class Event(TypeMeta):
    """A report of an event somewhere in the cluster, about one object (``regarding``)."""

    kinds = (Served("events.k8s.io", "v1", "events", True, ("ev",)),)

    required_fields = ("eventTime",)

    metadata: ObjectMeta | None = None
    """Standard object metadata."""
    event_time: MicroTime | None = None
    """When the event was first observed."""
    series: EventSeries | None = None
    """Data about the series this event represents, if any."""
    reporting_controller: str | None = None
    """Name of the controller that emitted the event, such as ``kubernetes.io/kubelet``."""
    reporting_instance: str | None = None
    """ID of the controller instance, such as ``kubelet-xyzf``."""
    action: str | None = None
    """What action was taken or failed regarding the object."""
    reason: str | None = None
    """Why the action was taken; human-readable and short."""
    regarding: ObjectReference | None = None
    """The object this event is about."""
    related: ObjectReference | None = None
    """A second object involved, if any."""
    note: str | None = None
    """Human-readable description of the status of this operation."""
    type: str | None = None
    """``Normal`` or ``Warning``."""
    deprecated_source: EventSource | None = None
    """The ``source`` field of core/v1 events."""
    deprecated_first_timestamp: Time | None = None
    """The ``firstTimestamp`` field of core/v1 events."""
    deprecated_last_timestamp: Time | None = None
    """The ``lastTimestamp`` field of core/v1 events."""
    deprecated_count: Int32 | None = None
    """The ``count`` field of core/v1 events."""
