"""Jobs as the CronJob controller sees them: the Job for a scheduled time (upstream's
``getJobFromTemplate2``), finished and succeeded Jobs (``jobutil``), the active list of the
status, and the oldest-first order of history cleanup (``byJobStartTime``)."""

from __future__ import annotations

import copy
from datetime import datetime, tzinfo
from typing import Any

from controllers.cronjob.times import format_rfc3339_in
from controllers.podcontrol.ownerrefs import get_controller_of, new_controller_ref
from minikube_py.api.timestamps import parse_rfc3339
from minikube_py.api.unstructured import Object

API_VERSION = "batch/v1"
KIND = "CronJob"
SCHEDULED_TIMESTAMP = "batch.kubernetes.io/cronjob-scheduled-timestamp"
FINISHED = ("Complete", "Failed")


def job_name(cronjob: Object, scheduled: datetime) -> str:
    """``<cronjob>-<scheduled time in minutes since the epoch>``: one name per scheduled time, so
    a Job is never created twice for it, whatever the controller forgot."""
    return f"{cronjob['metadata']['name']}-{int(scheduled.timestamp()) // 60}"


def job_from_template(cronjob: Object, scheduled: datetime, zone: tzinfo) -> Object:
    """The Job of ``scheduled``: the template's labels, annotations (plus the scheduled time in
    the CronJob's zone) and spec, owned by the CronJob."""
    meta, template = cronjob["metadata"], (cronjob.get("spec") or {}).get("jobTemplate") or {}
    template_meta = template.get("metadata") or {}
    annotations = dict(template_meta.get("annotations") or {})
    annotations[SCHEDULED_TIMESTAMP] = format_rfc3339_in(scheduled, zone)
    job_meta: dict[str, Any] = {
        "name": job_name(cronjob, scheduled),
        "namespace": meta.get("namespace", ""),
        "annotations": annotations,
        "ownerReferences": [new_controller_ref(cronjob, API_VERSION, KIND)],
    }
    if template_meta.get("labels"):
        job_meta["labels"] = dict(template_meta["labels"])
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": job_meta,
        "spec": copy.deepcopy(template.get("spec") or {}),
    }


def finished_condition(job: Object) -> str | None:
    """``Complete`` or ``Failed`` when that condition is true, else None (still running)."""
    for condition in (job.get("status") or {}).get("conditions") or []:
        if condition.get("type") in FINISHED and condition.get("status") == "True":
            return str(condition["type"])
    return None


def is_controlled_by(job: Object, cronjob: Object) -> bool:
    ref = get_controller_of(job)
    return ref is not None and ref.get("uid") == cronjob["metadata"].get("uid")


def job_reference(job: Object) -> dict[str, Any]:
    """``ref.GetReference`` of a Job, as the status' active list holds it."""
    meta = job["metadata"]
    return {
        "kind": "Job",
        "namespace": meta.get("namespace", ""),
        "name": meta["name"],
        "uid": meta.get("uid", ""),
        "apiVersion": API_VERSION,
        "resourceVersion": meta.get("resourceVersion", ""),
    }


def active(cronjob: Object) -> list[dict[str, Any]]:
    refs: list[dict[str, Any]] = (cronjob.get("status") or {}).get("active") or []
    return refs


def in_active_list(cronjob: Object, uid: str) -> bool:
    return any(ref.get("uid") == uid for ref in active(cronjob))


def in_active_list_by_name(cronjob: Object, namespace: str, name: str) -> bool:
    return any(ref.get("name") == name and ref.get("namespace") == namespace for ref in active(cronjob))


def delete_from_active_list(cronjob: Object, uid: str) -> None:
    """Drop the Job ``uid``; an emptied list is left out, as upstream's JSON omits it."""
    status = cronjob.setdefault("status", {})
    status["active"] = [ref for ref in active(cronjob) if ref.get("uid") != uid]
    if not status["active"]:
        del status["active"]


def oldest_first(jobs: list[Object]) -> list[Object]:
    """By ``status.startTime`` (Jobs never started last), then by name."""

    def key(job: Object) -> tuple[bool, float, str]:
        started = parse_rfc3339((job.get("status") or {}).get("startTime"))
        return (started is None, started or 0.0, job["metadata"]["name"])

    return sorted(jobs, key=key)
