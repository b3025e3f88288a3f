"""Builders for the StatefulSet controller's tests (on top of ``harness``)."""

from __future__ import annotations

import copy
from typing import Any

from controllers.statefulset.revisiondata import Revisions, patch_of
from minikube_py.api.unstructured import Object
from tests.controllers.apps.harness import NS, PAST, owner_ref

SERVICE = "nginx"


def stateful_set(name: str = "web", replicas: int = 3, **spec: Any) -> Object:
    sts: Object = {
        "apiVersion": "apps/v1",
        "kind": "StatefulSet",
        "metadata": {
            "name": name,
            "namespace": NS,
            "uid": f"uid-{name}",
            "generation": 1,
            "creationTimestamp": PAST,
        },
        "spec": {
            "replicas": replicas,
            "serviceName": SERVICE,
            "selector": {"matchLabels": {"app": name}},
            "template": {
                "metadata": {"labels": {"app": name}},
                "spec": {"containers": [{"name": "nginx", "image": "nginx:1"}]},
            },
            "podManagementPolicy": "OrderedReady",
            "updateStrategy": {"type": "RollingUpdate", "rollingUpdate": {"partition": 0}},
            "revisionHistoryLimit": 10,
            "persistentVolumeClaimRetentionPolicy": {"whenDeleted": "Retain", "whenScaled": "Retain"},
        },
    }
    sts["spec"].update(copy.deepcopy(spec))
    return sts


def with_image(sts: Object, image: str) -> Object:
    changed = copy.deepcopy(sts)
    changed["spec"]["template"]["spec"]["containers"][0]["image"] = image
    return changed


def revision(sts: Object, number: int, name: str | None = None) -> Object:
    """A ControllerRevision of ``sts``'s current template (named ``<set>-r<number>``)."""
    set_name = sts["metadata"]["name"]
    return {
        "apiVersion": "apps/v1",
        "kind": "ControllerRevision",
        "metadata": {
            "name": name or f"{set_name}-r{number}",
            "namespace": NS,
            "uid": f"uid-{set_name}-r{number}",
            "labels": {"app": set_name, "controller-revision-hash": f"r{number}"},
            "ownerReferences": [owner_ref(sts)],
        },
        "data": patch_of(sts),
        "revision": number,
    }


def revisions(current: Object, update: Object | None = None) -> Revisions:
    return Revisions(current, update or current, 0)


def member(
    sts: Object,
    ordinal: int,
    rev: Object,
    *,
    phase: str = "Running",
    ready: bool = True,
    ready_since: str = PAST,
    deleting: bool = False,
) -> Object:
    """Member ``ordinal`` as the apiserver would hold it once created (owned, identity set)."""
    name = f"{sts['metadata']['name']}-{ordinal}"
    labels = {
        **sts["spec"]["template"]["metadata"]["labels"],
        "statefulset.kubernetes.io/pod-name": name,
        "apps.kubernetes.io/pod-index": str(ordinal),
        "controller-revision-hash": rev["metadata"]["name"],
    }
    pod: Object = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "name": name,
            "namespace": NS,
            "uid": f"uid-{name}",
            "labels": labels,
            "ownerReferences": [owner_ref(sts)],
            "creationTimestamp": PAST,
            "resourceVersion": "1",
        },
        "spec": {
            "hostname": name,
            "subdomain": sts["spec"].get("serviceName"),
            "containers": copy.deepcopy(sts["spec"]["template"]["spec"]["containers"]),
            "volumes": [
                {
                    "name": t["metadata"]["name"],
                    "persistentVolumeClaim": {"claimName": f"{t['metadata']['name']}-{name}"},
                }
                for t in sts["spec"].get("volumeClaimTemplates") or []
            ],
        },
        "status": {"phase": phase},
    }
    if ready:
        pod["status"]["conditions"] = [{"type": "Ready", "status": "True", "lastTransitionTime": ready_since}]
    if deleting:
        pod["metadata"]["deletionTimestamp"] = PAST
    return pod


def claim_template(name: str = "www") -> Object:
    return {
        "metadata": {"name": name},
        "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}},
    }


def claim(sts: Object, template: str, ordinal: int, owners: list[Object] | None = None) -> Object:
    name = f"{template}-{sts['metadata']['name']}-{ordinal}"
    obj: Object = {
        "apiVersion": "v1",
        "kind": "PersistentVolumeClaim",
        "metadata": {
            "name": name,
            "namespace": NS,
            "uid": f"uid-{name}",
            "labels": {"app": sts["metadata"]["name"]},
        },
        "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}},
    }
    if owners:
        obj["metadata"]["ownerReferences"] = [
            {
                "apiVersion": o["apiVersion"],
                "kind": o["kind"],
                "name": o["metadata"]["name"],
                "uid": o["metadata"]["uid"],
            }
            for o in owners
        ]
    return obj
