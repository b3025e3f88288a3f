"""Jobs: upstream's batch/v1 defaults, the generated ``controller-uid`` selector and template
labels, validation and the 1.32 ``kubectl get jobs`` row (Status, Completions, Duration)."""

from __future__ import annotations

from typing import Any

from apiserver.registry.age import age, since
from apiserver.registry.deletion import ORPHAN_DEPENDENTS
from apiserver.registry.resources.configmap import AGE_COLUMN
from apiserver.registry.resources.podtemplatespec import (
    CONTAINERS_COLUMN,
    IMAGES_COLUMN,
    SELECTOR_COLUMN,
    container_cells,
    default_template,
    format_label_selector,
    template_spec,
)
from apiserver.registry.resources.podvalidation import (
    non_negative,
    to_causes,
    validate_selector_unchanged,
    validate_template,
)
from apiserver.registry.strategy import NAME_COLUMN, Column, Strategy
from minikube_py.api.errors import Cause
from minikube_py.api.field_errors import OMIT_VALUE, FieldError, invalid, required
from minikube_py.api.models import batch
from minikube_py.api.timestamps import parse_rfc3339 as parse_time
from minikube_py.api.unstructured import Object

COLUMNS: list[Column] = [
    NAME_COLUMN,
    ("Status", "string", "", "Status of the job.", 0),
    ("Completions", "string", "", "The number of pods which reached phase Succeeded.", 0),
    ("Duration", "string", "", "Time required to complete the job.", 0),
    AGE_COLUMN,
    CONTAINERS_COLUMN,
    IMAGES_COLUMN,
    SELECTOR_COLUMN,
]
CONTROLLER_UID = "batch.kubernetes.io/controller-uid"
NAME_LABELS = ("job-name", "batch.kubernetes.io/job-name")
UID_LABELS = ("controller-uid", CONTROLLER_UID)
JOB_RESTART_POLICIES = ("OnFailure", "Never")
# the first true condition among these decides the Status cell (Terminating comes before Suspended)
_STATUS_CONDITIONS = ("Complete", "Failed", "Terminating", "Suspended", "FailureTarget")


def default_job(obj: Object) -> None:
    """``SetDefaults_Job`` (batch/v1) and the template's pod defaults."""
    spec = obj.setdefault("spec", {})
    if spec.get("completions") is None and spec.get("parallelism") is None:
        spec["completions"] = 1
    spec.setdefault("parallelism", 1)
    spec.setdefault("backoffLimit", 2147483647 if spec.get("backoffLimitPerIndex") is not None else 6)
    template_labels = ((spec.get("template") or {}).get("metadata") or {}).get("labels")
    meta = obj.setdefault("metadata", {})
    if template_labels and not meta.get("labels"):
        meta["labels"] = dict(template_labels)
    spec.setdefault("completionMode", "NonIndexed")
    spec.setdefault("suspend", False)
    spec.setdefault("manualSelector", False)
    failed_only = spec.get("podFailurePolicy") is not None
    spec.setdefault("podReplacementPolicy", "Failed" if failed_only else "TerminatingOrFailed")
    default_template(spec)


def generate_selector(obj: Object) -> None:
    """Unless ``manualSelector``: label the template with the job's name and uid, and select the uid."""
    meta, spec = obj["metadata"], obj["spec"]
    if spec.get("manualSelector"):
        return
    template = spec.setdefault("template", {})
    labels = template.setdefault("metadata", {}).setdefault("labels", {})
    for key in NAME_LABELS:
        labels.setdefault(key, meta.get("name", ""))
    for key in UID_LABELS:
        labels.setdefault(key, meta.get("uid", ""))
    selector = spec.get("selector")
    if not isinstance(selector, dict):
        selector = spec["selector"] = {}
    selector.setdefault("matchLabels", {}).setdefault(CONTROLLER_UID, meta.get("uid", ""))


def validate_job(obj: Object) -> list[FieldError]:
    """Counts, selector and template; the template's restart policy is ``OnFailure`` or ``Never``."""
    spec = obj.get("spec") or {}
    errs: list[FieldError] = []
    for key in ("parallelism", "completions", "backoffLimit", "activeDeadlineSeconds"):
        errs += non_negative(spec, key, "spec")
    if spec.get("selector") is None:
        errs.append(required("spec.selector"))
    errs += validate_template(spec.get("template"), spec.get("selector"), "spec.template", ())
    restart = template_spec(obj).get("restartPolicy")
    if restart not in JOB_RESTART_POLICIES:
        detail = 'valid values: "OnFailure", "Never"'
        errs.append(required("spec.template.spec.restartPolicy", detail))
    return errs


STATUS_COUNTS = ("active", "succeeded", "failed", "ready", "terminating")


def validate_job_status(obj: Object) -> list[FieldError]:
    """Part of upstream's ``ValidateJobStatusUpdate``: counts of at least 0, and never both
    ``Complete`` and ``Failed`` true."""
    status = obj.get("status") or {}
    if not isinstance(status, dict):
        return []
    errs: list[FieldError] = []
    for key in STATUS_COUNTS:
        errs += non_negative(status, key, "status")
    conditions = status.get("conditions")
    conditions = conditions if isinstance(conditions, list) else []
    true = {c.get("type") for c in conditions if isinstance(c, dict) and c.get("status") == "True"}
    if {"Complete", "Failed"} <= true:
        errs.append(
            invalid("status.conditions", OMIT_VALUE, "cannot set Complete=True and Failed=true conditions")
        )
    return errs


def job_status(obj: Object) -> str:
    """Complete, Failed, Terminating, Suspended, FailureTarget or Running."""
    conditions = (obj.get("status") or {}).get("conditions") or []
    true = {c.get("type") for c in conditions if c.get("status") == "True"}
    if obj["metadata"].get("deletionTimestamp"):
        true.add("Terminating")
    return next((kind for kind in _STATUS_CONDITIONS if kind in true), "Running")


def completions(obj: Object) -> str:
    """``succeeded/completions``, or ``succeeded/1 of parallelism`` for a work queue."""
    spec, succeeded = obj.get("spec") or {}, (obj.get("status") or {}).get("succeeded", 0)
    if spec.get("completions") is not None:
        return f"{succeeded}/{spec['completions']}"
    parallelism = int(spec.get("parallelism") or 0)
    return f"{succeeded}/1 of {parallelism}" if parallelism > 1 else f"{succeeded}/1"


def duration(obj: Object, now: float) -> str:
    """From the start to completion, or to now while running; empty before it starts."""
    status = obj.get("status") or {}
    start = parse_time(status.get("startTime"))
    if start is None:
        return ""
    end = parse_time(status.get("completionTime"))
    return since(start, now if end is None else end)


class JobStrategy(Strategy):
    kinds = (batch.Job,)
    gc_policy = ORPHAN_DEPENDENTS  # batch/v1 keeps its pre-GC default
    status_field = "status"
    spec_field = "spec"
    columns = COLUMNS

    def default(self, obj: Object) -> None:
        default_job(obj)

    def prepare_for_create(self, obj: Object) -> None:
        super().prepare_for_create(obj)
        generate_selector(obj)

    def validate(self, obj: Object) -> list[Cause]:
        return to_causes(validate_job(obj))

    def validate_update(self, new: Object, old: Object) -> list[Cause]:
        return to_causes(validate_job(new) + validate_selector_unchanged(new, old) + validate_job_status(new))

    def selectable_fields(self, obj: Object) -> dict[str, str]:
        succeeded = (obj.get("status") or {}).get("succeeded", 0)
        return {**super().selectable_fields(obj), "status.successful": str(succeeded)}

    def table_cells(self, obj: Object, now: float) -> list[Any]:
        meta = obj["metadata"]
        return [
            meta["name"],
            job_status(obj),
            completions(obj),
            duration(obj, now),
            age(meta.get("creationTimestamp"), now),
            *container_cells(template_spec(obj)),
            format_label_selector((obj.get("spec") or {}).get("selector")),
        ]
