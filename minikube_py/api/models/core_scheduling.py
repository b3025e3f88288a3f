"""core/v1 placement of pods: affinity, tolerations, topology spread and scheduling gates."""

from __future__ import annotations

from typing import Annotated

from minikube_py.api.models.base import Int32, Int64, K8sModel, OneOf
from minikube_py.api.models.meta import LabelSelector
from minikube_py.api.models.tags import tag

OPENAPI_PACKAGE = "io.k8s.api.core.v1"

TaintEffect = Annotated[str, OneOf("NoExecute", "NoSchedule", "PreferNoSchedule")]


class NodeSelectorRequirement(K8sModel):
    """A requirement on a node label or field: a key, an operator and values."""

    required_fields = ("key", "operator")

    key: str | None = tag(1)
    """The label key the selector applies to."""
    operator: Annotated[str, OneOf("DoesNotExist", "Exists", "Gt", "In", "Lt", "NotIn")] | None = tag(2)
    """The key's relationship to the values."""
    values: list[str] | None = tag(3, "omitempty")
    """Values to compare with. Non-empty for ``In``/``NotIn``, empty for ``Exists``/``DoesNotExist``,
    one integer for ``Gt``/``Lt``."""


class NodeSelectorTerm(K8sModel):
    """Requirements a node must all meet (ANDed). A null or empty term matches no node."""

    match_expressions: list[NodeSelectorRequirement] | None = tag(1, "omitempty")
    """Requirements on the node's labels."""
    match_fields: list[NodeSelectorRequirement] | None = tag(2, "omitempty")
    """Requirements on the node's fields."""


class NodeSelector(K8sModel):
    """Terms of which a node must match at least one (ORed)."""

    required_fields = ("nodeSelectorTerms",)

    node_selector_terms: list[NodeSelectorTerm] | None = tag(1)
    """The list of node selector terms."""


class PreferredSchedulingTerm(K8sModel):
    """A weighted node preference."""

    required_fields = ("weight", "preference")

    weight: Int32 | None = tag(1)
    """Weight of matching this term (1-100)."""
    preference: NodeSelectorTerm | None = tag(2)
    """The node selector term."""


class NodeAffinity(K8sModel):
    """Node affinity scheduling rules."""

    required_during_scheduling_ignored_during_execution: NodeSelector | None = tag(1, "*", "omitempty")
    """Nodes the pod must be scheduled onto. Ignored once the pod runs."""
    preferred_during_scheduling_ignored_during_execution: list[PreferredSchedulingTerm] | None = tag(
        2, "omitempty"
    )
    """Nodes the scheduler prefers, by the sum of the weights of the terms they match."""


class PodAffinityTerm(K8sModel):
    """Pods (selected by labels and namespaces) the pod should be co-located with, or not,
    within a topology domain."""

    required_fields = ("topologyKey",)

    label_selector: LabelSelector | None = tag(1, "*", "omitempty")
    """A label query over pods; null matches no pod."""
    namespaces: list[str] | None = tag(2, "omitempty")
    """Namespaces the selector applies to; empty means the pod's own namespace."""
    topology_key: str | None = tag(3)
    """Node label whose value defines a topology domain (zone, host...)."""
    namespace_selector: LabelSelector | None = tag(4, "*", "omitempty")
    """A label query over namespaces, added to ``namespaces``; empty selects every namespace."""
    match_label_keys: list[str] | None = tag(5, "omitempty")
    """Label keys whose values on the incoming pod are added to ``labelSelector`` (``In``)."""
    mismatch_label_keys: list[str] | None = tag(6, "omitempty")
    """Label keys whose values on the incoming pod are added to ``labelSelector`` (``NotIn``)."""


class WeightedPodAffinityTerm(K8sModel):
    """A weighted pod affinity term."""

    required_fields = ("weight", "podAffinityTerm")

    weight: Int32 | None = tag(1)
    """Weight of matching this term (1-100)."""
    pod_affinity_term: PodAffinityTerm | None = tag(2)
    """The pod affinity term."""


class PodAffinity(K8sModel):
    """Inter-pod affinity scheduling rules."""

    required_during_scheduling_ignored_during_execution: list[PodAffinityTerm] | None = tag(1, "omitempty")
    """Terms every candidate node must meet. Ignored once the pod runs."""
    preferred_during_scheduling_ignored_during_execution: list[WeightedPodAffinityTerm] | None = tag(
        2, "omitempty"
    )
    """Terms the scheduler prefers nodes to meet, by weight."""


class PodAntiAffinity(K8sModel):
    """Inter-pod anti-affinity scheduling rules."""

    required_during_scheduling_ignored_during_execution: list[PodAffinityTerm] | None = tag(1, "omitempty")
    """Terms no candidate node may meet. Ignored once the pod runs."""
    preferred_during_scheduling_ignored_during_execution: list[WeightedPodAffinityTerm] | None = tag(
        2, "omitempty"
    )
    """Terms the scheduler prefers nodes not to meet, by weight."""


class Affinity(K8sModel):
    """A group of affinity scheduling rules."""

    node_affinity: NodeAffinity | None = tag(1, "*", "omitempty")
    """Node affinity scheduling rules for the pod."""
    pod_affinity: PodAffinity | None = tag(2, "*", "omitempty")
    """Rules to co-locate the pod with other pods."""
    pod_anti_affinity: PodAntiAffinity | None = tag(3, "*", "omitempty")
    """Rules to keep the pod away from other pods."""


class Toleration(K8sModel):
    """Lets the pod tolerate any taint that matches the triple <key,value,effect> under the
    operator."""

    key: str | None = tag(1, "omitempty")
    """Taint key the toleration applies to; empty with ``Exists`` matches all taints."""
    operator: Annotated[str, OneOf("Equal", "Exists")] | None = tag(2, "omitempty")
    """How the key relates to the value; defaults to ``Equal``."""
    value: str | None = tag(3, "omitempty")
    """Taint value the toleration matches; empty with ``Exists``."""
    effect: TaintEffect | None = tag(4, "omitempty")
    """Taint effect to match; empty matches all effects."""
    toleration_seconds: Int64 | None = tag(5, "*", "omitempty")
    """For ``NoExecute`` taints: how long the pod stays bound after the taint appears."""


class TopologySpreadConstraint(K8sModel):
    """How to spread matching pods among a topology."""

    required_fields = ("maxSkew", "topologyKey", "whenUnsatisfiable")

    max_skew: Int32 | None = tag(1)
    """How unevenly matching pods may be spread: the largest allowed difference between the
    count in a domain and the global minimum."""
    topology_key: str | None = tag(2)
    """Node label key whose values define the domains."""
    when_unsatisfiable: Annotated[str, OneOf("DoNotSchedule", "ScheduleAnyway")] | None = tag(3)
    """What to do with a pod that cannot satisfy the constraint."""
    label_selector: LabelSelector | None = tag(4, "*", "omitempty")
    """Finds the matching pods to count."""
    min_domains: Int32 | None = tag(5, "*", "omitempty")
    """Minimum number of eligible domains."""
    node_affinity_policy: str | None = tag(6, "*", "omitempty")
    """Whether the pod's node affinity counts when computing the skew: ``Honor`` or ``Ignore``."""
    node_taints_policy: str | None = tag(7, "*", "omitempty")
    """Whether node taints count when computing the skew: ``Honor`` or ``Ignore``."""
    match_label_keys: list[str] | None = tag(8, "omitempty")
    """Pod label keys whose values select the pods the spread is computed over."""


class PodDNSConfigOption(K8sModel):
    """A DNS resolver option of a pod."""

    name: str | None = tag(1, "omitempty")
    """Name of the option."""
    value: str | None = tag(2, "*", "omitempty")
    """Value of the option."""


class PodDNSConfig(K8sModel):
    """DNS parameters of a pod, merged with those the DNS policy generates."""

    nameservers: list[str] | None = tag(1, "omitempty")
    """DNS name server IP addresses."""
    searches: list[str] | None = tag(2, "omitempty")
    """DNS search domains for host-name lookup."""
    options: list[PodDNSConfigOption] | None = tag(3, "omitempty")
    """DNS resolver options."""


class HostAlias(K8sModel):
    """An entry for the pod's hosts file."""

    required_fields = ("ip",)

    ip: str | None = tag(1)
    """IP address of the host file entry."""
    hostnames: list[str] | None = tag(2, "omitempty")
    """Host names for the IP address."""


class PodReadinessGate(K8sModel):
    """A pod condition that must be true for the pod to be ready."""

    required_fields = ("conditionType",)

    condition_type: str | None = tag(1)
    """A condition type of the pod's condition list."""


class PodSchedulingGate(K8sModel):
    """A gate that keeps the pod from being scheduled while present."""

    required_fields = ("name",)

    name: str | None = tag(1)
    """Name of the scheduling gate; unique among the pod's gates."""


class PodOS(K8sModel):
    """The operating system the pod's containers run on."""

    required_fields = ("name",)

    name: str | None = tag(1)
    """``linux`` or ``windows``."""


class PodResourceClaim(K8sModel):
    """A dynamic resource claim the pod's containers may use."""

    required_fields = ("name",)

    name: str | None = tag(1)
    """Identifies the claim inside the pod; a DNS label."""
    resource_claim_name: str | None = tag(3, "*", "omitempty")
    """Name of an existing ResourceClaim in the pod's namespace."""
    resource_claim_template_name: str | None = tag(4, "*", "omitempty")
    """Name of a ResourceClaimTemplate to create a claim from for this pod."""
