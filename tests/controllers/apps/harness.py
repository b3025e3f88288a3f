"""A FakeClient, an unstarted informer factory over it and a FakeClock, plus object builders."""

from __future__ import annotations

import copy
from typing import Any

from minikube_py.api.scheme import ResourceType
from minikube_py.api.unstructured import Object
from minikube_py.cache.factory import SharedInformerFactory
from minikube_py.client.resourcetypes import DEPLOYMENTS, PODS, REPLICASETS
from minikube_py.clock import FakeClock
from minikube_py.events import FakeRecorder
from minikube_py.testing.fakeclient import FakeClient

NS = "default"
PAST = "2020-01-01T00:00:00Z"


class Harness:
    """``resources``: what ``resync()`` without arguments brings up to date."""

    def __init__(
        self,
        clock: FakeClock | None = None,
        resources: tuple[ResourceType, ...] = (DEPLOYMENTS, REPLICASETS, PODS),
    ) -> None:
        self.clock = clock or FakeClock()
        self.fake = FakeClient()
        self.factory = SharedInformerFactory(self.fake, clock=self.clock)
        self.recorder = FakeRecorder()
        self.resources = resources

    def seed(self, rt: ResourceType, obj: Object) -> Object:
        """Store ``obj`` in the fake and the informer's cache alike."""
        stored = self.fake.seed(rt, obj)[0]
        self.factory.informer(rt).indexer.add(stored)
        return stored

    def resync(self, *rts: ResourceType) -> None:
        """Make the caches catch up with the fake (as a healthy watch would)."""
        for rt in rts or self.resources:
            self.factory.informer(rt).indexer.replace(self.fake.all(rt), str(self.fake.revision))

    def stored(self, rt: ResourceType, name: str) -> Object:
        obj = self.fake.stored(rt, NS, name)
        assert obj is not None, name
        return obj

    def bodies(self, verb: str, resource: str, subresource: str = "") -> list[Any]:
        return [a.body for a in self.fake.filter_actions(verb, resource) if a.subresource == subresource]


def time_at(clock: FakeClock, offset: float) -> str:
    from minikube_py.api.timestamps import format_rfc3339 as format_time

    return format_time(clock.now() + offset)


def replica_set(name: str, replicas: int, *, labels: dict[str, str] | None = None, **spec: Any) -> Object:
    labels = labels or {"app": "web"}
    return {
        "apiVersion": "apps/v1",
        "kind": "ReplicaSet",
        "metadata": {
            "name": name,
            "namespace": NS,
            "uid": f"uid-{name}",
            "creationTimestamp": PAST,
            "labels": dict(labels),
        },
        "spec": {
            "replicas": replicas,
            "selector": {"matchLabels": dict(labels)},
            "template": {
                "metadata": {"labels": dict(labels)},
                "spec": {"containers": [{"name": "c", "image": "nginx:1"}]},
            },
            **spec,
        },
    }


def owner_ref(owner: Object) -> dict[str, Any]:
    return {
        "apiVersion": owner["apiVersion"],
        "kind": owner["kind"],
        "name": owner["metadata"]["name"],
        "uid": owner["metadata"]["uid"],
        "controller": True,
        "blockOwnerDeletion": True,
    }


def pod(
    name: str,
    owner: Object | None,
    *,
    labels: dict[str, str] | None = None,
    phase: str = "Running",
    node: str = "n1",
    ready_since: str | None = None,
    created: str = PAST,
    restarts: int = 0,
) -> Object:
    obj: Object = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "name": name,
            "namespace": NS,
            "uid": f"uid-{name}",
            "labels": dict(labels or {"app": "web"}),
            "creationTimestamp": created,
        },
        "spec": {"nodeName": node, "containers": [{"name": "c", "image": "nginx:1"}]},
        "status": {"phase": phase, "containerStatuses": [{"name": "c", "restartCount": restarts}]},
    }
    if owner is not None:
        obj["metadata"]["ownerReferences"] = [owner_ref(owner)]
    if ready_since is not None:
        obj["status"]["conditions"] = [{"type": "Ready", "status": "True", "lastTransitionTime": ready_since}]
    if not node:
        del obj["spec"]["nodeName"]
    return obj


def deployment(name: str = "web", replicas: int = 3, **spec: Any) -> Object:
    d: Object = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name, "namespace": NS, "uid": f"uid-{name}", "generation": 1},
        "spec": {
            "replicas": replicas,
            "selector": {"matchLabels": {"app": name}},
            "template": {
                "metadata": {"labels": {"app": name}},
                "spec": {"containers": [{"name": "c", "image": "nginx:1"}]},
            },
            "strategy": {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": 1, "maxUnavailable": 0}},
            "revisionHistoryLimit": 10,
            "progressDeadlineSeconds": 600,
        },
    }
    d["spec"].update(copy.deepcopy(spec))
    return d
