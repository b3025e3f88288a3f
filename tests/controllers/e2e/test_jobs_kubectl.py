"""Jobs with real kubectl on ``up --nodes 2`` (real node agents: the ``python`` image runs the
host's python3): a Job completes and ``kubectl wait``/``logs`` see it, an Indexed Job runs each
index once, a failing Job stops at its backoff limit, and a finished Job with a TTL is deleted."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from tests.cluster import Cluster, eventually, kubectl, running_up
from tests.cluster import kubectl_json as get
from tests.cluster import kubectl_ok as ok

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    yield from running_up(tmp_path_factory.mktemp("jobs"), flags=["--nodes", "2"])


def create(cluster: Cluster, name: str, command: str, **spec: Any) -> None:
    job = {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": name},
        "spec": {
            "template": {
                "spec": {
                    "restartPolicy": "Never",
                    "automountServiceAccountToken": False,
                    "containers": [{"name": "main", "image": "python", "command": ["sh", "-c", command]}],
                }
            },
            **spec,
        },
    }
    ok(cluster, "create", "-f", "-", stdin=json.dumps(job))


def condition(cluster: Cluster, name: str, kind: str) -> dict[str, Any] | None:
    conditions = get(cluster, "job", name).get("status", {}).get("conditions") or []
    return next((c for c in conditions if c["type"] == kind and c["status"] == "True"), None)


def test_kubectl_create_job_completes_and_its_logs_are_readable(cluster: Cluster) -> None:
    ok(cluster, "create", "job", "pi", "--image=python", "--", "python3", "-c", "print(3.14)")
    waited = kubectl(cluster, "wait", "--for=condition=complete", "job/pi", "--timeout=50s")
    assert waited.returncode == 0, waited.stderr
    assert "job.batch/pi condition met" in waited.stdout
    assert ok(cluster, "logs", "job/pi").strip() == "3.14"
    status = get(cluster, "job", "pi")["status"]
    assert status["succeeded"] == 1 and status["completionTime"] and status["startTime"]
    (pod,) = get(cluster, "pods", "-l", "batch.kubernetes.io/job-name=pi")["items"]
    assert pod["metadata"].get("finalizers") in (None, [])  # tracking finalizer removed once counted
    row = ok(cluster, "get", "job", "pi", "--no-headers").split()
    assert row[1:3] == ["Complete", "1/1"]
    events = ok(cluster, "get", "events", "--field-selector", "involvedObject.name=pi")
    assert "SuccessfulCreate" in events and "Completed" in events
    described = ok(cluster, "describe", "job", "pi")
    assert "0 Active (0 Ready) / 1 Succeeded / 0 Failed" in described, described
    assert "Job completed" in described


def test_an_indexed_job_runs_each_index_exactly_once(cluster: Cluster) -> None:
    create(
        cluster,
        "indexed",
        "echo index=$JOB_COMPLETION_INDEX",
        completions=5,
        parallelism=2,
        completionMode="Indexed",
    )
    waited = kubectl(cluster, "wait", "--for=condition=complete", "job/indexed", "--timeout=90s")
    assert waited.returncode == 0, waited.stderr
    pods = get(cluster, "pods", "-l", "batch.kubernetes.io/job-name=indexed")["items"]
    assert len(pods) == 5
    outputs = sorted(ok(cluster, "logs", p["metadata"]["name"]).strip() for p in pods)
    assert outputs == [f"index={i}" for i in range(5)]
    for pod in pods:
        index = pod["metadata"]["annotations"]["batch.kubernetes.io/job-completion-index"]
        assert pod["metadata"]["name"].startswith(f"indexed-{index}-")
        assert pod["metadata"]["labels"]["batch.kubernetes.io/job-completion-index"] == index
    assert get(cluster, "job", "indexed")["status"]["completedIndexes"] == "0-4"


def test_a_job_whose_pods_always_fail_stops_at_its_backoff_limit(cluster: Cluster) -> None:
    create(cluster, "fails", "exit 3", backoffLimit=1)
    waited = kubectl(cluster, "wait", "--for=condition=failed", "job/fails", "--timeout=60s")
    assert waited.returncode == 0, waited.stderr
    failed = condition(cluster, "fails", "Failed")
    assert failed is not None and failed["reason"] == "BackoffLimitExceeded"
    assert failed["message"] == "Job has reached the specified backoff limit"
    assert get(cluster, "job", "fails")["status"]["failed"] == 2
    assert len(get(cluster, "pods", "-l", "batch.kubernetes.io/job-name=fails")["items"]) == 2
    events = ok(cluster, "get", "events", "--field-selector", "involvedObject.name=fails")
    assert "BackoffLimitExceeded" in events
    assert "Failed" in ok(cluster, "get", "job", "fails", "--no-headers")


def test_a_finished_job_with_a_ttl_is_deleted_with_its_pods(cluster: Cluster) -> None:
    create(cluster, "short-lived", "true", ttlSecondsAfterFinished=2)
    eventually(lambda: condition(cluster, "short-lived", "Complete"), "short-lived to complete", timeout=40)
    gone = kubectl(cluster, "wait", "--for=delete", "job/short-lived", "--timeout=40s")
    assert gone.returncode == 0, gone.stderr
    eventually(
        lambda: get(cluster, "pods", "-l", "batch.kubernetes.io/job-name=short-lived")["items"] == [],
        "short-lived's pods to be deleted",
    )
