"""JobController.sync against a FakeClient, hand-seeded caches and a FakeClock."""

from __future__ import annotations

from typing import Any

import pytest

from controllers.job.backoff import BackoffRecord
from controllers.job.indexes import COMPLETION_INDEX, format_intervals, parse_intervals
from minikube_py.api.errors import ApiError
from minikube_py.client.resourcetypes import JOBS, PODS
from tests.controllers.batch.harness import KEY, NS, JobHarness, job, tracked


async def test_a_job_runs_one_pod_to_completion_then_is_complete() -> None:
    h = JobHarness()
    h.seed(JOBS, job())
    await h.sync()
    (pod,) = h.pods()
    meta = pod["metadata"]
    assert meta["generateName"] == "pi-" and tracked(pod)
    assert meta["labels"]["batch.kubernetes.io/job-name"] == "pi"
    assert (meta["ownerReferences"][0]["kind"], meta["ownerReferences"][0]["controller"]) == ("Job", True)
    status = h.status()
    assert (status["active"], status["ready"], status["uncountedTerminatedPods"]) == (1, 0, {})
    assert status["startTime"]
    assert h.events("SuccessfulCreate") == [f"Normal SuccessfulCreate Created pod: {meta['name']}"]

    await h.finish(pod, "Succeeded")
    await h.sync()
    status = h.status()
    assert status["succeeded"] == 1 and "active" not in status
    kinds = [(c["type"], c["status"], c["reason"], c["message"]) for c in status["conditions"]]
    assert kinds == [
        ("SuccessCriteriaMet", "True", "CompletionsReached", "Reached expected number of succeeded pods"),
        ("Complete", "True", "CompletionsReached", "Reached expected number of succeeded pods"),
    ]
    assert status["completionTime"]
    assert not tracked(h.pods()[0])
    assert h.events("Completed") == ["Normal Completed Job completed"]


async def test_parallelism_and_completions_keep_at_most_parallelism_pods_running() -> None:
    h = JobHarness()
    h.seed(JOBS, job(completions=5, parallelism=2))
    running: list[int] = []
    for _ in range(10):
        await h.sync()
        active = [p for p in h.pods() if not p.get("status", {}).get("phase")]
        running.append(len(active))
        if h.condition("Complete"):
            break
        await h.finish(active[0], "Succeeded")
    assert max(running) == 2
    assert h.status()["succeeded"] == 5 and len(h.pods()) == 5
    assert h.condition("Complete") is not None


async def test_a_work_queue_job_completes_when_one_pod_succeeds_and_the_others_finish() -> None:
    h = JobHarness()
    h.seed(JOBS, job(completions=None, parallelism=3))
    await h.sync()
    pods = h.pods()
    assert len(pods) == 3
    await h.finish(pods[0], "Succeeded")
    await h.sync()
    assert h.condition("Complete") is None and len(h.pods()) == 3  # no replacements after a success
    for pod in pods[1:]:
        await h.finish(pod, "Succeeded")
    await h.sync()
    assert h.condition("Complete") is not None and h.status()["succeeded"] == 3


async def test_an_indexed_job_creates_each_index_once_with_annotation_label_env_and_hostname() -> None:
    h = JobHarness()
    h.seed(JOBS, job(completionMode="Indexed", completions=3, parallelism=2))
    await h.sync()
    pods = h.pods()
    assert sorted(p["metadata"]["generateName"] for p in pods) == ["pi-0-", "pi-1-"]
    for pod in pods:
        index = pod["metadata"]["annotations"][COMPLETION_INDEX]
        assert pod["metadata"]["labels"][COMPLETION_INDEX] == index
        assert pod["spec"]["hostname"] == f"pi-{index}"
        env = pod["spec"]["containers"][0]["env"]
        assert env == [
            {
                "name": "JOB_COMPLETION_INDEX",
                "valueFrom": {"fieldRef": {"fieldPath": f"metadata.annotations['{COMPLETION_INDEX}']"}},
            }
        ]
    first = next(p for p in pods if p["metadata"]["generateName"] == "pi-1-")
    await h.finish(first, "Succeeded")
    await h.sync()
    assert h.status()["completedIndexes"] == "1"
    names = sorted(p["metadata"]["generateName"] for p in h.pods())
    assert names == ["pi-0-", "pi-1-", "pi-2-"]  # the lowest pending index next
    for pod in h.pods():
        if pod["metadata"]["generateName"] != "pi-1-":
            await h.finish(pod, "Succeeded")
    await h.sync()
    assert h.status()["completedIndexes"] == "0-2" and h.status()["succeeded"] == 3
    assert h.condition("Complete") is not None


@pytest.mark.parametrize(
    ("indexes", "text"),
    [([], ""), ([0], "0"), ([0, 1, 2], "0-2"), ([1, 3, 4, 5, 7], "1,3-5,7"), ([5, 4, 4], "4-5")],
)
def test_completed_indexes_are_ordered_intervals(indexes: list[int], text: str) -> None:
    assert format_intervals(indexes) == text
    assert parse_intervals(text, 10) == set(indexes)


async def test_a_job_whose_pods_always_fail_stops_at_backoff_limit() -> None:
    """Bad input: pods that always fail. backoffLimit 1 allows one retry, after a 10 s backoff;
    then FailureTarget and Failed with BackoffLimitExceeded, and no third pod."""
    h = JobHarness()
    h.seed(JOBS, job(backoffLimit=1))
    await h.sync()
    await h.finish(h.pods()[0], "Failed", exit_code=1)
    await h.sync()
    assert len(h.pods()) == 1 and h.status()["failed"] == 1  # backing off
    assert not tracked(h.pods()[0])
    await h.clock.step(10)
    await h.sync()
    assert len(h.pods()) == 2
    second = next(p for p in h.pods() if not p.get("status", {}).get("phase"))
    await h.finish(second, "Failed", exit_code=1)
    await h.sync()
    await h.clock.step(60)
    await h.sync()
    assert len(h.pods()) == 2 and h.status()["failed"] == 2
    reasons = [(c["type"], c["reason"], c["message"]) for c in h.status()["conditions"]]
    message = "Job has reached the specified backoff limit"
    assert reasons == [
        ("FailureTarget", "BackoffLimitExceeded", message),
        ("Failed", "BackoffLimitExceeded", message),
    ]
    assert h.events("BackoffLimitExceeded") == [f"Warning BackoffLimitExceeded {message}"]
    assert "completionTime" not in h.status()


@pytest.mark.parametrize(
    ("failures", "delay"), [(0, 0.0), (1, 10.0), (2, 20.0), (3, 40.0), (6, 320.0), (7, 600.0), (20, 600.0)]
)
def test_pod_failure_backoff_doubles_from_10_seconds_to_its_cap(failures: int, delay: float) -> None:
    assert BackoffRecord(failures, 100.0).remaining(100.0) == delay
    assert BackoffRecord(failures, 100.0).remaining(100.0 + delay) == 0.0


def test_a_success_without_new_failures_resets_the_backoff() -> None:
    record = BackoffRecord(3, 5.0)
    assert record.next(0, 1, 9.0) == BackoffRecord()
    assert record.next(1, 1, 9.0) == BackoffRecord(4, 9.0)
    assert record.next(0, 0, 9.0) == record


async def test_on_failure_restarts_count_against_the_backoff_limit() -> None:
    h = JobHarness()
    h.seed(JOBS, job(backoffLimit=2, template=_template(restartPolicy="OnFailure")))
    await h.sync()
    pod = h.pods()[0]
    running = {"phase": "Running", "containerStatuses": [{"name": "pi", "restartCount": 2}]}
    await h.fake.resource(PODS, NS).update_status({**pod, "status": running})
    h.sync_caches()
    await h.sync()  # deletes the pod (it stays, terminating, with its finalizer)
    target = h.condition("FailureTarget")
    assert target is not None and target["reason"] == "BackoffLimitExceeded"
    assert h.fake.filter_actions("delete", "pods")


def _template(**spec: Any) -> dict[str, Any]:
    base = job()["spec"]["template"]
    base["spec"].update(spec)
    return base


async def test_active_deadline_deletes_pods_and_fails_the_job() -> None:
    h = JobHarness()
    h.seed(JOBS, job(activeDeadlineSeconds=30))
    await h.sync()
    await h.clock.step(30)
    await h.sync()
    assert h.condition("FailureTarget")["reason"] == "DeadlineExceeded"  # type: ignore[index]
    assert h.condition("Failed") is None  # its pod was terminating when the sync wrote status
    deletes = h.fake.filter_actions("delete", "pods")
    assert len(deletes) == 1
    # the deleted pod is counted failed and its finalizer removed (the fake then drops it)
    assert h.pods() == [] and h.status()["failed"] == 1
    await h.sync()
    failed = h.condition("Failed")
    assert failed is not None
    assert (failed["reason"], failed["message"]) == (
        "DeadlineExceeded",
        "Job was active longer than specified deadline",
    )
    assert h.events("DeadlineExceeded") == [
        "Warning DeadlineExceeded Job was active longer than specified deadline"
    ]


FAIL_ON_42 = {"rules": [{"action": "FailJob", "onExitCodes": {"operator": "In", "values": [42]}}]}
IGNORE_DISRUPTION = {"rules": [{"action": "Ignore", "onPodConditions": [{"type": "DisruptionTarget"}]}]}
COUNT_ON_1 = {"rules": [{"action": "Count", "onExitCodes": {"operator": "In", "values": [1]}}]}


async def test_pod_failure_policy_fail_job_on_an_exit_code() -> None:
    h = JobHarness()
    h.seed(JOBS, job(podFailurePolicy=FAIL_ON_42, podReplacementPolicy="Failed"))
    await h.sync()
    (pod,) = h.pods()
    await h.finish(pod, "Failed", exit_code=42)
    await h.sync()
    failed = h.condition("Failed")
    assert failed is not None and failed["reason"] == "PodFailurePolicy"
    name = pod["metadata"]["name"]
    assert (
        failed["message"]
        == f"Container pi for pod {NS}/{name} failed with exit code 42 matching FailJob rule at index 0"
    )
    assert h.status()["failed"] == 1 and len(h.pods()) == 1


@pytest.mark.parametrize(
    ("policy", "exit_code", "conditions", "failed"),
    [
        (IGNORE_DISRUPTION, 137, [{"type": "DisruptionTarget", "status": "True"}], 0),
        (IGNORE_DISRUPTION, 1, [{"type": "DisruptionTarget", "status": "False"}], 1),
        (COUNT_ON_1, 1, [], 1),
        (FAIL_ON_42, 1, [], 1),  # no rule matches: counted
    ],
)
async def test_pod_failure_policy_ignore_and_count(
    policy: dict[str, Any], exit_code: int, conditions: list[dict[str, str]], failed: int
) -> None:
    h = JobHarness()
    h.seed(JOBS, job(podFailurePolicy=policy, podReplacementPolicy="Failed", backoffLimit=3))
    await h.sync()
    await h.finish(h.pods()[0], "Failed", exit_code=exit_code, conditions=conditions)
    await h.sync()
    assert h.status().get("failed", 0) == failed
    assert h.condition("Failed") is None
    await h.clock.step(10)
    await h.sync()
    assert len(h.pods()) == 2  # replaced (Ignore does not even back off)


async def test_backoff_limit_per_index_and_fail_index_fail_only_that_index() -> None:
    h = JobHarness()
    policy = {"rules": [{"action": "FailIndex", "onExitCodes": {"operator": "In", "values": [3]}}]}
    h.seed(
        JOBS,
        job(
            completionMode="Indexed",
            completions=2,
            parallelism=2,
            backoffLimitPerIndex=1,
            podFailurePolicy=policy,
        ),
    )
    await h.sync()
    by_index = {p["metadata"]["annotations"][COMPLETION_INDEX]: p for p in h.pods()}
    assert by_index["0"]["metadata"]["annotations"]["batch.kubernetes.io/job-index-failure-count"] == "0"
    await h.finish(by_index["0"], "Failed", exit_code=3)
    await h.sync()
    assert h.status()["failedIndexes"] == "0"
    assert len(h.pods()) == 2  # index 0 is not retried
    await h.finish(by_index["1"], "Succeeded")
    await h.sync()
    await h.sync()
    failed = h.condition("Failed")
    assert failed is not None and (failed["reason"], failed["message"]) == (
        "FailedIndexes",
        "Job has failed indexes",
    )
    assert h.status()["completedIndexes"] == "1"


async def test_backoff_limit_per_index_retries_an_index_then_max_failed_indexes_fails_the_job() -> None:
    h = JobHarness()
    h.seed(
        JOBS,
        job(
            completionMode="Indexed", completions=3, parallelism=3, backoffLimitPerIndex=1, maxFailedIndexes=0
        ),
    )
    await h.sync()
    zero = next(p for p in h.pods() if p["metadata"]["annotations"][COMPLETION_INDEX] == "0")
    await h.finish(zero, "Failed", exit_code=1)
    await h.sync()
    retry = [
        p
        for p in h.pods()
        if p["metadata"]["generateName"] == "pi-0-" and p is not zero and not p.get("status")
    ]
    assert len(retry) == 1
    assert retry[0]["metadata"]["annotations"]["batch.kubernetes.io/job-index-failure-count"] == "1"
    await h.finish(retry[0], "Failed", exit_code=1)
    for _ in range(3):
        await h.sync()
    failed = h.condition("Failed")
    assert failed is not None and failed["reason"] == "MaxFailedIndexesExceeded"
    assert failed["message"] == "Job has exceeded the specified maximal number of failed indexes"


async def test_success_policy_completes_the_job_and_removes_lingering_pods() -> None:
    h = JobHarness()
    policy = {"rules": [{"succeededIndexes": "0", "succeededCount": 1}]}
    h.seed(JOBS, job(completionMode="Indexed", completions=3, parallelism=3, successPolicy=policy))
    await h.sync()
    zero = next(p for p in h.pods() if p["metadata"]["annotations"][COMPLETION_INDEX] == "0")
    await h.finish(zero, "Succeeded")
    await h.sync()
    met = h.condition("SuccessCriteriaMet")
    assert met is not None and (met["reason"], met["message"]) == (
        "SuccessPolicy",
        "Matched rules at index 0",
    )
    assert h.condition("Complete") is None  # two lingering pods were terminating
    assert len(h.fake.filter_actions("delete", "pods")) == 2
    await h.sync()
    complete = h.condition("Complete")
    assert complete is not None and complete["reason"] == "SuccessPolicy"
    assert h.status()["succeeded"] == 1 and "failed" not in h.status()  # lingering pods are not failures
    assert [p["metadata"]["name"] for p in h.pods()] == [zero["metadata"]["name"]]


async def test_suspend_deletes_pods_and_resume_resets_start_time() -> None:
    h = JobHarness()
    h.seed(JOBS, job(completions=2, parallelism=2))
    await h.sync()
    assert len(h.pods()) == 2
    suspended = h.stored(JOBS, "pi")
    suspended["spec"]["suspend"] = True
    await h.fake.resource(JOBS, NS).update(suspended)
    h.sync_caches()
    await h.sync()
    assert all(not tracked(p) for p in h.pods())  # removed before the delete: not counted failed
    assert h.pods() == [] or all(p["metadata"].get("deletionTimestamp") for p in h.pods())
    condition = h.condition("Suspended")
    assert condition is not None
    assert (condition["status"], condition["reason"], condition["message"]) == (
        "True",
        "JobSuspended",
        "Job suspended",
    )
    assert h.events("Suspended") == ["Normal Suspended Job suspended"]
    assert h.events("SuccessfulDelete")
    started = h.status()["startTime"]
    await h.clock.step(100)
    resumed = h.stored(JOBS, "pi")
    resumed["spec"]["suspend"] = False
    await h.fake.resource(JOBS, NS).update(resumed)
    h.sync_caches()
    await h.sync()
    condition = h.condition("Suspended")
    assert condition is not None
    assert (condition["status"], condition["reason"], condition["message"]) == (
        "False",
        "JobResumed",
        "Job resumed",
    )
    assert h.events("Resumed") == ["Normal Resumed Job resumed"]
    assert h.status()["startTime"] != started
    assert h.status().get("failed", 0) == 0


async def test_a_job_created_suspended_has_no_pods_and_no_start_time() -> None:
    h = JobHarness()
    h.seed(JOBS, job(suspend=True))
    await h.sync()
    assert h.pods() == [] and "startTime" not in h.status()
    assert h.condition("Suspended")["status"] == "True"  # type: ignore[index]


async def test_a_finished_pod_stays_uncounted_until_its_finalizer_is_removed() -> None:
    h = JobHarness()
    h.seed(JOBS, job())
    await h.sync()
    (pod,) = h.pods()
    await h.finish(pod, "Succeeded")
    h.fake.fail("patch", "pods", ApiError(500, "InternalError", "etcd is down"), times=1)
    with pytest.raises(ApiError):
        await h.controller.sync(KEY)
    h.sync_caches()
    status = h.status()
    assert status["uncountedTerminatedPods"] == {"succeeded": [pod["metadata"]["uid"]]}
    assert "succeeded" not in status and h.condition("Complete") is None
    await h.sync()
    status = h.status()
    assert status["uncountedTerminatedPods"] == {} and status["succeeded"] == 1
    assert h.condition("Complete") is not None


async def test_a_pod_whose_finalizer_removal_is_in_flight_is_not_counted_twice() -> None:
    h = JobHarness()
    h.seed(JOBS, job(completions=2))
    await h.sync()
    await h.finish(h.pods()[0], "Succeeded")
    stale = h.pods()[0]
    await h.controller.sync(KEY)  # finalizer removed; the pod cache still has it
    h.resync(JOBS)
    h.factory.informer(PODS).indexer.update(stale)
    await h.controller.sync(KEY)
    assert h.stored(JOBS, "pi")["status"]["succeeded"] == 1


async def test_an_orphaned_pod_with_the_tracking_finalizer_has_it_removed() -> None:
    h = JobHarness()
    h.seed(JOBS, job())
    await h.sync()
    (pod,) = h.pods()
    await h.fake.resource(JOBS, NS).delete("pi")
    h.sync_caches()
    h.controller._delete_job(job())
    key = f"orphan-pod:{NS}/{pod['metadata']['name']}"
    await h.controller.sync(key)
    assert not tracked(h.fake.stored(PODS, NS, pod["metadata"]["name"]) or {"metadata": {}})


async def test_failed_pod_creation_records_an_event_and_retries() -> None:
    h = JobHarness()
    h.seed(JOBS, job())
    h.fake.fail("create", "pods", ApiError(403, "Forbidden", "exceeded quota"), times=1)
    with pytest.raises(ApiError):
        await h.controller.sync(KEY)
    assert h.events("FailedCreate") == ["Warning FailedCreate Error creating: exceeded quota"]
    assert h.controller.expectations.satisfied_expectations(KEY)
    h.sync_caches()
    await h.sync()
    assert len(h.pods()) == 1


async def test_pod_events_observe_expectations_and_batch_syncs() -> None:
    h = JobHarness()
    jc = h.controller
    h.seed(JOBS, job(completions=2, parallelism=2))
    await jc.sync(KEY)
    assert not jc.expectations.satisfied_expectations(KEY)
    created = h.pods()
    for pod in created:
        jc._add_pod(pod)  # the informer reports our creations
    assert jc.expectations.satisfied_expectations(KEY) and len(jc.queue) == 1
    running = {**created[0], "metadata": {**created[0]["metadata"], "resourceVersion": "r2"}}
    running["status"] = {"phase": "Running"}
    jc._update_pod(created[0], running)
    assert jc.queue.waiting() == 1  # batched: synced within a second with other pod changes
    done = {**running, "metadata": {**running["metadata"], "resourceVersion": "r3", "finalizers": []}}
    done["status"] = {"phase": "Succeeded"}
    jc.finalizers.expect_removed(KEY, [created[0]["metadata"]["uid"]])
    jc._update_pod(running, done)
    assert jc.finalizers.expected(KEY) == set()  # the removal was seen
    assert jc.queue.waiting() == 1 and len(jc.queue) == 1  # a finished pod is synced at once


async def test_deleting_a_job_queues_its_tracked_pods_as_orphans() -> None:
    h = JobHarness()
    h.seed(JOBS, job())
    await h.sync()
    (pod,) = h.pods()
    h.controller._delete_job(job())
    keys = set()
    while len(h.controller.queue):
        item = await h.controller.queue.get()
        assert item is not None
        keys.add(item)
        h.controller.queue.done(item)
    assert keys == {KEY, f"orphan-pod:{NS}/{pod['metadata']['name']}"}
