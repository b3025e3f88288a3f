"""Representative objects as upstream serializes them (hand-written, every field a real one)."""

from __future__ import annotations

from typing import Any

DEPLOYMENT: dict[str, Any] = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {
        "name": "web",
        "namespace": "default",
        "uid": "4a2f8c1e-0000-4000-8000-000000000001",
        "resourceVersion": "42",
        "generation": 3,
        "creationTimestamp": "2024-05-01T10:00:00Z",
        "labels": {"app": "web", "example.com/tier": "frontend"},
        "annotations": {"deployment.kubernetes.io/revision": "2"},
        "managedFields": [
            {
                "manager": "kubectl-client-side-apply",
                "operation": "Update",
                "apiVersion": "apps/v1",
                "time": "2024-05-01T10:00:00Z",
                "fieldsType": "FieldsV1",
                "fieldsV1": {"f:spec": {"f:replicas": {}}},
            }
        ],
    },
    "spec": {
        "replicas": 2,
        "selector": {"matchLabels": {"app": "web"}},
        "strategy": {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": "25%", "maxUnavailable": 0}},
        "revisionHistoryLimit": 10,
        "progressDeadlineSeconds": 600,
        "template": {
            "metadata": {"labels": {"app": "web"}},
            "spec": {
                "containers": [
                    {
                        "name": "nginx",
                        "image": "nginx:1.27",
                        "ports": [{"containerPort": 80, "protocol": "TCP", "name": "http"}],
                        "env": [
                            {"name": "MODE", "value": "prod"},
                            {"name": "POD_IP", "valueFrom": {"fieldRef": {"fieldPath": "status.podIP"}}},
                        ],
                        "resources": {
                            "limits": {"cpu": "500m", "memory": "128Mi"},
                            "requests": {"cpu": 0.25},
                        },
                        "readinessProbe": {"httpGet": {"path": "/", "port": "http"}, "periodSeconds": 5},
                        "volumeMounts": [{"name": "conf", "mountPath": "/etc/nginx/conf.d"}],
                        "securityContext": {"runAsNonRoot": True, "capabilities": {"drop": ["ALL"]}},
                    }
                ],
                "volumes": [{"name": "conf", "configMap": {"name": "web-conf", "defaultMode": 420}}],
                "hostPID": False,
                "tolerations": [{"key": "dedicated", "operator": "Exists", "effect": "NoSchedule"}],
                "affinity": {
                    "podAntiAffinity": {
                        "preferredDuringSchedulingIgnoredDuringExecution": [
                            {
                                "weight": 100,
                                "podAffinityTerm": {
                                    "labelSelector": {"matchLabels": {"app": "web"}},
                                    "topologyKey": "kubernetes.io/hostname",
                                },
                            }
                        ]
                    }
                },
            },
        },
    },
    "status": {
        "observedGeneration": 3,
        "replicas": 2,
        "readyReplicas": 2,
        "conditions": [
            {
                "type": "Available",
                "status": "True",
                "lastUpdateTime": "2024-05-01T10:01:00Z",
                "lastTransitionTime": "2024-05-01T10:01:00Z",
                "reason": "MinimumReplicasAvailable",
                "message": "Deployment has minimum availability.",
            }
        ],
    },
}

POD_STATUS: dict[str, Any] = {
    "phase": "Running",
    "hostIP": "10.0.0.5",
    "hostIPs": [{"ip": "10.0.0.5"}],
    "podIP": "10.244.1.7",
    "podIPs": [{"ip": "10.244.1.7"}],
    "qosClass": "Burstable",
    "containerStatuses": [
        {
            "name": "nginx",
            "ready": True,
            "restartCount": 0,
            "image": "nginx:1.27",
            "imageID": "docker.io/library/nginx@sha256:abc",
            "containerID": "containerd://0123",
            "started": True,
            "state": {"running": {"startedAt": "2024-05-01T10:00:30Z"}},
        }
    ],
}

NODE: dict[str, Any] = {
    "apiVersion": "v1",
    "kind": "Node",
    "metadata": {"name": "node-1", "labels": {"kubernetes.io/hostname": "node-1"}},
    "spec": {
        "podCIDR": "10.244.1.0/24",
        "podCIDRs": ["10.244.1.0/24"],
        "providerID": "kind://docker/node-1",
        "taints": [{"key": "node-role.kubernetes.io/control-plane", "effect": "NoSchedule"}],
    },
    "status": {
        "capacity": {"cpu": "4", "memory": "8Gi", "pods": "110"},
        "allocatable": {"cpu": "3800m", "memory": "7Gi", "pods": "110"},
        "addresses": [{"type": "InternalIP", "address": "10.0.0.5"}],
        "daemonEndpoints": {"kubeletEndpoint": {"Port": 10250}},
        "nodeInfo": {
            "machineID": "m",
            "systemUUID": "u",
            "bootID": "b",
            "kernelVersion": "6.1.0",
            "osImage": "Debian GNU/Linux 12",
            "containerRuntimeVersion": "containerd://1.7.0",
            "kubeletVersion": "v1.32.0",
            "kubeProxyVersion": "",
            "operatingSystem": "linux",
            "architecture": "amd64",
        },
    },
}

CLUSTER_ROLE: dict[str, Any] = {
    "apiVersion": "rbac.authorization.k8s.io/v1",
    "kind": "ClusterRole",
    "metadata": {"name": "reader"},
    "rules": [
        {"apiGroups": [""], "resources": ["pods", "pods/log"], "verbs": ["get", "list", "watch"]},
        {"nonResourceURLs": ["/healthz"], "verbs": ["get"]},
    ],
    "aggregationRule": {"clusterRoleSelectors": [{"matchLabels": {"rbac.example.com/aggregate": "true"}}]},
}

SERVICE: dict[str, Any] = {
    "apiVersion": "v1",
    "kind": "Service",
    "metadata": {"name": "web"},
    "spec": {
        "type": "NodePort",
        "selector": {"app": "web"},
        "clusterIP": "127.96.0.10",
        "clusterIPs": ["127.96.0.10"],
        "ipFamilies": ["IPv4"],
        "ipFamilyPolicy": "SingleStack",
        "ports": [{"name": "http", "port": 80, "targetPort": "http", "nodePort": 30080, "protocol": "TCP"}],
        "sessionAffinityConfig": {"clientIP": {"timeoutSeconds": 10800}},
    },
}
