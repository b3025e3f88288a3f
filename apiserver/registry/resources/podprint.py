"""The row ``kubectl get pods`` shows, computed like upstream's ``printPod``.

Status is the phase, or ``status.reason`` (e.g. ``Evicted``, ``NodeLost``), refined by the init
containers (``Init:1/3``, ``Init:CrashLoopBackOff``, ``Init:ExitCode:1``), then by the containers'
waiting/terminated reasons (``ContainerCreating``, ``CrashLoopBackOff``, ``Completed``, ``Error``),
and finally ``Terminating`` (or ``Unknown`` for a lost node) once the pod is being deleted. Restarts
read ``2 (5m ago)`` when the last restart time is known.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from apiserver.registry.age import age, since
from minikube_py.api.timestamps import parse_rfc3339 as parse_time
from minikube_py.api.unstructured import Object

NODE_LOST = "NodeLost"  # upstream's node.NodeUnreachablePodReason


@dataclass
class _Tally:
    """Restarts (and when the last one was) plus ready containers, as the loops go."""

    restarts: int = 0
    last_restart: float | None = None
    ready: int = 0

    def add(self, status: Object) -> None:
        self.restarts += int(status.get("restartCount") or 0)
        finished = parse_time(((status.get("lastState") or {}).get("terminated") or {}).get("finishedAt"))
        if finished is not None and (self.last_restart is None or finished > self.last_restart):
            self.last_restart = finished


def _condition_true(pod: Object, kind: str) -> bool:
    for condition in (pod.get("status") or {}).get("conditions") or []:
        if condition.get("type") == kind:
            return bool(condition.get("status") == "True")
    return False


def _terminated_reason(terminated: Object, prefix: str = "") -> str:
    if terminated.get("reason"):
        return prefix + str(terminated["reason"])
    if terminated.get("signal"):
        return f"{prefix}Signal:{terminated['signal']}"
    return f"{prefix}ExitCode:{terminated.get('exitCode', 0)}"


def _restartable_init_names(spec: Object) -> set[str]:
    """Sidecars: init containers with ``restartPolicy: Always``."""
    return {c.get("name", "") for c in spec.get("initContainers") or [] if c.get("restartPolicy") == "Always"}


def _init_reason(pod: Object, all_restarts: _Tally, sidecars: _Tally) -> str | None:
    """The ``Init:...`` reason while init containers run (None once they are done)."""
    spec, status = pod.get("spec") or {}, pod.get("status") or {}
    restartable = _restartable_init_names(spec)
    total = len(spec.get("initContainers") or [])
    for i, container in enumerate(status.get("initContainerStatuses") or []):
        all_restarts.add(container)
        if container.get("name") in restartable:
            sidecars.add(container)
        state = container.get("state") or {}
        terminated, waiting = state.get("terminated"), state.get("waiting") or {}
        if terminated is not None and terminated.get("exitCode", 0) == 0:
            continue
        if container.get("name") in restartable and container.get("started"):
            sidecars.ready += 1 if container.get("ready") else 0
            continue
        if terminated is not None:
            return _terminated_reason(terminated, "Init:")
        if waiting.get("reason") and waiting["reason"] != "PodInitializing":
            return "Init:" + str(waiting["reason"])
        return f"Init:{i}/{total}"
    return None


def _container_reason(pod: Object, reason: str, tally: _Tally) -> str:
    """The reason from the containers (last one wins, as upstream walks them backwards)."""
    running = False
    for container in reversed((pod.get("status") or {}).get("containerStatuses") or []):
        tally.add(container)
        state = container.get("state") or {}
        waiting, terminated = state.get("waiting") or {}, state.get("terminated")
        if waiting.get("reason"):
            reason = str(waiting["reason"])
        elif terminated is not None:
            reason = _terminated_reason(terminated)
        elif container.get("ready") and state.get("running") is not None:
            running = True
            tally.ready += 1
    if reason == "Completed" and running:
        reason = "Running" if _condition_true(pod, "Ready") else "NotReady"
    return reason


def pod_row(pod: Object, now: float) -> tuple[str, str, str]:
    """``(ready, status, restarts)`` cells: e.g. ``("1/2", "Running", "2 (5m ago)")``."""
    spec, status, meta = pod.get("spec") or {}, pod.get("status") or {}, pod.get("metadata") or {}
    phase = str(status.get("phase") or "")
    reason = str(status.get("reason") or phase)
    for condition in status.get("conditions") or []:
        if condition.get("type") == "PodScheduled" and condition.get("reason") == "SchedulingGated":
            reason = "SchedulingGated"
    total = len(spec.get("containers") or []) + len(_restartable_init_names(spec))
    all_restarts, tally = _Tally(), _Tally()
    init_reason = _init_reason(pod, all_restarts, tally)
    if init_reason is None or _condition_true(pod, "Initialized"):
        reason = _container_reason(pod, init_reason or reason, tally)
    else:
        reason, tally = init_reason, _Tally(all_restarts.restarts, all_restarts.last_restart, tally.ready)
    if meta.get("deletionTimestamp") and status.get("reason") == NODE_LOST:
        reason = "Unknown"
    elif meta.get("deletionTimestamp") and phase not in ("Succeeded", "Failed"):
        reason = "Terminating"
    restarts = str(tally.restarts)
    if tally.restarts and tally.last_restart is not None:
        restarts = f"{tally.restarts} ({since(tally.last_restart, now)} ago)"
    return f"{tally.ready}/{total}", reason, restarts


def readiness_gates(pod: Object) -> str:
    """``true/total`` of the readiness gates' conditions, ``<none>`` without gates."""
    gates = (pod.get("spec") or {}).get("readinessGates") or []
    if not gates:
        return "<none>"
    conditions: dict[str, Any] = {}
    for condition in (pod.get("status") or {}).get("conditions") or []:
        conditions.setdefault(condition.get("type"), condition.get("status"))
    true = sum(1 for gate in gates if conditions.get(gate.get("conditionType")) == "True")
    return f"{true}/{len(gates)}"


def pod_ip(pod: Object) -> str:
    """The first of ``status.podIPs`` (or ``status.podIP``); ``<none>`` before one is assigned."""
    status = pod.get("status") or {}
    ips = status.get("podIPs") or []
    ip = (ips[0].get("ip") if ips else None) or status.get("podIP")
    return str(ip) if ip else "<none>"


def pod_cells(pod: Object, now: float) -> list[Any]:
    """Name, Ready, Status, Restarts, Age, IP, Node, Nominated Node, Readiness Gates."""
    meta, spec, status = pod.get("metadata") or {}, pod.get("spec") or {}, pod.get("status") or {}
    ready, reason, restarts = pod_row(pod, now)
    return [
        meta.get("name", ""),
        ready,
        reason,
        restarts,
        age(meta.get("creationTimestamp"), now),
        pod_ip(pod),
        spec.get("nodeName") or "<none>",
        status.get("nominatedNodeName") or "<none>",
        readiness_gates(pod),
    ]
