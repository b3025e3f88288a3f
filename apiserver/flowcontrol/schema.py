"""The shapes of upstream's ``flowcontrol.apiserver.k8s.io/v1`` FlowSchema and
PriorityLevelConfiguration, reduced to what request handling reads. Only the built-in
configuration (``bootstrap.py``) exists: the API objects themselves are not served."""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from enum import Enum

ALL = "*"  # upstream's VerbAll, APIGroupAll, ResourceAll, NamespaceEvery, NameAll, NonResourceAll

_UID_NAMESPACE = uuid.UUID("6c1f5a8e-3b7d-4e0a-9c42-5d2f8b1e7a30")


def object_uid(kind: str, name: str) -> str:
    """A stable UID for a built-in object (upstream's are assigned when the apiserver first
    creates them, then kept)."""
    return str(uuid.uuid5(_UID_NAMESPACE, f"{kind}/{name}"))


class Distinguisher(Enum):
    """How a FlowSchema splits its requests into flows (None: one flow)."""

    BY_USER = "ByUser"
    BY_NAMESPACE = "ByNamespace"


@dataclass(frozen=True)
class Queuing:
    """``LimitResponse.Queuing``: ``queues`` queues, each flow dealt ``hand_size`` of them."""

    queues: int
    hand_size: int
    queue_length_limit: int


@dataclass(frozen=True)
class PriorityLevel:
    """A PriorityLevelConfiguration. ``exempt`` levels are never limited; a limited level
    gets ``shares`` of the server's concurrency and queues (``queuing``) or rejects (None)
    what exceeds it."""

    name: str
    shares: int
    exempt: bool = False
    queuing: Queuing | None = None
    uid: str = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "uid", object_uid("prioritylevelconfigurations", self.name))


@dataclass(frozen=True)
class Subject:
    """``kind`` is ``User``, ``Group`` or ``ServiceAccount`` (``namespace`` then matters)."""

    kind: str
    name: str
    namespace: str = ""


@dataclass(frozen=True)
class ResourceRule:
    verbs: tuple[str, ...]
    api_groups: tuple[str, ...]
    resources: tuple[str, ...]  # "pods", "nodes/status" (resource/subresource), or ALL
    namespaces: tuple[str, ...]
    cluster_scope: bool


@dataclass(frozen=True)
class NonResourceRule:
    verbs: tuple[str, ...]
    urls: tuple[str, ...]  # exact paths, "/prefix/*", or ALL


@dataclass(frozen=True)
class PolicyRules:
    """A request matches when a subject matches and a rule of its kind (resource or not) does."""

    subjects: tuple[Subject, ...]
    resource_rules: tuple[ResourceRule, ...] = ()
    non_resource_rules: tuple[NonResourceRule, ...] = ()


@dataclass(frozen=True)
class FlowSchema:
    """A FlowSchema: requests matching ``rules`` go to ``priority_level``; lower
    ``matching_precedence`` is tried first (ties by name)."""

    name: str
    priority_level: str
    matching_precedence: int
    distinguisher: Distinguisher | None
    rules: tuple[PolicyRules, ...]
    uid: str = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "uid", object_uid("flowschemas", self.name))
