"""core/v1 placement of pods: affinity, tolerations, topology spread and scheduling gates."""

from __future__ import annotations

from typing import Annotated

from minikube_py.api.models.base import Int32, Int64, K8sModel, OneOf
from minikube_py.api.models.meta import LabelSelector

OPENAPI_PACKAGE = "io.k8s.api.core.v1"

TaintEffect = Annotated[str, OneOf("NoExecute", "NoSchedule", "PreferNoSchedule")]


class NodeSelectorRequirement(K8sModel):
    """A requirement on a node label or field: a key, an operator and values."""

    required_fields = ("key", "operator")

    key: str | None = None
    """The label key the selector applies to."""
    operator: Annotated[str, OneOf("DoesNotExist", "Exists", "Gt", "In", "Lt", "NotIn")] | None = None
    """The key's relationship to the values."""
    values: list[str] | None = None
    """Values to compare with. Non-empty for ``In``/``NotIn``, empty for ``Exists``/``DoesNotExist``,
    one integer for ``Gt``/``Lt``."""


class NodeSelectorTerm(K8sModel):
    """Requirements a node must all meet (ANDed). A null or empty term matches no node."""

    match_expressions: list[NodeSelectorRequirement] | None = None
    """Requirements on the node's labels."""
    match_fields: list[NodeSelectorRequirement] | None = None
    """Requirements on the node's fields."""


class NodeSelector(K8sModel):
    """Terms of which a node must match at least one (ORed)."""

    required_fields = ("nodeSelectorTerms",)

    node_selector_terms: list[NodeSelectorTerm] | None = None
    """The list of node selector terms."""


class PreferredSchedulingTerm(K8sModel):
    """A weighted node preference."""

    required_fields = ("weight", "preference")

    weight: Int32 | None = None
    """Weight of matching this term (1-100)."""
    preference: NodeSelectorTerm | None = None
    """The node selector term."""


class NodeAffinity(K8sModel):
    """Node affinity scheduling rules."""

    required_during_scheduling_ignored_during_execution: NodeSelector | None = None
    """Nodes the pod must be scheduled onto. Ignored once the pod runs."""
    preferred_during_scheduling_ignored_during_execution: list[PreferredSchedulingTerm] | None = None
    """Nodes the scheduler prefers, by the sum of the weights of the terms they match."""


class PodAffinityTerm(K8sModel):
    """Pods (selected by labels and namespaces) the pod should be co-located with, or not,
    within a topology domain."""

    required_fields = ("topologyKey",)

    label_selector: LabelSelector | None = None
    """A label query over pods; null matches no pod."""
    namespaces: list[str] | None = None
    """Namespaces the selector applies to; empty means the pod's own namespace."""
    topology_key: str | None = None
    """Node label whose value defines a topology domain (zone, host...)."""
    namespace_selector: LabelSelector | None = None
    """A label query over namespaces, added to ``namespaces``; empty selects every namespace."""
    match_label_keys: list[str] | None = None
    """Label keys whose values on the incoming pod are added to ``labelSelector`` (``In``)."""
    mismatch_label_keys: list[str] | None = None
    """Label keys whose values on the incoming pod are added to ``labelSelector`` (``NotIn``)."""


class WeightedPodAffinityTerm(K8sModel):
    """A weighted pod affinity term."""

    required_fields = ("weight", "podAffinityTerm")

    weight: Int32 | None = None
    """Weight of matching this term (1-100)."""
    pod_affinity_term: PodAffinityTerm | None = None
    """The pod affinity term."""


class PodAffinity(K8sModel):
    """Inter-pod affinity scheduling rules."""

    required_during_scheduling_ignored_during_execution: list[PodAffinityTerm] | None = None
    """Terms every candidate node must meet. Ignored once the pod runs."""
    preferred_during_scheduling_ignored_during_execution: list[WeightedPodAffinityTerm] | None = None
    """Terms the scheduler prefers nodes to meet, by weight."""


class PodAntiAffinity(K8sModel):
    """Inter-pod anti-affinity scheduling rules."""

    required_during_scheduling_ignored_during_execution: list[PodAffinityTerm] | None = None
    """Terms no candidate node may meet. Ignored once the pod runs."""
    preferred_during_scheduling_ignored_during_execution: list[WeightedPodAffinityTerm] | None = None
    """Terms the scheduler prefers nodes not to meet, by weight."""


class Affinity(K8sModel):
    """A group of affinity scheduling rules."""

    node_affinity: NodeAffinity | None = None
    """Node affinity scheduling rules for the pod."""
    pod_affinity: PodAffinity | None = None
    """Rules to co-locate the pod with other pods."""
    pod_anti_affinity: PodAntiAffinity | None = None
    """Rules to keep the pod away from other pods."""


class Toleration(K8sModel):
    """Lets the pod tolerate any taint that matches the triple <key,value,effect> under the
    operator."""

    key: str | None = None
    """Taint key the toleration applies to; empty with ``Exists`` matches all taints."""
    operator: Annotated[str, OneOf("Equal", "Exists")] | None = None
    """How the key relates to the value; defaults to ``Equal``."""
    value: str | None = None
    """Taint value the toleration matches; empty with ``Exists``."""
    effect: TaintEffect | None = None
    """Taint effect to match; empty matches all effects."""
    toleration_seconds: Int64 | None = None
    """For ``NoExecute`` taints: how long the pod stays bound after the taint appears."""


class TopologySpreadConstraint(K8sModel):
    """How to spread matching pods among a topology."""

    required_fields = ("maxSkew", "topologyKey", "whenUnsatisfiable")

    max_skew: Int32 | None = None
    """How unevenly matching pods may be spread: the largest allowed difference between the
    count in a domain and the global minimum."""
    topology_key: str | None = None
    """Node label key whose values define the domains."""
    when_unsatisfiable: Annotated[str, OneOf("DoNotSchedule", "ScheduleAnyway")] | None = None
    """What to do with a pod that cannot satisfy the constraint."""
    label_selector: LabelSelector | None = None
    """Finds the matching pods to count."""
    min_domains: Int32 | None = None
    """Minimum number of eligible domains."""
    node_affinity_policy: str | None = None
    """Whether the pod's node affinity counts when computing the skew: ``Honor`` or ``Ignore``."""
    node_taints_policy: str | None = None
    """Whether node taints count when computing the skew: ``Honor`` or ``Ignore``."""
    match_label_keys: list[str] | None = None
    """Pod label keys whose values select the pods the spread is computed over."""


class PodDNSConfigOption(K8sModel):
    """A DNS resolver option of a pod."""

    name: str | None = None
    """Name of the option."""
    value: str | None = None
    """Value of the option."""


class PodDNSConfig(K8sModel):
    """DNS parameters of a pod, merged with those the DNS policy generates."""

    nameservers: list[str] | None = None
    """DNS name server IP addresses."""
    searches: list[str] | None = None
    """DNS search domains for host-name lookup."""
    options: list[PodDNSConfigOption] | None = None
    """DNS resolver options."""


class HostAlias(K8sModel):
    """An entry for the pod's hosts file."""

    required_fields = ("ip",)

    ip: str | None = None
    """IP address of the host file entry."""
    hostnames: list[str] | None = None
    """Host names for the IP address."""


class PodReadinessGate(K8sModel):
    """A pod condition that must be true for the pod to be ready."""

    required_fields = ("conditionType",)

    condition_type: str | None = None
    """A condition type of the pod's condition list."""


class PodSchedulingGate(K8sModel):
    """A gate that keeps the pod from being scheduled while present."""

    required_fields = ("name",)

    name: str | None = None
    """Name of the scheduling gate; unique among the pod's gates."""


class PodOS(K8sModel):
    """The operating system the pod's containers run on."""

    required_fields = ("name",)

    name: str | None = None
    """``linux`` or ``windows``."""


class PodResourceClaim(K8sModel):
    """A dynamic resource claim the pod's containers may use."""

    required_fields = ("name",)

    name: str | None = None
    """Identifies the claim inside the pod; a DNS label."""
    resource_claim_name: str | None = None
    """Name of an existing ResourceClaim in the pod's namespace."""
    resource_claim_template_name: str | None = None
    """Name of a ResourceClaimTemplate to create a claim from for this pod."""
