"""Deployment, ReplicaSet, DaemonSet, StatefulSet and Job strategies."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from apiserver.registry.resources.daemonset import DaemonSetStrategy
from apiserver.registry.resources.deployment import DeploymentStrategy
from apiserver.registry.resources.job import JobStrategy
from apiserver.registry.resources.replicaset import ReplicaSetStrategy
from apiserver.registry.resources.statefulset import StatefulSetStrategy
from apiserver.registry.strategy import Strategy
from tests.registry.helpers import NOW, ago, causes, meta, prepared_for_create, prepared_for_update

CONTAINERS = [{"name": "web", "image": "nginx:1.25"}, {"name": "log", "image": "busybox"}]


def workload(selector: Any = None, labels: Any = None, **spec: Any) -> dict[str, Any]:
    template: dict[str, Any] = {"spec": {"containers": copy.deepcopy(CONTAINERS)}}
    if labels is not None:
        template["metadata"] = {"labels": labels}
    body: dict[str, Any] = {"template": template, **spec}
    if selector is not None:
        body["selector"] = selector
    return {"metadata": meta("web"), "spec": body}


APP = {"matchLabels": {"app": "web"}}


def created(strategy: Strategy, obj: dict[str, Any]) -> dict[str, Any]:
    prepared_for_create(strategy, obj)
    return obj


# Deployment

DEPLOYMENT = DeploymentStrategy()


def test_deployment_defaults() -> None:
    spec = created(DEPLOYMENT, workload(APP, {"app": "web"}))["spec"]
    assert spec["replicas"] == 1
    assert spec["strategy"] == {
        "type": "RollingUpdate",
        "rollingUpdate": {"maxUnavailable": "25%", "maxSurge": "25%"},
    }
    assert spec["revisionHistoryLimit"] == 10
    assert spec["progressDeadlineSeconds"] == 600
    pod_spec = spec["template"]["spec"]
    assert pod_spec["restartPolicy"] == "Always" and pod_spec["schedulerName"] == "default-scheduler"
    assert pod_spec["containers"][1]["imagePullPolicy"] == "Always"
    assert "enableServiceLinks" not in pod_spec  # a Pod-only default


def test_deployment_recreate_gets_no_rolling_update() -> None:
    spec = created(DEPLOYMENT, workload(APP, {"app": "web"}, strategy={"type": "Recreate"}))["spec"]
    assert spec["strategy"] == {"type": "Recreate"}


MISMATCH = 'Invalid value: {"app":"other"}: `selector` does not match template `labels`'


@pytest.mark.parametrize(
    ("obj", "expected"),
    [
        (workload(APP, {"app": "web"}), []),
        (
            workload(APP, {"app": "other"}),
            [("FieldValueInvalid", "spec.template.metadata.labels", MISMATCH)],
        ),
        (
            workload(None, {"app": "web"}),
            [
                ("FieldValueRequired", "spec.selector", "Required value"),
                (
                    "FieldValueInvalid",
                    "spec.template.metadata.labels",
                    'Invalid value: {"app":"web"}: `selector` does not match template `labels`',
                ),
            ],
        ),
        (
            workload({}, {"app": "web"}),
            [
                (
                    "FieldValueInvalid",
                    "spec.selector",
                    "Invalid value: {}: empty selector is invalid for deployment",
                )
            ],
        ),
        (
            workload(APP, {"app": "web"}, replicas=-1),
            [("FieldValueInvalid", "spec.replicas", "Invalid value: -1: must be greater than or equal to 0")],
        ),
        (
            workload(APP, {"app": "web"}, strategy={"rollingUpdate": {"maxSurge": 0, "maxUnavailable": 0}}),
            [
                (
                    "FieldValueInvalid",
                    "spec.strategy.rollingUpdate.maxUnavailable",
                    "Invalid value: 0: may not be 0 when `maxSurge` is 0",
                )
            ],
        ),
        (
            workload(APP, {"app": "web"}, strategy={"type": "Recreate", "rollingUpdate": {}}),
            [
                (
                    "FieldValueForbidden",
                    "spec.strategy.rollingUpdate",
                    "Forbidden: may not be specified when strategy `type` is 'Recreate'",
                )
            ],
        ),
        (
            workload(APP, {"app": "web"}, minReadySeconds=600),
            [
                (
                    "FieldValueInvalid",
                    "spec.progressDeadlineSeconds",
                    "Invalid value: 600: must be greater than minReadySeconds",
                )
            ],
        ),
    ],
)
def test_deployment_validation(obj: dict[str, Any], expected: list[tuple[str, str, str]]) -> None:
    assert causes(DEPLOYMENT.validate(created(DEPLOYMENT, obj))) == expected


def test_deployment_template_is_validated_like_a_pod() -> None:
    obj = created(DEPLOYMENT, workload(APP, {"app": "web"}))
    obj["spec"]["template"]["spec"]["containers"][0]["image"] = ""
    obj["spec"]["template"]["spec"]["restartPolicy"] = "Never"
    assert causes(DEPLOYMENT.validate(obj)) == [
        ("FieldValueRequired", "spec.template.spec.containers[0].image", "Required value"),
        (
            "FieldValueNotSupported",
            "spec.template.spec.restartPolicy",
            'Unsupported value: "Never": supported values: "Always"',
        ),
    ]


def test_deployment_selector_is_immutable() -> None:
    old = created(DEPLOYMENT, workload(APP, {"app": "web", "tier": "fe"}))
    new = copy.deepcopy(old)
    new["spec"]["selector"] = {"matchLabels": {"tier": "fe"}}
    assert causes(DEPLOYMENT.validate_update(new, old)) == [
        (
            "FieldValueInvalid",
            "spec.selector",
            'Invalid value: {"matchLabels":{"tier":"fe"}}: field is immutable',
        )
    ]


def test_deployment_update_keeps_status_and_defaults() -> None:
    old = created(DEPLOYMENT, workload(APP, {"app": "web"}))
    old["status"] = {"replicas": 1}
    new = workload(APP, {"app": "web"}, replicas=3)
    prepared_for_update(DEPLOYMENT, new, old)
    assert new["status"] == {"replicas": 1} and new["spec"]["progressDeadlineSeconds"] == 600


def test_deployment_row() -> None:
    obj = created(DEPLOYMENT, workload(APP, {"app": "web"}, replicas=3))
    obj["status"] = {"readyReplicas": 2, "updatedReplicas": 3, "availableReplicas": 2}
    assert DEPLOYMENT.table_cells(obj, NOW) == [
        "web",
        "2/3",
        3,
        2,
        "60m",
        "web,log",
        "nginx:1.25,busybox",
        "app=web",
    ]


def test_deployment_row_with_expression_selector_and_no_status() -> None:
    selector = {"matchExpressions": [{"key": "tier", "operator": "In", "values": ["fe", "be"]}]}
    obj = created(DEPLOYMENT, workload(selector, {"tier": "fe"}))
    assert DEPLOYMENT.table_cells(obj, NOW)[1:4] == ["0/1", 0, 0]
    assert DEPLOYMENT.table_cells(obj, NOW)[-1] == "tier in (be,fe)"


# ReplicaSet

REPLICASET = ReplicaSetStrategy()


def test_replicaset_defaults_validation_fields_and_row() -> None:
    obj = created(REPLICASET, workload(APP, {"app": "web"}))
    assert obj["spec"]["replicas"] == 1
    assert REPLICASET.validate(obj) == []
    obj["status"] = {"replicas": 1, "readyReplicas": 1}
    assert REPLICASET.selectable_fields(obj)["status.replicas"] == "1"
    assert REPLICASET.table_cells(obj, NOW) == [
        "web",
        1,
        1,
        1,
        "60m",
        "web,log",
        "nginx:1.25,busybox",
        "app=web",
    ]


def test_replicaset_empty_selector_message_is_upstreams() -> None:
    obj = created(REPLICASET, workload({}, {"app": "web"}))
    assert (
        causes(REPLICASET.validate(obj))[0][2]
        == "Invalid value: {}: empty selector is invalid for deployment"
    )


def test_replicaset_without_selector_prints_none() -> None:
    obj = created(REPLICASET, workload(None, {"app": "web"}))
    assert REPLICASET.table_cells(obj, NOW)[-1] == "<none>"


# DaemonSet

DAEMONSET = DaemonSetStrategy()


def test_daemonset_defaults_and_row() -> None:
    obj = created(DAEMONSET, workload(APP, {"app": "web"}))
    assert obj["spec"]["updateStrategy"] == {
        "type": "RollingUpdate",
        "rollingUpdate": {"maxUnavailable": 1, "maxSurge": 0},
    }
    assert obj["spec"]["revisionHistoryLimit"] == 10
    assert DAEMONSET.validate(obj) == []
    obj["spec"]["template"]["spec"]["nodeSelector"] = {"kubernetes.io/os": "linux"}
    obj["status"] = {"desiredNumberScheduled": 3, "currentNumberScheduled": 3, "numberReady": 2}
    assert DAEMONSET.table_cells(obj, NOW) == [
        "web",
        3,
        3,
        2,
        0,
        0,
        "kubernetes.io/os=linux",
        "60m",
        "web,log",
        "nginx:1.25,busybox",
        "app=web",
    ]


def test_daemonset_empty_selector() -> None:
    obj = created(DAEMONSET, workload({}, {"app": "web"}))
    assert (
        causes(DAEMONSET.validate(obj))[0][2] == "Invalid value: {}: empty selector is invalid for daemonset"
    )


def test_daemonset_template_generation_is_the_servers() -> None:
    """Upstream's internal ``spec.templateGeneration`` (the apps/v1 annotation): 1 on create,
    kept on an update that leaves the template alone, raised by a template change, and never
    what the client sent."""
    key = "deprecated.daemonset.template.generation"
    old = created(DAEMONSET, workload(APP, {"app": "web"}))
    assert old["metadata"]["annotations"] == {key: "1"}
    same = copy.deepcopy(old)
    same["spec"]["minReadySeconds"] = 5
    same["metadata"]["annotations"][key] = "7"
    prepared_for_update(DAEMONSET, same, old)
    assert same["metadata"]["annotations"][key] == "1"
    changed = copy.deepcopy(old)
    changed["spec"]["template"]["spec"]["containers"][0]["image"] = "nginx:1.26"
    prepared_for_update(DAEMONSET, changed, old)
    assert changed["metadata"]["annotations"][key] == "2"


# StatefulSet

STATEFULSET = StatefulSetStrategy()


def test_statefulset_defaults_and_row() -> None:
    obj = created(STATEFULSET, workload(APP, {"app": "web"}, replicas=3, serviceName="web"))
    spec = obj["spec"]
    assert spec["podManagementPolicy"] == "OrderedReady"
    assert spec["updateStrategy"] == {"type": "RollingUpdate", "rollingUpdate": {"partition": 0}}
    assert spec["persistentVolumeClaimRetentionPolicy"] == {"whenDeleted": "Retain", "whenScaled": "Retain"}
    assert spec["revisionHistoryLimit"] == 10
    obj["status"] = {"readyReplicas": 2}
    assert STATEFULSET.table_cells(obj, NOW) == ["web", "2/3", "60m", "web,log", "nginx:1.25,busybox"]


def test_statefulset_only_some_fields_may_change() -> None:
    old = created(STATEFULSET, workload(APP, {"app": "web"}, serviceName="web"))
    scaled = copy.deepcopy(old)
    scaled["spec"]["replicas"] = 5
    assert STATEFULSET.validate_update(scaled, old) == []
    renamed = copy.deepcopy(old)
    renamed["spec"]["serviceName"] = "other"
    [(reason, field, message)] = causes(STATEFULSET.validate_update(renamed, old))
    assert (reason, field) == ("FieldValueForbidden", "spec")
    assert message.startswith("Forbidden: updates to statefulset spec for fields other than 'replicas'")


# Job

JOB = JobStrategy()


def job(selector: Any = None, **spec: Any) -> dict[str, Any]:
    obj = workload(selector, {"app": "pi"}, **spec)
    obj["spec"]["template"]["spec"]["restartPolicy"] = "Never"
    return obj


def test_job_defaults_and_generated_selector() -> None:
    obj = created(JOB, job())
    spec = obj["spec"]
    assert {k: spec[k] for k in ("completions", "parallelism", "backoffLimit", "completionMode")} == {
        "completions": 1,
        "parallelism": 1,
        "backoffLimit": 6,
        "completionMode": "NonIndexed",
    }
    assert (spec["suspend"], spec["manualSelector"], spec["podReplacementPolicy"]) == (
        False,
        False,
        "TerminatingOrFailed",
    )
    assert spec["selector"] == {"matchLabels": {"batch.kubernetes.io/controller-uid": "u-1"}}
    assert spec["template"]["metadata"]["labels"] == {
        "app": "pi",
        "job-name": "web",
        "batch.kubernetes.io/job-name": "web",
        "controller-uid": "u-1",
        "batch.kubernetes.io/controller-uid": "u-1",
    }
    assert obj["metadata"]["labels"] == {"app": "pi"}
    assert JOB.validate(obj) == []


def test_job_with_parallelism_only_has_no_completions() -> None:
    spec = created(JOB, job(parallelism=3))["spec"]
    assert "completions" not in spec and spec["parallelism"] == 3


def test_job_restart_policy_must_be_on_failure_or_never() -> None:
    obj = job()
    del obj["spec"]["template"]["spec"]["restartPolicy"]  # defaults to Always
    assert causes(JOB.validate(created(JOB, obj))) == [
        (
            "FieldValueRequired",
            "spec.template.spec.restartPolicy",
            'Required value: valid values: "OnFailure", "Never"',
        )
    ]


def test_job_with_manual_selector_must_match() -> None:
    obj = created(JOB, job({"matchLabels": {"app": "other"}}, manualSelector=True))
    assert [c[1] for c in causes(JOB.validate(obj))] == ["spec.template.metadata.labels"]


@pytest.mark.parametrize(
    ("spec", "status", "deleted", "cells"),
    [
        ({}, {}, False, ["Running", "0/1", ""]),
        ({}, {"startTime": ago(minutes=3), "active": 1}, False, ["Running", "0/1", "3m"]),
        (
            {},
            {
                "startTime": ago(minutes=10),
                "completionTime": ago(minutes=9, seconds=15),
                "succeeded": 1,
                "conditions": [{"type": "Complete", "status": "True"}],
            },
            False,
            ["Complete", "1/1", "45s"],
        ),
        ({}, {"conditions": [{"type": "Failed", "status": "True"}]}, True, ["Failed", "0/1", ""]),
        ({}, {"conditions": [{"type": "Suspended", "status": "True"}]}, True, ["Terminating", "0/1", ""]),
        ({}, {"conditions": [{"type": "Suspended", "status": "True"}]}, False, ["Suspended", "0/1", ""]),
        (
            {},
            {"conditions": [{"type": "FailureTarget", "status": "True"}]},
            False,
            ["FailureTarget", "0/1", ""],
        ),
        ({}, {"conditions": [{"type": "Complete", "status": "False"}]}, False, ["Running", "0/1", ""]),
        ({"parallelism": 3}, {"succeeded": 2}, False, ["Running", "2/1 of 3", ""]),
        ({"completions": 5, "parallelism": 2}, {"succeeded": 2}, False, ["Running", "2/5", ""]),
    ],
)
def test_job_row(spec: dict[str, Any], status: dict[str, Any], deleted: bool, cells: list[str]) -> None:
    obj = created(JOB, job(**spec))
    obj["status"] = status
    if deleted:
        obj["metadata"]["deletionTimestamp"] = ago(seconds=1)
    row = JOB.table_cells(obj, NOW)
    assert row[1:4] == cells
    assert row[4:7] == ["60m", "web,log", "nginx:1.25,busybox"]
    assert row[7] == "batch.kubernetes.io/controller-uid=u-1"


def test_job_selectable_fields() -> None:
    obj = created(JOB, job())
    obj["status"] = {"succeeded": 2}
    assert JOB.selectable_fields(obj)["status.successful"] == "2"


@pytest.mark.parametrize(
    ("expression", "expected"),
    [
        (
            {"key": "app", "operator": "Bogus"},
            (
                "FieldValueInvalid",
                "spec.selector.matchExpressions[0].operator",
                "not a valid selector operator",
            ),
        ),
        (
            {"key": "app", "operator": "In", "values": []},
            ("FieldValueRequired", "spec.selector.matchExpressions[0].values", "must be specified when"),
        ),
        (
            {"key": "app", "operator": "Exists", "values": ["x"]},
            ("FieldValueForbidden", "spec.selector.matchExpressions[0].values", "may not be specified when"),
        ),
        (
            {"key": "-bad-", "operator": "Exists"},
            ("FieldValueInvalid", "spec.selector.matchExpressions[0].key", "name part must consist of"),
        ),
    ],
)
def test_selector_expressions_are_validated_as_upstream(
    expression: dict[str, Any], expected: tuple[str, str, str]
) -> None:
    """Regression: upstream's ValidateLabelSelector names the bad expression part before the
    generic ``invalid label selector``."""
    selector = {"matchLabels": {"app": "web"}, "matchExpressions": [expression]}
    obj = created(DeploymentStrategy(), workload(selector, {"app": "web"}))
    found = DeploymentStrategy().validate(obj)
    reason, field, message = expected
    assert (found[0].reason, found[0].field) == (reason, field)
    assert message in found[0].message


@pytest.mark.parametrize(
    ("status", "expected"),
    [
        ({"succeeded": 1, "active": 0}, []),
        (
            {"failed": -1},
            [("FieldValueInvalid", "status.failed", "Invalid value: -1: must be greater than or equal to 0")],
        ),
        (
            {"conditions": [{"type": "Complete", "status": "True"}, {"type": "Failed", "status": "True"}]},
            [
                (
                    "FieldValueInvalid",
                    "status.conditions",
                    "Invalid value: cannot set Complete=True and Failed=true conditions",
                )
            ],
        ),
    ],
)
def test_job_status_updates_are_validated(
    status: dict[str, Any], expected: list[tuple[str, str, str]]
) -> None:
    old = created(JOB, job())
    new = copy.deepcopy(old)
    new["status"] = status
    assert causes(JOB.validate_update(new, old)) == expected
