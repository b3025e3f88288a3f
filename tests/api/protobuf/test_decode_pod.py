"""A Pod decodes whole, status included: client-go's typed ``Pods().Create`` sends protobuf."""

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
