"""policy/v1 Eviction (a request to evict a pod, honouring disruption budgets) and PodDisruptionBudget."""

from __future__ import annotations

from minikube_py.api.models.base import Int32, Int64, IntOrString, K8sModel, Time
from minikube_py.api.models.meta import Condition, DeleteOptions, LabelSelector, ObjectMeta, TypeMeta
from minikube_py.api.models.tags import tag
from minikube_py.api.scheme import STATUS, Kind, Served

OPENAPI_PACKAGE = "io.k8s.api.policy.v1"


class Eviction(TypeMeta):
    """Evicts a pod from its node, subject to policies and constraints; created by POSTing to
    ``.../pods/<pod name>/eviction``."""

    kinds = (Kind("policy/v1"),)

    metadata: ObjectMeta | None = tag(1, "omitempty")
    """Names the pod to evict."""
    delete_options: DeleteOptions | None = tag(2, "*", "omitempty")
    """Options for the deletion of the pod."""


class PodDisruptionBudgetSpec(K8sModel):
    """How many of the selected pods may be down at once."""

    min_available: IntOrString | None = tag(1, "*", "omitempty")
    """Pods (a number or a percentage) that must stay available after an eviction."""
    selector: LabelSelector | None = tag(2, "*", "omitempty")
    """The pods the budget covers; an empty selector selects every pod of the namespace."""
    max_unavailable: IntOrString | None = tag(3, "*", "omitempty")
    """Pods (a number or a percentage) that may be unavailable after an eviction; exclusive with
    minAvailable."""
    unhealthy_pod_eviction_policy: str | None = tag(4, "*", "omitempty")
    """When not-ready pods may be evicted: ``IfHealthyBudget`` or ``AlwaysAllow``."""


class PodDisruptionBudgetStatus(K8sModel):
    """The observed state of a PodDisruptionBudget."""

    observed_generation: Int64 | None = tag(1, "omitempty")
    """The generation the disruption controller observed."""
    disrupted_pods: dict[str, Time] | None = tag(2, "omitempty")
    """Pods whose eviction was accepted but not yet seen deleted, with the time of acceptance."""
    disruptions_allowed: Int32 | None = tag(3)
    """Number of pod disruptions currently allowed."""
    current_healthy: Int32 | None = tag(4)
    """Current number of healthy pods."""
    desired_healthy: Int32 | None = tag(5)
    """Minimum number of healthy pods wanted."""
    expected_pods: Int32 | None = tag(6)
    """Number of pods the budget counts."""
    conditions: list[Condition] | None = tag(7, "omitempty")
    """The latest observations of the budget's state (``DisruptionAllowed``)."""


class PodDisruptionBudget(TypeMeta):
    """The most pods of a collection that may be down at once through voluntary disruptions."""

    kinds = (Served("policy", "v1", "poddisruptionbudgets", True, ("pdb",), subresources=(STATUS,)),)

    metadata: ObjectMeta | None = tag(1, "omitempty")
    """Standard object metadata."""
    spec: PodDisruptionBudgetSpec | None = tag(2, "omitempty")
    """The desired budget."""
    status: PodDisruptionBudgetStatus | None = tag(3, "omitempty")
    """The most recently observed status of the budget."""
