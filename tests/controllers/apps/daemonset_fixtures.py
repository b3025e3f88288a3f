"""Builders for the DaemonSet controller's tests: nodes, DaemonSets and their pods."""

from __future__ import annotations

import copy
from typing import Any

from minikube_py.api.unstructured import Object
from tests.controllers.apps.harness import NS, PAST

LABELS = {"app": "ds"}


def node(
    name: str, *, labels: dict[str, str] | None = None, taints: list[dict[str, Any]] | None = None
) -> Object:
    obj: Object = {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {
            "name": name,
            "uid": f"uid-{name}",
            "labels": {"kubernetes.io/hostname": name, **(labels or {})},
        },
        "spec": {},
        "status": {"conditions": [{"type": "Ready", "status": "True"}]},
    }
    if taints:
        obj["spec"]["taints"] = taints
    return obj


def daemon_set(name: str = "ds", *, generation: int = 1, **spec: Any) -> Object:
    ds: Object = {
        "apiVersion": "apps/v1",
        "kind": "DaemonSet",
        "metadata": {
            "name": name,
            "namespace": NS,
            "uid": f"uid-{name}",
            "generation": generation,
            "creationTimestamp": PAST,
            "annotations": {"deprecated.daemonset.template.generation": str(generation)},
        },
        "spec": {
            "selector": {"matchLabels": dict(LABELS)},
            "template": {
                "metadata": {"labels": dict(LABELS)},
                "spec": {"containers": [{"name": "c", "image": "nginx:1"}]},
            },
            "updateStrategy": {
                "type": "RollingUpdate",
                "rollingUpdate": {"maxUnavailable": 1, "maxSurge": 0},
            },
            "revisionHistoryLimit": 10,
        },
    }
    ds["spec"].update(copy.deepcopy(spec))
    return ds


def daemon_pod(
    name: str,
    ds: Object | None,
    node_name: str,
    *,
    hash_: str = "",
    ready: bool = True,
    phase: str = "Running",
    created: str = PAST,
    bound: bool = True,
    ready_since: str = PAST,
) -> Object:
    labels = dict(LABELS)
    if hash_:
        labels["controller-revision-hash"] = hash_
    obj: Object = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "name": name,
            "namespace": NS,
            "uid": f"uid-{name}",
            "labels": labels,
            "creationTimestamp": created,
            "resourceVersion": "1",
        },
        "spec": {
            "containers": [{"name": "c", "image": "nginx:1"}],
            "affinity": {
                "nodeAffinity": {
                    "requiredDuringSchedulingIgnoredDuringExecution": {
                        "nodeSelectorTerms": [
                            {
                                "matchFields": [
                                    {"key": "metadata.name", "operator": "In", "values": [node_name]}
                                ]
                            }
                        ]
                    }
                }
            },
        },
        "status": {"phase": phase},
    }
    if bound:
        obj["spec"]["nodeName"] = node_name
    if ds is not None:
        obj["metadata"]["ownerReferences"] = [
            {
                "apiVersion": "apps/v1",
                "kind": "DaemonSet",
                "name": ds["metadata"]["name"],
                "uid": ds["metadata"]["uid"],
                "controller": True,
                "blockOwnerDeletion": True,
            }
        ]
    if ready:
        obj["status"]["conditions"] = [{"type": "Ready", "status": "True", "lastTransitionTime": ready_since}]
    return obj
