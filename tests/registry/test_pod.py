"""PodStrategy: defaults, QoS, selectable fields, graceful deletion, validation and the printed row."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from apiserver.registry.resources.pod import PodStrategy
from apiserver.registry.resources.podtemplatespec import image_pull_policy
from apiserver.registry.resources.qos import pod_qos_class
from tests.registry.helpers import NOW, ago, causes, meta, prepared_for_create, prepared_for_update

STRATEGY = PodStrategy()


def pod(containers: list[dict[str, Any]] | None = None, **spec: Any) -> dict[str, Any]:
    return {
        "metadata": meta("web"),
        "spec": {"containers": containers or [{"name": "app", "image": "nginx"}], **spec},
    }


def created(obj: dict[str, Any]) -> dict[str, Any]:
    prepared_for_create(STRATEGY, obj)
    return obj


# defaults


@pytest.mark.parametrize(
    ("image", "policy"),
    [
        ("nginx", "Always"),
        ("nginx:latest", "Always"),
        ("nginx:1.25", "IfNotPresent"),
        ("localhost:5000/app", "Always"),
        ("localhost:5000/app:v2", "IfNotPresent"),
        ("repo/app@sha256:" + "a" * 64, "IfNotPresent"),
        ("repo/app:latest@sha256:" + "a" * 64, "Always"),
        ("", "IfNotPresent"),
        ("Upper/Case", "IfNotPresent"),
    ],
)
def test_image_pull_policy(image: str, policy: str) -> None:
    assert image_pull_policy(image) == policy


def test_create_applies_upstream_defaults_and_resets_status() -> None:
    obj = pod(
        [{"name": "app", "image": "nginx:1.25", "ports": [{"containerPort": 80}]}],
    )
    obj["status"] = {"phase": "Running", "podIP": "1.2.3.4"}
    spec = created(obj)["spec"]
    assert {k: spec[k] for k in spec if k != "containers"} == {
        "restartPolicy": "Always",
        "dnsPolicy": "ClusterFirst",
        "terminationGracePeriodSeconds": 30,
        "securityContext": {},
        "schedulerName": "default-scheduler",
        "enableServiceLinks": True,
    }
    assert spec["containers"][0] == {
        "name": "app",
        "image": "nginx:1.25",
        "ports": [{"containerPort": 80, "protocol": "TCP"}],
        "imagePullPolicy": "IfNotPresent",
        "terminationMessagePath": "/dev/termination-log",
        "terminationMessagePolicy": "File",
        "resources": {},
    }
    assert obj["status"] == {"phase": "Pending", "qosClass": "BestEffort"}


def test_create_keeps_what_the_client_chose() -> None:
    obj = created(pod(restartPolicy="Never", terminationGracePeriodSeconds=5, enableServiceLinks=False))
    assert obj["spec"]["restartPolicy"] == "Never"
    assert obj["spec"]["terminationGracePeriodSeconds"] == 5
    assert obj["spec"]["enableServiceLinks"] is False


def test_probe_env_and_host_network_defaults() -> None:
    container = {
        "name": "app",
        "image": "nginx",
        "ports": [{"containerPort": 8080}],
        "livenessProbe": {"httpGet": {"port": 8080}},
        "env": [{"name": "NODE", "valueFrom": {"fieldRef": {"fieldPath": "spec.nodeName"}}}],
    }
    spec = created(pod([container], hostNetwork=True))["spec"]["containers"][0]
    assert spec["livenessProbe"] == {
        "httpGet": {"port": 8080, "path": "/", "scheme": "HTTP"},
        "timeoutSeconds": 1,
        "periodSeconds": 10,
        "successThreshold": 1,
        "failureThreshold": 3,
    }
    assert spec["env"][0]["valueFrom"]["fieldRef"]["apiVersion"] == "v1"
    assert spec["ports"] == [{"containerPort": 8080, "protocol": "TCP", "hostPort": 8080}]


def test_scheduling_gates_add_the_gated_condition() -> None:
    obj = created(pod(schedulingGates=[{"name": "wait"}]))
    assert obj["status"]["conditions"][0]["reason"] == "SchedulingGated"


def test_update_keeps_status_and_defaults_the_spec() -> None:
    old = created(pod())
    old["status"]["phase"] = "Running"
    new = pod()
    new["status"] = {"phase": "Failed"}
    prepared_for_update(STRATEGY, new, old)
    assert new["status"]["phase"] == "Running"
    assert new["spec"]["dnsPolicy"] == "ClusterFirst"


# QoS


def resources(requests: dict[str, str] | None = None, limits: dict[str, str] | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if requests:
        out["requests"] = requests
    if limits:
        out["limits"] = limits
    return {"name": "c", "image": "i", "resources": out}


@pytest.mark.parametrize(
    ("containers", "qos"),
    [
        ([resources()], "BestEffort"),
        ([resources({"cpu": "100m"})], "Burstable"),
        ([resources(limits={"cpu": "1", "memory": "1Gi"})], "Guaranteed"),
        ([resources({"cpu": "1000m", "memory": "1Gi"}, {"cpu": "1", "memory": "1024Mi"})], "Guaranteed"),
        ([resources({"cpu": "500m", "memory": "1Gi"}, {"cpu": "1", "memory": "1Gi"})], "Burstable"),
        ([resources(limits={"cpu": "1"})], "Burstable"),
        ([resources(limits={"cpu": "1", "memory": "1Gi"}), resources()], "Burstable"),
        ([resources({"ephemeral-storage": "1Gi"})], "BestEffort"),
    ],
)
def test_qos_class(containers: list[dict[str, Any]], qos: str) -> None:
    obj = created(pod(containers))
    assert obj["status"]["qosClass"] == qos
    assert pod_qos_class(obj["spec"]) == qos


# selectable fields


def test_selectable_fields() -> None:
    obj = created(pod(nodeName="n1", serviceAccountName="sa", hostNetwork=True))
    obj["status"].update(podIPs=[{"ip": "10.0.0.7"}], podIP="10.0.0.7", nominatedNodeName="n2")
    assert STRATEGY.selectable_fields(obj) == {
        "metadata.name": "web",
        "metadata.namespace": "default",
        "spec.nodeName": "n1",
        "spec.restartPolicy": "Always",
        "spec.schedulerName": "default-scheduler",
        "spec.serviceAccountName": "sa",
        "spec.hostNetwork": "true",
        "status.phase": "Pending",
        "status.podIP": "10.0.0.7",
        "status.podIPs": "",
        "status.nominatedNodeName": "n2",
    }


def test_selectable_fields_of_an_empty_object_name_every_label() -> None:
    fields = STRATEGY.selectable_fields({"metadata": {"name": "", "namespace": ""}})
    assert fields["spec.hostNetwork"] == "false"
    assert len(fields) == 11


# graceful deletion


@pytest.mark.parametrize(
    ("spec", "phase", "seconds"),
    [
        ({}, "Pending", 0),
        ({"nodeName": "n1"}, "Running", 30),
        ({"nodeName": "n1", "terminationGracePeriodSeconds": 10}, "Running", 10),
        ({"nodeName": "n1", "terminationGracePeriodSeconds": 0}, "Running", 0),
        ({"nodeName": "n1", "terminationGracePeriodSeconds": -5}, "Running", 1),
        ({"nodeName": "n1"}, "Succeeded", 0),
        ({"nodeName": "n1"}, "Failed", 0),
    ],
)
def test_graceful_delete_seconds(spec: dict[str, Any], phase: str, seconds: int) -> None:
    obj = {"metadata": meta("p"), "spec": spec, "status": {"phase": phase}}
    assert STRATEGY.graceful_delete_seconds(obj) == seconds


# validation

DNS_LABEL = (
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must "
    "start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for "
    "validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"
)


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        ({"containers": []}, [("FieldValueRequired", "spec.containers", "Required value")]),
        (
            {"containers": [{"name": "app"}]},
            [("FieldValueRequired", "spec.containers[0].image", "Required value")],
        ),
        (
            {"containers": [{"name": "App", "image": "i"}]},
            [("FieldValueInvalid", "spec.containers[0].name", f'Invalid value: "App": {DNS_LABEL}')],
        ),
        (
            {"containers": [{"image": "i"}]},
            [("FieldValueRequired", "spec.containers[0].name", "Required value")],
        ),
        (
            {"containers": [{"name": "a", "image": "i"}, {"name": "a", "image": "j"}]},
            [("FieldValueDuplicate", "spec.containers[1].name", 'Duplicate value: "a"')],
        ),
        (
            {"containers": [{"name": "a", "image": "i"}], "initContainers": [{"name": "a", "image": "i"}]},
            [("FieldValueDuplicate", "spec.initContainers[0].name", 'Duplicate value: "a"')],
        ),
        (
            {"containers": [{"name": "a", "image": " i"}]},
            [
                (
                    "FieldValueInvalid",
                    "spec.containers[0].image",
                    'Invalid value: " i": must not have leading or trailing whitespace',
                )
            ],
        ),
        (
            {"containers": [{"name": "a", "image": "i"}], "restartPolicy": "Sometimes"},
            [
                (
                    "FieldValueNotSupported",
                    "spec.restartPolicy",
                    'Unsupported value: "Sometimes": supported values: "Always", "OnFailure", "Never"',
                )
            ],
        ),
    ],
)
def test_validation_causes(spec: dict[str, Any], expected: list[tuple[str, str, str]]) -> None:
    obj = {"metadata": meta("p"), "spec": copy.deepcopy(spec)}
    prepared_for_create(STRATEGY, obj)
    assert causes(STRATEGY.validate(obj)) == expected


def test_a_valid_pod_has_no_causes() -> None:
    assert STRATEGY.validate(created(pod())) == []


# the printed row


def running(name: str, *, ready: bool = True, restarts: int = 0, finished: str = "") -> dict[str, Any]:
    status: dict[str, Any] = {
        "name": name,
        "ready": ready,
        "restartCount": restarts,
        "state": {"running": {"startedAt": ago(minutes=4)}},
    }
    if finished:
        status["lastState"] = {"terminated": {"exitCode": 1, "finishedAt": finished}}
    return status


def printed(spec: dict[str, Any], status: dict[str, Any], **meta_extra: Any) -> list[Any]:
    obj = {"metadata": meta("web", **meta_extra), "spec": spec, "status": status}
    cells = STRATEGY.table_cells(obj, NOW)
    assert len(cells) == len(STRATEGY.table_columns())
    return cells


TWO = {"containers": [{"name": "a", "image": "i"}, {"name": "b", "image": "i"}], "nodeName": "node-1"}


def test_half_ready_pod_restarted_twice() -> None:
    status = {
        "phase": "Running",
        "podIPs": [{"ip": "10.244.0.5"}],
        "containerStatuses": [running("a"), running("b", ready=False, restarts=2, finished=ago(minutes=5))],
    }
    assert printed(TWO, status) == [
        "web",
        "1/2",
        "Running",
        "2 (5m ago)",
        "60m",
        "10.244.0.5",
        "node-1",
        "<none>",
        "<none>",
    ]


def test_pending_unscheduled_pod_shows_none_in_wide_cells() -> None:
    assert printed({"containers": [{"name": "a"}]}, {"phase": "Pending"}) == [
        "web",
        "0/1",
        "Pending",
        "0",
        "60m",
        "<none>",
        "<none>",
        "<none>",
        "<none>",
    ]


INIT = {
    "initContainers": [{"name": "i1", "image": "x"}, {"name": "i2", "image": "x"}],
    "containers": [{"name": "a", "image": "x"}],
}


def init_status(second: dict[str, Any], restarts: int = 0) -> dict[str, Any]:
    return {
        "phase": "Pending",
        "initContainerStatuses": [
            {
                "name": "i1",
                "restartCount": 0,
                "state": {"terminated": {"exitCode": 0, "reason": "Completed"}},
            },
            {"name": "i2", "restartCount": restarts, "state": second},
        ],
        "containerStatuses": [{"name": "a", "state": {"waiting": {"reason": "PodInitializing"}}}],
    }


@pytest.mark.parametrize(
    ("second", "reason"),
    [
        ({"running": {}}, "Init:1/2"),
        ({"waiting": {"reason": "PodInitializing"}}, "Init:1/2"),
        ({"waiting": {"reason": "CrashLoopBackOff"}}, "Init:CrashLoopBackOff"),
        ({"terminated": {"exitCode": 1}}, "Init:ExitCode:1"),
        ({"terminated": {"exitCode": 137, "signal": 9}}, "Init:Signal:9"),
        ({"terminated": {"exitCode": 1, "reason": "Error"}}, "Init:Error"),
    ],
)
def test_init_container_status(second: dict[str, Any], reason: str) -> None:
    cells = printed(INIT, init_status(second, restarts=3))
    assert cells[1:4] == ["0/1", reason, "3"]


def test_all_init_containers_done_shows_the_containers() -> None:
    status = init_status({"terminated": {"exitCode": 0}})
    assert printed(INIT, status)[1:3] == ["0/1", "PodInitializing"]


def test_sidecar_counts_as_a_container() -> None:
    spec = {
        "initContainers": [{"name": "proxy", "image": "x", "restartPolicy": "Always"}],
        "containers": [{"name": "a", "image": "x"}],
    }
    status = {
        "phase": "Running",
        "conditions": [{"type": "Initialized", "status": "True"}],
        "initContainerStatuses": [
            {"name": "proxy", "started": True, "ready": True, "restartCount": 1, "state": {"running": {}}}
        ],
        "containerStatuses": [running("a")],
    }
    assert printed(spec, status)[1:4] == ["2/2", "Running", "1"]


@pytest.mark.parametrize(
    ("state", "reason"),
    [
        ({"waiting": {"reason": "ContainerCreating"}}, "ContainerCreating"),
        ({"waiting": {"reason": "CrashLoopBackOff"}}, "CrashLoopBackOff"),
        ({"terminated": {"exitCode": 0, "reason": "Completed"}}, "Completed"),
        ({"terminated": {"exitCode": 2}}, "ExitCode:2"),
        ({"terminated": {"exitCode": 143, "signal": 15}}, "Signal:15"),
    ],
)
def test_container_state_reason(state: dict[str, Any], reason: str) -> None:
    status = {"phase": "Running", "containerStatuses": [{"name": "a", "state": state}]}
    assert printed({"containers": [{"name": "a"}]}, status)[2] == reason


@pytest.mark.parametrize(("ready_condition", "reason"), [("True", "Running"), ("False", "NotReady")])
def test_completed_container_next_to_a_running_one(ready_condition: str, reason: str) -> None:
    status = {
        "phase": "Running",
        "conditions": [{"type": "Ready", "status": ready_condition}],
        "containerStatuses": [
            running("a"),
            {"name": "b", "state": {"terminated": {"exitCode": 0, "reason": "Completed"}}},
        ],
    }
    assert printed(TWO, status)[1:3] == ["1/2", reason]


@pytest.mark.parametrize(
    ("status", "reason"),
    [
        ({"phase": "Running"}, "Terminating"),
        ({"phase": "Succeeded"}, "Succeeded"),
        ({"phase": "Running", "reason": "NodeLost"}, "Unknown"),
    ],
)
def test_deleted_pod(status: dict[str, Any], reason: str) -> None:
    cells = printed({"containers": [{"name": "a"}]}, status, deletionTimestamp=ago(seconds=10))
    assert cells[2] == reason


@pytest.mark.parametrize(
    ("status", "reason"),
    [
        ({"phase": "Failed", "reason": "Evicted"}, "Evicted"),
        ({"phase": "Running", "reason": "NodeLost"}, "NodeLost"),
        (
            {"phase": "Pending", "conditions": [{"type": "PodScheduled", "reason": "SchedulingGated"}]},
            "SchedulingGated",
        ),
    ],
)
def test_status_reason(status: dict[str, Any], reason: str) -> None:
    assert printed({"containers": [{"name": "a"}]}, status)[2] == reason


def test_readiness_gates_and_nominated_node() -> None:
    spec = {
        "containers": [{"name": "a"}],
        "readinessGates": [{"conditionType": "x/one"}, {"conditionType": "x/two"}],
    }
    status = {
        "phase": "Pending",
        "nominatedNodeName": "node-2",
        "conditions": [{"type": "x/one", "status": "True"}, {"type": "x/two", "status": "False"}],
    }
    assert printed(spec, status)[7:] == ["node-2", "1/2"]


def test_columns_match_upstream() -> None:
    names = [(c[0], c[4]) for c in STRATEGY.table_columns()]
    assert names == [
        ("Name", 0),
        ("Ready", 0),
        ("Status", 0),
        ("Restarts", 0),
        ("Age", 0),
        ("IP", 1),
        ("Node", 1),
        ("Nominated Node", 1),
        ("Readiness Gates", 1),
    ]
