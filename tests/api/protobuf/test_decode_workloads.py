"""A Deployment's whole pod template, encoded by Google's ``protobuf`` package, and protobuf's merge rules."""

from __future__ import annotations

from typing import Any

from minikube_py.api.protobuf.decode import decode_message, decode_object
from tests.api.protobuf.proto_builder import envelope
from tests.api.protobuf.upstream import UPSTREAM as T


def _deployment() -> Any:
    container = T["Container"](
        image="nginx",
        ports=[T["ContainerPort"](containerPort=0, protocol="TCP")],
        env=[
            T["EnvVar"](name="A", value="1"),
            T["EnvVar"](
                name="B",
                valueFrom=T["EnvVarSource"](
                    configMapKeyRef=T["ConfigMapKeySelector"](
                        localObjectReference=T["LocalObjectReference"](name="cm"), key="k", optional=True
                    )
                ),
            ),
        ],
        resources=T["ResourceRequirements"](
            limits={"cpu": T["Quantity"](string="500m")}, requests={"memory": T["Quantity"]()}
        ),
        livenessProbe=T["Probe"](
            handler=T["ProbeHandler"](
                httpGet=T["HTTPGetAction"](path="/healthz", port=T["IntOrString"](type=1, strVal="http"))
            ),
            periodSeconds=10,
        ),
    )
    volumes = [
        T["Volume"](
            name="cfg",
            volumeSource=T["VolumeSource"](
                configMap=T["ConfigMapVolumeSource"](
                    localObjectReference=T["LocalObjectReference"](name="cm"),
                    items=[T["KeyToPath"](key="a", path="b")],
                )
            ),
        ),
        T["Volume"](
            name="tmp",
            volumeSource=T["VolumeSource"](
                emptyDir=T["EmptyDirVolumeSource"](sizeLimit=T["Quantity"](string="1Gi"))
            ),
        ),
    ]
    pod = T["PodSpec"](
        containers=[container, T["Container"](name="sidecar")],
        volumes=volumes,
        priority=-5,
        terminationGracePeriodSeconds=2**40,
        hostNetwork=False,
        nodeSelector={"disk": "ssd"},
        securityContext=T["PodSecurityContext"](supplementalGroups=[1, -2]),
        tolerations=[T["Toleration"](key="k", operator="Exists", tolerationSeconds=-1)],
    )
    spec = T["DeploymentSpec"](
        replicas=0,
        minReadySeconds=0,
        paused=False,
        selector=T["LabelSelector"](
            matchExpressions=[T["LabelSelectorRequirement"](key="app", operator="Exists")]
        ),
        strategy=T["DeploymentStrategy"](
            type="RollingUpdate",
            rollingUpdate=T["RollingUpdateDeployment"](
                maxUnavailable=T["IntOrString"](type=1, strVal="25%"), maxSurge=T["IntOrString"](intVal=1)
            ),
        ),
        template=T["PodTemplateSpec"](metadata=T["ObjectMeta"](labels={"app": "web"}), spec=pod),
    )
    return T["Deployment"](metadata=T["ObjectMeta"](name="web"), spec=spec)


def test_deployment_pod_template_tree() -> None:
    container = {
        "name": "",  # `json:"name"` has no omitempty
        "image": "nginx",
        "ports": [{"containerPort": 0, "protocol": "TCP"}],
        "env": [
            {"name": "A", "value": "1"},
            {"name": "B", "valueFrom": {"configMapKeyRef": {"name": "cm", "key": "k", "optional": True}}},
        ],
        "resources": {"limits": {"cpu": "500m"}, "requests": {"memory": "0"}},
        "livenessProbe": {"httpGet": {"path": "/healthz", "port": "http"}, "periodSeconds": 10},
    }
    pod = {
        "volumes": [
            {"name": "cfg", "configMap": {"name": "cm", "items": [{"key": "a", "path": "b"}]}},
            {"name": "tmp", "emptyDir": {"sizeLimit": "1Gi"}},
        ],
        "containers": [container, {"name": "sidecar", "resources": {}}],
        "terminationGracePeriodSeconds": 2**40,
        "nodeSelector": {"disk": "ssd"},
        "securityContext": {"supplementalGroups": [1, -2]},
        "tolerations": [{"key": "k", "operator": "Exists", "tolerationSeconds": -1}],
        "priority": -5,
    }
    assert decode_object(envelope("apps/v1", "Deployment", _deployment().SerializeToString())) == {
        "kind": "Deployment",
        "apiVersion": "apps/v1",
        "metadata": {"name": "web"},
        "spec": {
            "replicas": 0,  # *int32: present, so rendered; minReadySeconds and paused are omitempty zeros
            "selector": {"matchExpressions": [{"key": "app", "operator": "Exists"}]},
            "template": {"metadata": {"labels": {"app": "web"}}, "spec": pod},
            "strategy": {"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": "25%", "maxSurge": 1}},
        },
        "status": {},  # a struct is never omitted
    }


def test_packed_and_unpacked_repeated_numbers_decode_alike() -> None:
    unpacked = T["PodSecurityContext"](supplementalGroups=[3, -1, 2**40]).SerializeToString()
    packed = T["PackedPodSecurityContext"](supplementalGroups=[3, -1, 2**40]).SerializeToString()
    assert packed != unpacked
    assert decode_message("PodSecurityContext", packed) == decode_message("PodSecurityContext", unpacked)
    assert decode_message("PodSecurityContext", packed) == {"supplementalGroups": [3, -1, 2**40]}


def test_repeated_fields_merge_as_protobuf_merges() -> None:
    first, second = _deployment(), T["Deployment"]()
    second.metadata.labels["extra"] = "1"
    second.spec.replicas = 4
    second.spec.template.spec.containers.add(name="third")
    joined = first.SerializeToString() + second.SerializeToString()
    merged = T["Deployment"]()
    merged.MergeFromString(joined)
    decoded = decode_object(envelope("apps/v1", "Deployment", joined))
    assert decoded == decode_object(envelope("apps/v1", "Deployment", merged.SerializeToString()))
    assert decoded["spec"]["replicas"] == 4
    assert [c["name"] for c in decoded["spec"]["template"]["spec"]["containers"]] == ["", "sidecar", "third"]
    assert decoded["metadata"] == {"name": "web", "labels": {"extra": "1"}}
