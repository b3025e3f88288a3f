"""How many pods a budget expects when it counts in percentages (upstream's ``getExpectedScale``
and its controller finders): the sum of the scales of the controllers of its pods, each found
by the pod's controller reference (a ReplicationController, a Deployment through its
ReplicaSet, a ReplicaSet no Deployment controls, a StatefulSet), with ``spec.replicas`` as the
scale. An owner of a kind that has no ``scale`` subresource is an error, as upstream's."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from controllers.podcontrol.ownerrefs import get_controller_of
from minikube_py.api.unstructured import Object
from minikube_py.cache.store import Indexer
from minikube_py.client.resourcetypes import resource_type_for_kind

#: (kind, the groups that serve it) of the controllers found from listers, in upstream's order
REPLICATION_CONTROLLER = ("ReplicationController", ("",))
REPLICA_SET = ("ReplicaSet", ("apps", "extensions"))
DEPLOYMENT = ("Deployment", ("apps", "extensions"))
STATEFUL_SET = ("StatefulSet", ("apps",))


class NoControllers(Exception):
    """A pod of the budget has a controller reference no finder resolves."""


@dataclass(frozen=True, slots=True)
class Scale:
    uid: str
    replicas: int


Ref = Mapping[str, Any]
Finder = Callable[[Ref, str], Scale | None]


def _group(ref: Ref) -> str:
    group, _, _version = str(ref.get("apiVersion", "")).rpartition("/")
    return group


def _is(ref: Ref, expected: tuple[str, tuple[str, ...]]) -> bool:
    kind, groups = expected
    return ref.get("kind") == kind and _group(ref) in groups


def _replicas(obj: Object) -> int:
    replicas = (obj.get("spec") or {}).get("replicas")
    return replicas if isinstance(replicas, int) else 1


class ControllerFinders:
    """The finders over the informers' indexers (``replication_controllers`` None: that kind
    is not served)."""

    def __init__(
        self,
        replica_sets: Indexer,
        deployments: Indexer,
        stateful_sets: Indexer,
        replication_controllers: Indexer | None = None,
    ) -> None:
        self.replica_sets = replica_sets
        self.deployments = deployments
        self.stateful_sets = stateful_sets
        self.replication_controllers = replication_controllers

    def finders(self) -> list[Finder]:
        return [self._rc, self._deployment, self._replica_set, self._stateful_set, self._scale]

    def _owned(self, indexer: Indexer | None, ref: Ref, namespace: str) -> Object | None:
        obj = indexer.get_by_key(f"{namespace}/{ref.get('name')}") if indexer is not None else None
        return obj if obj is not None and obj["metadata"].get("uid") == ref.get("uid") else None

    def _rc(self, ref: Ref, namespace: str) -> Scale | None:
        rc = (
            self._owned(self.replication_controllers, ref, namespace)
            if _is(ref, REPLICATION_CONTROLLER)
            else None
        )
        return Scale(rc["metadata"]["uid"], _replicas(rc)) if rc is not None else None

    def _deployment(self, ref: Ref, namespace: str) -> Scale | None:
        rs = self._owned(self.replica_sets, ref, namespace) if _is(ref, REPLICA_SET) else None
        owner = get_controller_of(rs) if rs is not None else None
        if owner is None or not _is(owner, DEPLOYMENT):
            return None
        deployment = self._owned(self.deployments, owner, namespace)
        return Scale(deployment["metadata"]["uid"], _replicas(deployment)) if deployment is not None else None

    def _replica_set(self, ref: Ref, namespace: str) -> Scale | None:
        rs = self._owned(self.replica_sets, ref, namespace) if _is(ref, REPLICA_SET) else None
        if rs is None:
            return None
        owner = get_controller_of(rs)
        if owner is not None and owner.get("kind") == DEPLOYMENT[0]:
            return None  # counted as its Deployment
        return Scale(rs["metadata"]["uid"], _replicas(rs))

    def _stateful_set(self, ref: Ref, namespace: str) -> Scale | None:
        sts = self._owned(self.stateful_sets, ref, namespace) if _is(ref, STATEFUL_SET) else None
        return Scale(sts["metadata"]["uid"], _replicas(sts)) if sts is not None else None

    def _scale(self, ref: Ref, namespace: str) -> Scale | None:
        """Upstream's ``getScaleController``: any other owner must serve ``scale``."""
        api_version, kind = str(ref.get("apiVersion") or ""), str(ref.get("kind") or "")
        if not api_version:
            raise ValueError(f"controllerRef {namespace}/{ref.get('name')} has empty APIVersion")
        rt = resource_type_for_kind(api_version, kind)
        if rt is None:
            raise ValueError(f'no matches for kind "{kind}" in version "{api_version}"')
        if not any(s.name == "scale" for s in rt.subresources):
            resource = f"{rt.resource}.{rt.group}" if rt.group else rt.resource
            raise ValueError(f"{resource} does not implement the scale subresource")
        return None  # a scalable kind this controller reads no lister of: not found


def expected_scale(finders: list[Finder], pods: Iterable[Object]) -> tuple[int, list[str]]:
    """The sum of the scales of the pods' controllers, and the names of unmanaged pods; raises
    ``NoControllers`` for a pod whose controller no finder resolves."""
    scales: dict[str, int] = {}
    unmanaged: list[str] = []
    for pod in pods:
        ref = get_controller_of(pod)
        if ref is None:
            unmanaged.append(pod["metadata"]["name"])
            continue
        if ref.get("uid") in scales:
            continue
        namespace = pod["metadata"].get("namespace", "")
        found = next((s for finder in finders if (s := finder(ref, namespace)) is not None), None)
        if found is None:
            raise NoControllers(f'found no controllers for pod "{pod["metadata"]["name"]}"')
        scales[found.uid] = found.replicas
    return sum(scales.values()), unmanaged
