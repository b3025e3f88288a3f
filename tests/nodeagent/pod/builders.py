"""Pods and runtime states for the pod-side unit tests."""

from __future__ import annotations

from minikube_py.api.unstructured import Object
from nodeagent.pod.actions import container_hash
from nodeagent.pod.runtimestatus import LABEL_CONTAINER_HASH, LABEL_POD_UID, PodRuntimeStatus
from nodeagent.runtime.interface import ContainerState, ContainerStatus, PodSandboxStatus, SandboxState

UID = "uid-1"


def make_pod(
    *names: str, init: tuple[str, ...] = (), restart_policy: str = "Always", deleting: bool = False
) -> Object:
    spec: Object = {
        "nodeName": "node-1",
        "restartPolicy": restart_policy,
        "containers": [
            {"name": n, "image": "busybox", "command": ["sleep", "1000"]} for n in names or ("c",)
        ],
    }
    if init:
        spec["initContainers"] = [{"name": n, "image": "busybox", "command": ["true"]} for n in init]
    meta: Object = {"name": "web", "namespace": "default", "uid": UID}
    if deleting:
        meta["deletionTimestamp"] = "2026-11-30T00:00:00Z"
        meta["deletionGracePeriodSeconds"] = 5
    return {"metadata": meta, "spec": spec, "status": {"phase": "Pending", "qosClass": "BestEffort"}}


def sandbox(ready: bool = True, attempt: int = 0, ip: str = "127.1.0.2") -> PodSandboxStatus:
    state = SandboxState.READY if ready else SandboxState.NOTREADY
    return PodSandboxStatus(
        f"sb-{attempt}", UID, "web", "default", attempt, state, ip if ready else "", 100.0
    )


def container(
    pod: Object,
    name: str,
    state: ContainerState,
    *,
    exit_code: int = 0,
    attempt: int = 0,
    reason: str = "",
    changed: bool = False,
) -> ContainerStatus:
    spec = pod["spec"]
    every = spec["containers"] + spec.get("initContainers", []) + spec.get("ephemeralContainers", [])
    found = next(c for c in every if c["name"] == name)
    labels = {LABEL_POD_UID: UID, LABEL_CONTAINER_HASH: "old" if changed else container_hash(found)}
    exited = state is ContainerState.EXITED
    return ContainerStatus(
        id=f"{name}-{attempt}",
        sandbox_id="sb-0",
        name=name,
        attempt=attempt,
        image="busybox",
        state=state,
        created_at=100.0 + attempt,
        started_at=0.0 if state is ContainerState.CREATED else 101.0 + attempt,
        finished_at=102.0 + attempt if exited else 0.0,
        exit_code=exit_code,
        reason=reason or (("Completed" if exit_code == 0 else "Error") if exited else ""),
        labels=labels,
    )


def runtime_status(
    *containers: ContainerStatus, sandboxes: tuple[PodSandboxStatus, ...] = ()
) -> PodRuntimeStatus:
    ordered = sorted(containers, key=lambda c: c.attempt, reverse=True)
    return PodRuntimeStatus(UID, list(sandboxes), ordered)


RUNNING, EXITED, CREATED = ContainerState.RUNNING, ContainerState.EXITED, ContainerState.CREATED
