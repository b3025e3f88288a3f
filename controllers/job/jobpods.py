"""What the Job controller asks of its pods: phases, the tracking finalizer, the pods a sync
creates (finalizer, completion index) and the patch that removes the finalizer."""

from __future__ import annotations

import copy
from collections.abc import Iterable, Mapping
from typing import Any

from controllers.job.indexes import (
    COMPLETION_INDEX,
    COMPLETION_INDEX_ENV,
    INDEX_FAILURE_COUNT,
    is_indexed,
)
from controllers.podcontrol.pods import is_pod_ready
from minikube_py.api.unstructured import Object

TRACKING_FINALIZER = "batch.kubernetes.io/job-tracking"
SUCCEEDED = "Succeeded"
FAILED = "Failed"
REMOVE_FINALIZER_PATCH = {"metadata": {"$deleteFromPrimitiveList/finalizers": [TRACKING_FINALIZER]}}


def phase(pod: Mapping[str, Any]) -> str:
    return str((pod.get("status") or {}).get("phase") or "")


def has_tracking_finalizer(pod: Mapping[str, Any]) -> bool:
    return TRACKING_FINALIZER in ((pod.get("metadata") or {}).get("finalizers") or [])


def is_terminating(pod: Mapping[str, Any]) -> bool:
    """Being deleted and not finished (upstream's ``CountTerminatingPods``)."""
    return bool(pod["metadata"].get("deletionTimestamp")) and phase(pod) not in (SUCCEEDED, FAILED)


def is_active(pod: Mapping[str, Any]) -> bool:
    return phase(pod) not in (SUCCEEDED, FAILED) and not pod["metadata"].get("deletionTimestamp")


def only_replace_failed(job: Mapping[str, Any]) -> bool:
    spec = job.get("spec") or {}
    return spec.get("podReplacementPolicy") == "Failed" or spec.get("podFailurePolicy") is not None


def is_pod_failed(pod: Mapping[str, Any], job: Mapping[str, Any]) -> bool:
    """Failed, or (unless only failed pods are replaced) deleted before it succeeded: an
    orphaned pod may never reach the Failed phase (upstream's ``isPodFailed``)."""
    if phase(pod) == FAILED:
        return True
    if only_replace_failed(job):
        return False
    return bool(pod["metadata"].get("deletionTimestamp")) and phase(pod) != SUCCEEDED


def count_ready(pods: Iterable[Object]) -> int:
    return sum(1 for p in pods if is_pod_ready(p))


def restart_count(pods: Iterable[Object]) -> int:
    """Container restarts of running or pending pods (``OnFailure`` Jobs retry in place)."""
    total = 0
    for pod in pods:
        if phase(pod) not in ("Running", "Pending"):
            continue
        status = pod.get("status") or {}
        for container in list(status.get("initContainerStatuses") or []) + list(
            status.get("containerStatuses") or []
        ):
            total += int(container.get("restartCount") or 0)
    return total


def pod_template(job: Object, index: int | None, failure_count: int = 0) -> dict[str, Any]:
    """The job's template with the tracking finalizer and, for an index, its annotation and
    label, the ``JOB_COMPLETION_INDEX`` variable read through the downward API, and the
    hostname ``<job>-<index>`` (upstream's ``manageJob``)."""
    template: dict[str, Any] = copy.deepcopy(job["spec"]["template"])
    meta = template.setdefault("metadata", {})
    finalizers = meta.setdefault("finalizers", [])
    if TRACKING_FINALIZER not in finalizers:
        finalizers.append(TRACKING_FINALIZER)
    if index is None or not is_indexed(job):
        return template
    annotations = meta.setdefault("annotations", {})
    annotations[COMPLETION_INDEX] = str(index)
    if (job["spec"].get("backoffLimitPerIndex")) is not None:
        annotations[INDEX_FAILURE_COUNT] = str(failure_count)
    meta.setdefault("labels", {})[COMPLETION_INDEX] = str(index)
    spec = template.setdefault("spec", {})
    spec.setdefault("hostname", f"{job['metadata']['name']}-{index}")
    env_var = {
        "name": COMPLETION_INDEX_ENV,
        "valueFrom": {"fieldRef": {"fieldPath": f"metadata.annotations['{COMPLETION_INDEX}']"}},
    }
    for key in ("initContainers", "containers"):
        for container in spec.get(key) or []:
            env = container.setdefault("env", [])
            if not any(e.get("name") == COMPLETION_INDEX_ENV for e in env):
                env.append(dict(env_var))
    return template


def generate_name(job: Object, index: int | None) -> str:
    name = job["metadata"]["name"]
    return f"{name}-{index}-" if index is not None and is_indexed(job) else f"{name}-"
