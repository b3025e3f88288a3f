"""Pod predicates for endpoints (upstream's ``ShouldPodBeInEndpoints``, ``ShouldSetHostname``,
``podutil.FindPort``)."""

from __future__ import annotations

from typing import Any

from minikube_py.api.unstructured import Object

NONE_CLUSTER_IP = "None"


def pod_ip(pod: Object) -> str:
    """The pod's (first IPv4) address, "" when it has none yet."""
    status = pod.get("status") or {}
    ips = [str(entry.get("ip") or "") for entry in status.get("podIPs") or []]
    for ip in [str(status.get("podIP") or ""), *ips]:
        if ip and ":" not in ip:
            return ip
    return ""


def should_pod_be_in_endpoints(pod: Object, include_terminating: bool) -> bool:
    """Has an address, is not terminating (unless ``include_terminating``) and can still run:
    a pod that will never run again (terminal under its restart policy) backs nothing."""
    if not pod_ip(pod):
        return False
    if not include_terminating and pod["metadata"].get("deletionTimestamp"):
        return False
    phase = (pod.get("status") or {}).get("phase")
    policy = (pod.get("spec") or {}).get("restartPolicy")
    if policy == "Never":
        return phase not in ("Failed", "Succeeded")
    if policy == "OnFailure":
        return phase != "Succeeded"
    return True


def should_set_hostname(pod: Object, service: Object) -> bool:
    """``pod.spec.hostname`` is published when the pod's subdomain is the Service's name."""
    spec = pod.get("spec") or {}
    return bool(
        spec.get("hostname")
        and spec.get("subdomain") == service["metadata"]["name"]
        and pod["metadata"].get("namespace") == service["metadata"].get("namespace")
    )


def find_port(pod: Object, service_port: dict[str, Any]) -> int | None:
    """The container port a Service port targets on ``pod``: a number as is, a name looked up
    among the pod's container ports of the same protocol (None when no container declares it)."""
    target = service_port.get("targetPort", service_port.get("port"))
    if isinstance(target, int):
        return target
    if isinstance(target, str) and target.isdigit():
        return int(target)
    protocol = service_port.get("protocol") or "TCP"
    for container in (pod.get("spec") or {}).get("containers") or []:
        for port in container.get("ports") or []:
            if port.get("name") == target and (port.get("protocol") or "TCP") == protocol:
                number = port.get("containerPort")
                return number if isinstance(number, int) else None
    return None


def is_headless(service: Object) -> bool:
    return (service.get("spec") or {}).get("clusterIP") == NONE_CLUSTER_IP


def target_ref(pod: Object) -> dict[str, Any]:
    meta = pod["metadata"]
    return {
        "kind": "Pod",
        "namespace": meta.get("namespace", ""),
        "name": meta["name"],
        "uid": meta.get("uid", ""),
    }
