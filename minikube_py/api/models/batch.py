"""batch/v1 Job and CronJob."""

from __future__ import annotations

from typing import Annotated

from minikube_py.api.models.base import Int32, Int64, K8sModel, OneOf, Time
from minikube_py.api.models.core_pod import PodTemplateSpec
from minikube_py.api.models.core_refs import ObjectReference
from minikube_py.api.models.meta import LabelSelector, ObjectMeta, TypeMeta
from minikube_py.api.models.tags import tag
from minikube_py.api.scheme import ALL_CATEGORY, STATUS, Served

OPENAPI_PACKAGE = "io.k8s.api.batch.v1"


class PodFailurePolicyOnExitCodesRequirement(K8sModel):
    """Matches failed pods by container exit codes."""

    required_fields = ("operator", "values")

    container_name: str | None = tag(1, "*", "omitempty")
    """Restricts the check to one container; empty checks every container."""
    operator: Annotated[str, OneOf("In", "NotIn")] | None = tag(2)
    """How the exit codes relate to ``values``."""
    values: list[Int32] | None = tag(3)
    """Exit codes to compare with; 0 is not allowed with ``In``."""


class PodFailurePolicyOnPodConditionsPattern(K8sModel):
    """Matches failed pods by a pod condition."""

    required_fields = ("type",)

    type: str | None = tag(1)
    """The pod condition type to match."""
    status: str | None = tag(2)
    """The required condition status. Defaults to ``True``."""


class PodFailurePolicyRule(K8sModel):
    """An action taken on a pod failure when its requirements are met."""

    required_fields = ("action",)

    action: Annotated[str, OneOf("Count", "FailIndex", "FailJob", "Ignore")] | None = tag(1)
    """What to do when the rule matches."""
    on_exit_codes: PodFailurePolicyOnExitCodesRequirement | None = tag(2, "*", "omitempty")
    """Requirement on the container exit codes."""
    on_pod_conditions: list[PodFailurePolicyOnPodConditionsPattern] | None = tag(3, "omitempty")
    """Requirement on the pod conditions; one match is enough."""


class PodFailurePolicy(K8sModel):
    """How failed pods count towards the backoff limit."""

    required_fields = ("rules",)

    rules: list[PodFailurePolicyRule] | None = tag(1)
    """Rules evaluated in order; the first match decides."""


class SuccessPolicyRule(K8sModel):
    """A condition under which an indexed job succeeds."""

    succeeded_indexes: str | None = tag(1, "*", "omitempty")
    """Indexes that must all succeed, as a list of intervals like ``1,3-5``."""
    succeeded_count: Int32 | None = tag(2, "*", "omitempty")
    """Minimum number of succeeded indexes."""


class SuccessPolicy(K8sModel):
    """When an indexed job can be declared succeeded."""

    required_fields = ("rules",)

    rules: list[SuccessPolicyRule] | None = tag(1)
    """Rules; the job succeeds as soon as one matches."""


class JobSpec(K8sModel):
    """What a job looks like."""

    required_fields = ("template",)

    parallelism: Int32 | None = tag(1, "*", "omitempty")
    """Maximum number of pods running at once. Defaults to 1."""
    completions: Int32 | None = tag(2, "*", "omitempty")
    """Number of successfully finished pods the job needs."""
    active_deadline_seconds: Int64 | None = tag(3, "*", "omitempty")
    """Seconds the job may be active before the system tries to terminate it."""
    pod_failure_policy: PodFailurePolicy | None = tag(11, "*", "omitempty")
    """How failed pods affect the job."""
    success_policy: SuccessPolicy | None = tag(16, "*", "omitempty")
    """When the job can be declared succeeded (indexed jobs)."""
    backoff_limit: Int32 | None = tag(7, "*", "omitempty")
    """Retries before the job is marked failed. Defaults to 6."""
    backoff_limit_per_index: Int32 | None = tag(12, "*", "omitempty")
    """Retries per index of an indexed job."""
    max_failed_indexes: Int32 | None = tag(13, "*", "omitempty")
    """Failed indexes allowed before the job is marked failed."""
    selector: LabelSelector | None = tag(4, "*", "omitempty")
    """Label query over the job's pods; generated unless ``manualSelector`` is set."""
    manual_selector: bool | None = tag(5, "*", "omitempty")
    """Lets the user choose the pod selector; almost never needed."""
    template: PodTemplateSpec | None = tag(6)
    """The pods the job runs. Only ``Never`` and ``OnFailure`` restart policies are allowed."""
    ttl_seconds_after_finished: Int32 | None = tag(8, "*", "omitempty")
    """Seconds after the job finishes before it is deleted automatically."""
    completion_mode: Annotated[str, OneOf("Indexed", "NonIndexed")] | None = tag(9, "*", "omitempty")
    """How completions are tracked. Defaults to ``NonIndexed``."""
    suspend: bool | None = tag(10, "*", "omitempty")
    """Whether the job controller should create pods. Defaults to false."""
    pod_replacement_policy: Annotated[str, OneOf("Failed", "TerminatingOrFailed")] | None = tag(
        14, "*", "omitempty"
    )
    """When replacement pods are created."""
    managed_by: str | None = tag(15, "*", "omitempty")
    """The controller that reconciles the job; empty means the built-in one."""


class JobCondition(K8sModel):
    """The state of a job at a point in time."""

    required_fields = ("type", "status")

    type: str | None = tag(1)
    """Type of the condition: ``Complete``, ``Failed``, ``Suspended``, ``FailureTarget``..."""
    status: str | None = tag(2)
    """``True``, ``False`` or ``Unknown``."""
    last_probe_time: Time | None = tag(3, "omitempty")
    """Last time the condition was checked."""
    last_transition_time: Time | None = tag(4, "omitempty")
    """Last time the condition changed from one status to another."""
    reason: str | None = tag(5, "omitempty")
    """Brief reason for the last transition."""
    message: str | None = tag(6, "omitempty")
    """Human-readable details of the last transition."""


class UncountedTerminatedPods(K8sModel):
    """Finished pods the job controller has not counted yet."""

    succeeded: list[str] | None = tag(1, "omitempty")
    """UIDs of succeeded pods."""
    failed: list[str] | None = tag(2, "omitempty")
    """UIDs of failed pods."""


class JobStatus(K8sModel):
    """The current state of a job."""

    conditions: list[JobCondition] | None = tag(1, "omitempty", merge_key="type")
    """The latest available observations of the job's state."""
    start_time: Time | None = tag(2, "*", "omitempty")
    """When the job controller started processing the job."""
    completion_time: Time | None = tag(3, "*", "omitempty")
    """When the job completed."""
    active: Int32 | None = tag(4, "omitempty")
    """Number of pending and running pods."""
    succeeded: Int32 | None = tag(5, "omitempty")
    """Number of pods that reached phase Succeeded."""
    failed: Int32 | None = tag(6, "omitempty")
    """Number of pods that reached phase Failed."""
    terminating: Int32 | None = tag(11, "*", "omitempty")
    """Number of terminating pods."""
    completed_indexes: str | None = tag(7, "omitempty")
    """Completed indexes of an indexed job, as intervals."""
    failed_indexes: str | None = tag(10, "*", "omitempty")
    """Failed indexes of an indexed job, as intervals."""
    uncounted_terminated_pods: UncountedTerminatedPods | None = tag(8, "*", "omitempty")
    """Finished pods not yet counted in the status."""
    ready: Int32 | None = tag(9, "*", "omitempty")
    """Number of active pods with a Ready condition."""


class Job(TypeMeta):
    """A single job: pods that run to completion."""

    kinds = (Served("batch", "v1", "jobs", True, categories=ALL_CATEGORY, subresources=(STATUS,)),)

    metadata: ObjectMeta | None = tag(1, "omitempty")
    """Standard object metadata."""
    spec: JobSpec | None = tag(2, "omitempty")
    """The desired behaviour of the job."""
    status: JobStatus | None = tag(3, "omitempty")
    """The current status of the job."""


class JobTemplateSpec(K8sModel):
    """The data a job is created from."""

    metadata: ObjectMeta | None = tag(1, "omitempty")
    """Standard object metadata of the jobs created from the template."""
    spec: JobSpec | None = tag(2, "omitempty")
    """The desired behaviour of the job."""


class CronJobSpec(K8sModel):
    """What a cron job looks like, including its schedule."""

    required_fields = ("schedule", "jobTemplate")

    schedule: str | None = tag(1)
    """The schedule, in cron format."""
    time_zone: str | None = tag(8, "*", "omitempty")
    """Time zone name for the schedule; defaults to the controller manager's."""
    starting_deadline_seconds: Int64 | None = tag(2, "*", "omitempty")
    """Deadline in seconds for starting a job that missed its time."""
    concurrency_policy: Annotated[str, OneOf("Allow", "Forbid", "Replace")] | None = tag(3, "omitempty")
    """How concurrent runs of a job are treated. Defaults to ``Allow``."""
    suspend: bool | None = tag(4, "*", "omitempty")
    """Suspends subsequent runs; running jobs are not affected. Defaults to false."""
    job_template: JobTemplateSpec | None = tag(5)
    """The job created at each run."""
    successful_jobs_history_limit: Int32 | None = tag(6, "*", "omitempty")
    """Number of successful finished jobs kept. Defaults to 3."""
    failed_jobs_history_limit: Int32 | None = tag(7, "*", "omitempty")
    """Number of failed finished jobs kept. Defaults to 1."""


class CronJobStatus(K8sModel):
    """The current state of a cron job."""

    active: list[ObjectReference] | None = tag(1, "omitempty")
    """Currently running jobs."""
    last_schedule_time: Time | None = tag(4, "*", "omitempty")
    """When a job was last scheduled."""
    last_successful_time: Time | None = tag(5, "*", "omitempty")
    """When a job last completed successfully."""


class CronJob(TypeMeta):
    """Runs a job on a schedule."""

    kinds = (
        Served("batch", "v1", "cronjobs", True, ("cj",), categories=ALL_CATEGORY, subresources=(STATUS,)),
    )

    metadata: ObjectMeta | None = tag(1, "omitempty")
    """Standard object metadata."""
    spec: CronJobSpec | None = tag(2, "omitempty")
    """The desired behaviour of the cron job, including the schedule."""
    status: CronJobStatus | None = tag(3, "omitempty")
    """The current status of the cron job."""
