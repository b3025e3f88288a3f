"""Upstream messages as Google's ``protobuf`` package sees them, for encoding test inputs.

The table is transcribed from upstream's ``generated.proto`` files (k8s.io/apimachinery
pkg/apis/meta/v1, pkg/util/intstr, pkg/api/resource; k8s.io/api core/v1, apps/v1, authorization/v1,
authentication/v1, policy/v1, autoscaling/v1), field names as there (``uID``, ``Raw``), trimmed to
the fields the tests use. It is independent of the decoder's own descriptions, which come from the Go types.
"""

from __future__ import annotations

from typing import Any

from tests.api.protobuf.proto_builder import Table, build

S, I32, I64, B, BY = "string", "int32", "int64", "bool", "bytes"
OPT, REP = "optional", "repeated"

TABLE: Table = {
    # meta/v1, intstr, resource
    "Time": [(1, "seconds", OPT, I64), (2, "nanos", OPT, I32)],
    "IntOrString": [(1, "type", OPT, I64), (2, "intVal", OPT, I32), (3, "strVal", OPT, S)],
    "Quantity": [(1, "string", OPT, S)],
    "FieldsV1": [(1, "Raw", OPT, BY)],
    "ObjectMeta": [
        (1, "name", OPT, S),
        (2, "generateName", OPT, S),
        (3, "namespace", OPT, S),
        (4, "selfLink", OPT, S),
        (5, "uid", OPT, S),
        (6, "resourceVersion", OPT, S),
        (7, "generation", OPT, I64),
        (8, "creationTimestamp", OPT, "Time"),
        (9, "deletionTimestamp", OPT, "Time"),
        (10, "deletionGracePeriodSeconds", OPT, I64),
        (11, "labels", "map", "string:string"),
        (12, "annotations", "map", "string:string"),
        (13, "ownerReferences", REP, "OwnerReference"),
        (14, "finalizers", REP, S),
        (17, "managedFields", REP, "ManagedFieldsEntry"),
    ],
    "OwnerReference": [
        (1, "kind", OPT, S),
        (3, "name", OPT, S),
        (4, "uid", OPT, S),
        (5, "apiVersion", OPT, S),
        (6, "controller", OPT, B),
        (7, "blockOwnerDeletion", OPT, B),
    ],
    "ManagedFieldsEntry": [
        (1, "manager", OPT, S),
        (2, "operation", OPT, S),
        (3, "apiVersion", OPT, S),
        (4, "time", OPT, "Time"),
        (6, "fieldsType", OPT, S),
        (7, "fieldsV1", OPT, "FieldsV1"),
        (8, "subresource", OPT, S),
    ],
    "LabelSelector": [
        (1, "matchLabels", "map", "string:string"),
        (2, "matchExpressions", REP, "LabelSelectorRequirement"),
    ],
    "LabelSelectorRequirement": [(1, "key", OPT, S), (2, "operator", OPT, S), (3, "values", REP, S)],
    "Condition": [
        (1, "type", OPT, S),
        (2, "status", OPT, S),
        (3, "observedGeneration", OPT, I64),
        (4, "lastTransitionTime", OPT, "Time"),
        (5, "reason", OPT, S),
        (6, "message", OPT, S),
    ],
    "DeleteOptions": [
        (1, "gracePeriodSeconds", OPT, I64),
        (2, "preconditions", OPT, "Preconditions"),
        (3, "orphanDependents", OPT, B),
        (4, "propagationPolicy", OPT, S),
        (5, "dryRun", REP, S),
    ],
    "Preconditions": [(1, "uid", OPT, S), (2, "resourceVersion", OPT, S)],
    # core/v1
    "ConfigMap": [
        (1, "metadata", OPT, "ObjectMeta"),
        (2, "data", "map", "string:string"),
        (3, "binaryData", "map", "string:bytes"),
        (4, "immutable", OPT, B),
    ],
    "Secret": [
        (1, "metadata", OPT, "ObjectMeta"),
        (2, "data", "map", "string:bytes"),
        (3, "type", OPT, S),
        (4, "stringData", "map", "string:string"),
        (5, "immutable", OPT, B),
    ],
    "PodTemplateSpec": [(1, "metadata", OPT, "ObjectMeta"), (2, "spec", OPT, "PodSpec")],
    "PodSpec": [
        (1, "volumes", REP, "Volume"),
        (2, "containers", REP, "Container"),
        (3, "restartPolicy", OPT, S),
        (4, "terminationGracePeriodSeconds", OPT, I64),
        (6, "dnsPolicy", OPT, S),
        (7, "nodeSelector", "map", "string:string"),
        (8, "serviceAccountName", OPT, S),
        (11, "hostNetwork", OPT, B),
        (14, "securityContext", OPT, "PodSecurityContext"),
        (22, "tolerations", REP, "Toleration"),
        (25, "priority", OPT, I32),
        (30, "enableServiceLinks", OPT, B),
    ],
    "PodSecurityContext": [(2, "runAsUser", OPT, I64), (4, "supplementalGroups", REP, I64)],
    "PackedPodSecurityContext": [(2, "runAsUser", OPT, I64), (4, "supplementalGroups", "packed", I64)],
    "Toleration": [
        (1, "key", OPT, S),
        (2, "operator", OPT, S),
        (3, "value", OPT, S),
        (4, "effect", OPT, S),
        (5, "tolerationSeconds", OPT, I64),
    ],
    "Volume": [(1, "name", OPT, S), (2, "volumeSource", OPT, "VolumeSource")],
    "VolumeSource": [
        (2, "emptyDir", OPT, "EmptyDirVolumeSource"),
        (19, "configMap", OPT, "ConfigMapVolumeSource"),
    ],
    "EmptyDirVolumeSource": [(1, "medium", OPT, S), (2, "sizeLimit", OPT, "Quantity")],
    "ConfigMapVolumeSource": [
        (1, "localObjectReference", OPT, "LocalObjectReference"),
        (2, "items", REP, "KeyToPath"),
        (3, "defaultMode", OPT, I32),
        (4, "optional", OPT, B),
    ],
    "LocalObjectReference": [(1, "name", OPT, S)],
    "KeyToPath": [(1, "key", OPT, S), (2, "path", OPT, S), (3, "mode", OPT, I32)],
    "Container": [
        (1, "name", OPT, S),
        (2, "image", OPT, S),
        (3, "command", REP, S),
        (4, "args", REP, S),
        (6, "ports", REP, "ContainerPort"),
        (7, "env", REP, "EnvVar"),
        (8, "resources", OPT, "ResourceRequirements"),
        (10, "livenessProbe", OPT, "Probe"),
        (14, "imagePullPolicy", OPT, S),
    ],
    "ContainerPort": [
        (1, "name", OPT, S),
        (2, "hostPort", OPT, I32),
        (3, "containerPort", OPT, I32),
        (4, "protocol", OPT, S),
    ],
    "EnvVar": [(1, "name", OPT, S), (2, "value", OPT, S), (3, "valueFrom", OPT, "EnvVarSource")],
    "EnvVarSource": [
        (1, "fieldRef", OPT, "ObjectFieldSelector"),
        (3, "configMapKeyRef", OPT, "ConfigMapKeySelector"),
    ],
    "ObjectFieldSelector": [(1, "apiVersion", OPT, S), (2, "fieldPath", OPT, S)],
    "ConfigMapKeySelector": [
        (1, "localObjectReference", OPT, "LocalObjectReference"),
        (2, "key", OPT, S),
        (3, "optional", OPT, B),
    ],
    "ResourceRequirements": [
        (1, "limits", "map", "string:Quantity"),
        (2, "requests", "map", "string:Quantity"),
    ],
    "Probe": [
        (1, "handler", OPT, "ProbeHandler"),
        (2, "initialDelaySeconds", OPT, I32),
        (4, "periodSeconds", OPT, I32),
    ],
    "ProbeHandler": [(2, "httpGet", OPT, "HTTPGetAction")],
    "HTTPGetAction": [
        (1, "path", OPT, S),
        (2, "port", OPT, "IntOrString"),
        (3, "host", OPT, S),
        (4, "scheme", OPT, S),
    ],
    # apps/v1
    "Deployment": [(1, "metadata", OPT, "ObjectMeta"), (2, "spec", OPT, "DeploymentSpec")],
    "DeploymentSpec": [
        (1, "replicas", OPT, I32),
        (2, "selector", OPT, "LabelSelector"),
        (3, "template", OPT, "PodTemplateSpec"),
        (4, "strategy", OPT, "DeploymentStrategy"),
        (5, "minReadySeconds", OPT, I32),
        (6, "revisionHistoryLimit", OPT, I32),
        (7, "paused", OPT, B),
        (9, "progressDeadlineSeconds", OPT, I32),
    ],
    "DeploymentStrategy": [(1, "type", OPT, S), (2, "rollingUpdate", OPT, "RollingUpdateDeployment")],
    "RollingUpdateDeployment": [
        (1, "maxUnavailable", OPT, "IntOrString"),
        (2, "maxSurge", OPT, "IntOrString"),
    ],
    # authorization/v1, authentication/v1
    "ExtraValue": [(1, "items", REP, S)],
    "SubjectAccessReview": [(1, "metadata", OPT, "ObjectMeta"), (2, "spec", OPT, "SubjectAccessReviewSpec")],
    "SubjectAccessReviewSpec": [
        (1, "resourceAttributes", OPT, "ResourceAttributes"),
        (3, "user", OPT, S),
        (4, "groups", REP, S),
        (5, "extra", "map", "string:ExtraValue"),
        (6, "uid", OPT, S),
    ],
    "ResourceAttributes": [
        (1, "namespace", OPT, S),
        (2, "verb", OPT, S),
        (3, "group", OPT, S),
        (4, "version", OPT, S),
        (5, "resource", OPT, S),
        (6, "subresource", OPT, S),
        (7, "name", OPT, S),
    ],
    "TokenRequest": [(1, "metadata", OPT, "ObjectMeta"), (2, "spec", OPT, "TokenRequestSpec")],
    "TokenRequestSpec": [
        (1, "audiences", REP, S),
        (3, "boundObjectRef", OPT, "BoundObjectReference"),
        (4, "expirationSeconds", OPT, I64),
    ],
    "BoundObjectReference": [
        (1, "kind", OPT, S),
        (2, "apiVersion", OPT, S),
        (3, "name", OPT, S),
        (4, "uID", OPT, S),
    ],
    # policy/v1
    "PodDisruptionBudget": [
        (1, "metadata", OPT, "ObjectMeta"),
        (2, "spec", OPT, "PodDisruptionBudgetSpec"),
        (3, "status", OPT, "PodDisruptionBudgetStatus"),
    ],
    "PodDisruptionBudgetSpec": [
        (1, "minAvailable", OPT, "IntOrString"),
        (3, "maxUnavailable", OPT, "IntOrString"),
    ],
    "PodDisruptionBudgetStatus": [
        (1, "observedGeneration", OPT, I64),
        (2, "disruptedPods", "map", "string:Time"),
        (3, "disruptionsAllowed", OPT, I32),
        (7, "conditions", REP, "Condition"),
    ],
    "Eviction": [(1, "metadata", OPT, "ObjectMeta"), (2, "deleteOptions", OPT, "DeleteOptions")],
    # core/v1 Binding, autoscaling/v1 Scale
    "ObjectReference": [
        (1, "kind", OPT, S),
        (2, "namespace", OPT, S),
        (3, "name", OPT, S),
        (4, "uid", OPT, S),
        (5, "apiVersion", OPT, S),
        (6, "resourceVersion", OPT, S),
        (7, "fieldPath", OPT, S),
    ],
    "Binding": [(1, "metadata", OPT, "ObjectMeta"), (2, "target", OPT, "ObjectReference")],
    "Scale": [
        (1, "metadata", OPT, "ObjectMeta"),
        (2, "spec", OPT, "ScaleSpec"),
        (3, "status", OPT, "ScaleStatus"),
    ],
    "ScaleSpec": [(1, "replicas", OPT, I32)],
    "ScaleStatus": [(1, "replicas", OPT, I32), (2, "selector", OPT, S)],
    # apps/v1 DaemonSet, StatefulSet and ReplicaSet
    "DaemonSet": [(1, "metadata", OPT, "ObjectMeta")],
    "StatefulSet": [(1, "metadata", OPT, "ObjectMeta")],
    "ReplicaSet": [(1, "metadata", OPT, "ObjectMeta"), (2, "spec", OPT, "ReplicaSetSpec")],
    "ReplicaSetSpec": [(1, "replicas", OPT, I32)],
    # core/v1 Pod and its status
    "Pod": [(1, "metadata", OPT, "ObjectMeta"), (2, "spec", OPT, "PodSpec"), (3, "status", OPT, "PodStatus")],
    "PodStatus": [
        (1, "phase", OPT, S),
        (2, "conditions", REP, "PodCondition"),
        (5, "hostIP", OPT, S),
        (6, "podIP", OPT, S),
        (7, "startTime", OPT, "Time"),
        (8, "containerStatuses", REP, "ContainerStatus"),
        (9, "qosClass", OPT, S),
        (12, "podIPs", REP, "PodIP"),
        (17, "observedGeneration", OPT, I64),
    ],
    "PodCondition": [(1, "type", OPT, S), (2, "status", OPT, S), (4, "lastTransitionTime", OPT, "Time")],
    "PodIP": [(1, "ip", OPT, S)],
    "ContainerStatus": [
        (1, "name", OPT, S),
        (2, "state", OPT, "ContainerState"),
        (3, "lastState", OPT, "ContainerState"),
        (4, "ready", OPT, B),
        (5, "restartCount", OPT, I32),
        (6, "image", OPT, S),
        (9, "started", OPT, B),
    ],
    "ContainerState": [
        (2, "running", OPT, "ContainerStateRunning"),
        (3, "terminated", OPT, "ContainerStateTerminated"),
    ],
    "ContainerStateRunning": [(1, "startedAt", OPT, "Time")],
    "ContainerStateTerminated": [(1, "exitCode", OPT, I32), (3, "reason", OPT, S)],
}

UPSTREAM: dict[str, Any] = build(TABLE)
