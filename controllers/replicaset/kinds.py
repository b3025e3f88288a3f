"""``ReplicatedKind``: what the one replica-keeping implementation needs to know of the kind it
keeps replicas of. Upstream runs its ReplicaSet controller's code on ReplicationControllers by
converting them to ReplicaSets (``pkg/controller/replication``'s conversion adapters); here the
controller reads the few kind-specific facts from this record instead, so ``ReplicaSet`` and
``ReplicationController`` are two instances of ``ReplicaSetController``."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from minikube_py.api.labels import Selector, label_selector_as_selector
from minikube_py.api.scheme import ResourceType
from minikube_py.api.unstructured import Object
from minikube_py.client.resourcetypes import REPLICASETS


@dataclass(frozen=True, slots=True)
class ReplicatedKind:
    """``name`` names the controller's queue and log lines; ``api_version`` and ``kind`` go
    into the owner references of its pods (and are the only owners it resolves);
    ``resource_type`` is where the objects and their ``/status`` are; ``selector`` turns an
    object's ``spec.selector`` into a label selector (raising ``SelectorError`` when it is not
    one)."""

    name: str
    api_version: str
    kind: str
    resource_type: ResourceType
    selector: Callable[[Object], Selector]


def label_selector_of(obj: Object) -> Selector:
    """An apps/v1 ``LabelSelector`` (``matchLabels``, ``matchExpressions``)."""
    return label_selector_as_selector((obj.get("spec") or {}).get("selector"))


REPLICA_SET = ReplicatedKind("replicaset", "apps/v1", "ReplicaSet", REPLICASETS, label_selector_of)
