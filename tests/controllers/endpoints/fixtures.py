"""Objects for the endpoints controllers' tests: Services, pods (ready or not, on a node,
with named container ports) and nodes, seeded into a ``World`` (FakeClient + informers)."""

from __future__ import annotations

from typing import Any

from minikube_py.api.unstructured import Object

NS = "default"
READY_AT = "2026-01-01T00:00:10Z"


def service(name: str = "web", selector: dict[str, str] | None = None, **spec: Any) -> Object:
    body: dict[str, Any] = {
        "clusterIP": "127.96.0.20",
        "ports": [{"name": "http", "port": 80, "targetPort": 8080, "protocol": "TCP"}],
    }
    body["selector"] = {"app": name} if selector is None else selector
    body.update(spec)
    return {
        "metadata": {"name": name, "namespace": NS, "labels": {"team": "a"}, "uid": f"uid-svc-{name}"},
        "spec": body,
    }


def pod(
    name: str,
    ip: str,
    *,
    ready: bool = True,
    app: str = "web",
    node: str = "node-1",
    ports: list[dict[str, Any]] | None = None,
    terminating: bool = False,
    ready_at: str = READY_AT,
    **spec: Any,
) -> Object:
    meta: dict[str, Any] = {"name": name, "namespace": NS, "labels": {"app": app}, "uid": f"uid-{name}"}
    if terminating:
        meta["deletionTimestamp"] = "2026-01-01T00:01:00Z"
    container: dict[str, Any] = {"name": "c", "image": "nginx"}
    if ports is not None:
        container["ports"] = ports
    status: dict[str, Any] = {
        "phase": "Running",
        "conditions": [
            {"type": "Ready", "status": "True" if ready else "False", "lastTransitionTime": ready_at}
        ],
    }
    if ip:
        status["podIP"] = ip
        status["podIPs"] = [{"ip": ip}]
    return {"metadata": meta, "spec": {"nodeName": node, "containers": [container], **spec}, "status": status}


def node(name: str = "node-1", zone: str = "") -> Object:
    labels = {"topology.kubernetes.io/zone": zone} if zone else {}
    return {"metadata": {"name": name, "labels": labels}}


def ref(name: str) -> dict[str, str]:
    return {"kind": "Pod", "namespace": NS, "name": name, "uid": f"uid-{name}"}
