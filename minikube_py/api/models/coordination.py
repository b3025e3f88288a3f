"""coordination.k8s.io/v1 Lease: leader election and node heartbeats."""

from __future__ import annotations

from minikube_py.api.models.base import Int32, K8sModel, MicroTime
from minikube_py.api.models.meta import ObjectMeta, TypeMeta
from minikube_py.api.scheme import Served

OPENAPI_PACKAGE = "io.k8s.api.coordination.v1"


class LeaseSpec(K8sModel):
    """The holder and timing of a lease."""

    holder_identity: str | None = None
    """Identity of the current holder."""
    lease_duration_seconds: Int32 | None = None
    """How long candidates wait, after the last renewal, before they may take the lease."""
    acquire_time: MicroTime | None = None
    """When the current holder acquired the lease."""
    renew_time: MicroTime | None = None
    """When the current holder last renewed the lease."""
    lease_transitions: Int32 | None = None
    """Number of times the lease changed holders."""
    strategy: str | None = None
    """Strategy for picking the leader in coordinated leader election."""
    preferred_holder: str | None = None
    """Signals a holder that the lease should change hands (coordinated leader election)."""


class Lease(TypeMeta):
    """A lease held by one holder at a time."""

    kinds = (Served("coordination.k8s.io", "v1", "leases", True),)

    metadata: ObjectMeta | None = None
    """Standard object metadata."""
    spec: LeaseSpec | None = None
    """The lease's holder and timing."""
