"""Pods and the workloads decode whole, status included (client-go's typed
clients send protobuf)."""

from __future__ import annotations

from minikube_py.api.protobuf.decode import decode_object
from tests.api.protobuf.proto_builder import envelope
from tests.api.protobuf.upstream import UPSTREAM as T


def test_pod_with_status_decodes_as_upstream_renders_it() -> None:
    status = T["PodStatus"](
        phase="Running",
        conditions=[T["PodCondition"](type="Ready", status="True", lastTransitionTime=T["Time"](seconds=0))],
        podIP="10.0.0.5",
        podIPs=[T["PodIP"](ip="10.0.0.5")],
        startTime=T["Time"](seconds=86400),
        containerStatuses=[
            T["ContainerStatus"](
                name="web",
                state=T["ContainerState"](
                    running=T["ContainerStateRunning"](startedAt=T["Time"](seconds=60))
                ),
                lastState=T["ContainerState"](terminated=T["ContainerStateTerminated"](reason="Error")),
            )
        ],
        qosClass="BestEffort",
    )
    pod = T["Pod"](
        metadata=T["ObjectMeta"](name="p"),
        spec=T["PodSpec"](containers=[T["Container"](name="web", image="nginx")]),
        status=status,
    )
    assert decode_object(envelope("v1", "Pod", pod.SerializeToString())) == {
        "kind": "Pod",
        "apiVersion": "v1",
        "metadata": {"name": "p"},
        "spec": {"containers": [{"name": "web", "image": "nginx", "resources": {}}]},
        "status": {
            "phase": "Running",
            "conditions": [
                {
                    "type": "Ready",
                    "status": "True",
                    "lastProbeTime": None,
                    "lastTransitionTime": "1970-01-01T00:00:00Z",
                }
            ],
            "podIP": "10.0.0.5",
            "podIPs": [{"ip": "10.0.0.5"}],
            "startTime": "1970-01-02T00:00:00Z",
            "containerStatuses": [
                {
                    "name": "web",
                    "state": {"running": {"startedAt": "1970-01-01T00:01:00Z"}},
                    # non-pointer structs and scalars without omitempty are always rendered
                    "lastState": {
                        "terminated": {
                            "exitCode": 0,
                            "reason": "Error",
                            "startedAt": None,
                            "finishedAt": None,
                        }
                    },
                    "ready": False,
                    "restartCount": 0,
                    "image": "",
                    "imageID": "",
                }
            ],
            "qosClass": "BestEffort",
        },
    }


def test_an_empty_pod_renders_what_go_always_writes() -> None:
    assert decode_object(envelope("v1", "Pod", T["Pod"]().SerializeToString())) == {
        "kind": "Pod",
        "apiVersion": "v1",
        "metadata": {},
        "spec": {"containers": None},
        "status": {},
    }


def test_an_empty_daemon_set_renders_what_go_always_writes() -> None:
    assert decode_object(envelope("apps/v1", "DaemonSet", T["DaemonSet"]().SerializeToString())) == {
        "kind": "DaemonSet",
        "apiVersion": "apps/v1",
        "metadata": {},
        "spec": {
            "selector": None,  # a pointer without omitempty
            "template": {"metadata": {}, "spec": {"containers": None}},
            "updateStrategy": {},  # omitempty never drops a struct
        },
        "status": {
            "currentNumberScheduled": 0,
            "numberMisscheduled": 0,
            "desiredNumberScheduled": 0,
            "numberReady": 0,
        },
    }


def test_a_replica_set_keeps_an_explicit_zero() -> None:
    body = T["ReplicaSet"](spec=T["ReplicaSetSpec"](replicas=0)).SerializeToString()
    assert decode_object(envelope("apps/v1", "ReplicaSet", body)) == {
        "kind": "ReplicaSet",
        "apiVersion": "apps/v1",
        "metadata": {},
        "spec": {"replicas": 0, "selector": None, "template": {"metadata": {}, "spec": {"containers": None}}},
        "status": {"replicas": 0},
    }


def test_an_empty_stateful_set_renders_what_go_always_writes() -> None:
    assert decode_object(envelope("apps/v1", "StatefulSet", T["StatefulSet"]().SerializeToString())) == {
        "kind": "StatefulSet",
        "apiVersion": "apps/v1",
        "metadata": {},
        "spec": {
            "selector": None,
            "template": {"metadata": {}, "spec": {"containers": None}},
            "serviceName": "",
            "updateStrategy": {},
        },
        "status": {"replicas": 0, "availableReplicas": 0},
    }
