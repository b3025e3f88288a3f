"""CronJobs: upstream's batch/v1 defaults (Allow, not suspended, 3 successful and 1 failed job
kept, the job template's pod defaults), ``pkg/apis/batch/validation``'s CronJob rules (the
schedule parsed by robfig/cron's grammar, with its messages; no ``TZ=`` in the schedule; a known
``timeZone``; names of at most 52 characters; the job template validated as a Job's spec whose
selector is generated) and the 1.32 ``kubectl get cronjobs`` row."""

from __future__ import annotations

import re
from typing import Any

from apiserver.registry.age import age
from apiserver.registry.resources.configmap import AGE_COLUMN
from apiserver.registry.resources.job import JOB_RESTART_POLICIES
from apiserver.registry.resources.podtemplatespec import (
    CONTAINERS_COLUMN,
    IMAGES_COLUMN,
    SELECTOR_COLUMN,
    container_cells,
    default_template,
    format_label_selector,
)
from apiserver.registry.resources.podvalidation import non_negative, to_causes, validate_template
from apiserver.registry.strategy import NAME_COLUMN, Column, Strategy
from minikube_py.api.errors import Cause
from minikube_py.api.field_errors import FieldError, invalid, not_supported, required
from minikube_py.api.models import batch
from minikube_py.api.timestamps import parse_rfc3339
from minikube_py.api.unstructured import Object
from minikube_py.cron import CronParseError, UnknownTimeZone, load_location, parse_standard
from minikube_py.cron.zones import UTC

COLUMNS: list[Column] = [
    NAME_COLUMN,
    ("Schedule", "string", "", "The schedule in Cron format, see https://en.wikipedia.org/wiki/Cron.", 0),
    ("Timezone", "string", "", "The time zone name for the given schedule.", 0),
    ("Suspend", "boolean", "", "This flag tells the controller to suspend subsequent executions.", 0),
    ("Active", "integer", "", "A list of pointers to currently running jobs.", 0),
    (
        "Last Schedule",
        "string",
        "",
        "Information when was the last time the job was successfully scheduled.",
        0,
    ),
    AGE_COLUMN,
    CONTAINERS_COLUMN,
    IMAGES_COLUMN,
    SELECTOR_COLUMN,
]
CONCURRENCY_POLICIES = ("Allow", "Forbid", "Replace")
# the controller appends "-<minutes since the epoch>" (11 characters) to make a Job's name,
# which may not pass 63 characters
MAX_NAME_LENGTH = 52
# IANA's naming rules for one component of a zone name (digits and "+" tolerated for old names)
_ZONE_PART = re.compile(r"[A-Za-z.\-_0-9+]{1,14}")
_COUNTS = ("parallelism", "completions", "backoffLimit", "activeDeadlineSeconds")


def default_cronjob(obj: Object) -> None:
    """``SetDefaults_CronJob`` (batch/v1), and the pod defaults of the job template's template."""
    spec = obj.setdefault("spec", {})
    if not spec.get("concurrencyPolicy"):
        spec["concurrencyPolicy"] = "Allow"
    spec.setdefault("suspend", False)
    spec.setdefault("successfulJobsHistoryLimit", 3)
    spec.setdefault("failedJobsHistoryLimit", 1)
    job_spec = _job_spec(spec)
    if job_spec is not None:
        default_template(job_spec)


def _job_spec(spec: Object) -> Object | None:
    template = spec.get("jobTemplate")
    job_spec = template.get("spec") if isinstance(template, dict) else None
    return job_spec if isinstance(job_spec, dict) else None


def validate_cronjob_spec(spec: Object, old_spec: Object | None) -> list[FieldError]:
    """``validateCronJobSpec``: schedule, deadlines, time zone, policy, job template, history limits."""
    errs: list[FieldError] = []
    schedule = spec.get("schedule")
    if not schedule:
        errs.append(required("spec.schedule"))
    else:
        old_had_tz = old_spec is not None and "TZ" in str(old_spec.get("schedule") or "")
        errs += validate_schedule(str(schedule), old_had_tz, spec.get("timeZone"))
    errs += non_negative(spec, "startingDeadlineSeconds", "spec")
    if old_spec is None or old_spec.get("timeZone") != spec.get("timeZone"):
        errs += validate_time_zone(spec.get("timeZone"))
    policy = spec.get("concurrencyPolicy")
    if not policy:
        errs.append(required("spec.concurrencyPolicy"))
    elif policy not in CONCURRENCY_POLICIES:
        errs.append(not_supported("spec.concurrencyPolicy", policy, CONCURRENCY_POLICIES))
    errs += validate_job_template(spec.get("jobTemplate"), "spec.jobTemplate")
    for key in ("successfulJobsHistoryLimit", "failedJobsHistoryLimit"):
        errs += non_negative(spec, key, "spec")  # zero is a valid limit
    return errs


def validate_schedule(schedule: str, allow_tz: bool, time_zone: Any) -> list[FieldError]:
    """robfig's parse error as the detail; ``TZ=`` only where the old object had it already."""
    errs: list[FieldError] = []
    try:
        parse_standard(schedule, UTC)
    except CronParseError as exc:
        errs.append(invalid("spec.schedule", schedule, str(exc)))
    if allow_tz and "TZ" in schedule and time_zone is not None:
        detail = "cannot use both timeZone field and TZ or CRON_TZ in schedule"
        errs.append(invalid("spec.schedule", schedule, detail))
    elif not allow_tz and "TZ" in schedule:
        detail = "cannot use TZ or CRON_TZ in schedule, use timeZone field instead"
        errs.append(invalid("spec.schedule", schedule, detail))
    return errs


def validate_time_zone(zone: Any) -> list[FieldError]:
    """``validateTimeZone``: unset, or an explicit IANA name the zone database knows."""
    if zone is None:
        return []
    name = str(zone)
    if not name:
        return [invalid("spec.timeZone", name, "timeZone must be nil or non-empty string")]
    for part in name.split("/"):
        if part in (".", "..") or part.startswith("-") or not _ZONE_PART.fullmatch(part):
            return [invalid("spec.timeZone", name, f"unknown time zone {name}")]
    errs: list[FieldError] = []
    if name.lower() == "local":
        detail = "timeZone must be an explicit time zone as defined in https://www.iana.org/time-zones"
        errs.append(invalid("spec.timeZone", name, detail))
    try:
        load_location(name)
    except UnknownTimeZone as exc:
        errs.append(invalid("spec.timeZone", name, str(exc)))
    return errs


def validate_job_template(template: Any, path: str) -> list[FieldError]:
    """``ValidateJobTemplateSpec``: a Job's spec rules, with no selector (it is generated)."""
    if not isinstance(template, dict):
        return [required(path)]
    spec = template.get("spec") or {}
    errs: list[FieldError] = []
    for key in _COUNTS:
        errs += non_negative(spec, key, f"{path}.spec")
    errs += validate_template(spec.get("template"), {}, f"{path}.spec.template", ())
    restart = ((spec.get("template") or {}).get("spec") or {}).get("restartPolicy")
    if restart not in JOB_RESTART_POLICIES:
        detail = 'valid values: "OnFailure", "Never"'
        errs.append(required(f"{path}.spec.template.spec.restartPolicy", detail))
    if spec.get("selector") is not None:
        errs.append(invalid(f"{path}.spec.selector", spec["selector"], "`selector` will be auto-generated"))
    if spec.get("manualSelector") is True:
        errs.append(not_supported(f"{path}.spec.manualSelector", True, ("nil", "false")))
    return errs


def _bool_cell(value: Any) -> str:
    """``printBoolPtr``: ``<unset>`` for nil."""
    return "<unset>" if value is None else str(bool(value)).lower()


class CronJobStrategy(Strategy):
    kinds = (batch.CronJob,)
    status_field = "status"
    spec_field = "spec"
    columns = COLUMNS

    def default(self, obj: Object) -> None:
        default_cronjob(obj)

    def validate(self, obj: Object) -> list[Cause]:
        errs = validate_cronjob_spec(obj.get("spec") or {}, None)
        name = str(obj["metadata"].get("name") or "")
        if len(name) > MAX_NAME_LENGTH:
            errs.append(invalid("metadata.name", name, f"must be no more than {MAX_NAME_LENGTH} characters"))
        return to_causes(errs)

    def validate_update(self, new: Object, old: Object) -> list[Cause]:
        # no name length check: older, longer names stay updatable (as upstream)
        return to_causes(validate_cronjob_spec(new.get("spec") or {}, old.get("spec") or {}))

    def table_cells(self, obj: Object, now: float) -> list[Any]:
        meta, spec, status = obj["metadata"], obj.get("spec") or {}, obj.get("status") or {}
        last = parse_rfc3339(status.get("lastScheduleTime"))
        job_spec = _job_spec(spec) or {}
        return [
            meta["name"],
            spec.get("schedule", ""),
            spec.get("timeZone") if spec.get("timeZone") is not None else "<none>",
            _bool_cell(spec.get("suspend")),
            len(status.get("active") or []),
            "<none>" if last is None else age(status.get("lastScheduleTime"), now),
            age(meta.get("creationTimestamp"), now),
            *container_cells((job_spec.get("template") or {}).get("spec") or {}),
            format_label_selector(job_spec.get("selector")),
        ]
