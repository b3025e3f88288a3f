"""A pod's API status from what the runtime runs (upstream ``generateAPIPodStatus``, ``getPhase``).

``generate_pod_status`` is pure: the pod, its runtime status, the reasons the agent recorded
for containers it could not start (``waiting``: name -> (reason, message), e.g.
``CrashLoopBackOff``), the probe results (``ready``/``started`` container names) and the
node's IP give the ``status`` to write:

- ``phase``: Pending until the init containers succeeded and every container ran; Running while
  one runs (or will be restarted); Succeeded/Failed once all stopped for good (by the restart
  policy), Failed when any failed;
- ``conditions``: PodReadyToStartContainers, Initialized, ContainersReady, Ready, PodScheduled
  (the scheduler's is kept; True when missing), with upstream's reasons and messages, each keeping its
  ``lastTransitionTime`` while its status does not change;
- ``initContainerStatuses``/``containerStatuses``/``ephemeralContainerStatuses``: state,
  lastState, ready (never for ephemeral containers), started, restartCount, containerID
  (``<runtime>://<id>``);
- ``podIP``/``podIPs``, ``hostIP``/``hostIPs``, ``startTime`` (kept once set), ``qosClass`` (the
  apiserver's, kept).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping

from minikube_py.api.timestamps import format_rfc3339
from minikube_py.api.unstructured import Object
from nodeagent.pod.actions import restart_policy
from nodeagent.pod.runtimestatus import PodRuntimeStatus
from nodeagent.runtime.interface import ContainerState, ContainerStatus

Waiting = Mapping[str, tuple[str, str]]


def generate_pod_status(
    pod: Object,
    runtime: PodRuntimeStatus,
    *,
    runtime_name: str,
    host_ip: str,
    now: float,
    waiting: Waiting | None = None,
    ready: Collection[str] | None = None,
    started: Collection[str] | None = None,
) -> Object:
    """See the module docstring. ``ready``/``started`` None: every running container is ready
    and started (no probes)."""
    spec, old = pod.get("spec") or {}, pod.get("status") or {}
    waiting = waiting or {}
    init = spec.get("initContainers") or []
    initialized = all(_succeeded(runtime.latest(c["name"])) for c in init)
    init_statuses = [
        _container_status(c, runtime, runtime_name, waiting, None, None, "PodInitializing") for c in init
    ]
    default_wait = "ContainerCreating" if initialized and runtime.ready_sandbox else "PodInitializing"
    statuses = [
        _container_status(c, runtime, runtime_name, waiting, ready, started, default_wait)
        for c in spec.get("containers") or []
    ]
    phase = pod_phase(pod, runtime, initialized)
    status: Object = {"phase": phase}
    if old.get("qosClass"):
        status["qosClass"] = old["qosClass"]
    status["conditions"] = _conditions(old, runtime, init_statuses, statuses, phase, now)
    status["hostIP"] = host_ip
    status["hostIPs"] = [{"ip": host_ip}]
    ip = runtime.ip or (old.get("podIP") if phase in ("Succeeded", "Failed") else "")
    if ip:
        status["podIP"] = ip
        status["podIPs"] = [{"ip": ip}]
    status["startTime"] = old.get("startTime") or format_rfc3339(now)
    if init_statuses:
        status["initContainerStatuses"] = init_statuses
    status["containerStatuses"] = statuses
    ephemeral = [
        _container_status(c, runtime, runtime_name, waiting, (), None, "ContainerCreating")
        for c in spec.get("ephemeralContainers") or []
    ]
    if ephemeral:  # never ready; not part of the phase or the conditions
        status["ephemeralContainerStatuses"] = ephemeral
    return status


def pod_phase(pod: Object, runtime: PodRuntimeStatus, initialized: bool) -> str:
    """Upstream ``getPhase`` for the regular containers, after the init containers."""
    spec = pod.get("spec") or {}
    policy = restart_policy(pod)
    for container in spec.get("initContainers") or []:
        current = runtime.latest(container["name"])
        failed = current is not None and current.state is ContainerState.EXITED and current.exit_code != 0
        if failed and policy == "Never":
            return "Failed"
    if not initialized:
        return "Pending"
    running = waiting = stopped = succeeded = 0
    for container in spec.get("containers") or []:
        current = runtime.latest(container["name"])
        if current is None or current.state is ContainerState.CREATED:
            waiting += 1
        elif current.state is ContainerState.RUNNING:
            running += 1
        else:
            stopped += 1
            succeeded += current.exit_code == 0
    if waiting:
        return "Pending"
    if running:
        return "Running"
    if stopped:
        if policy == "Always":
            return "Running"
        if policy == "OnFailure" and succeeded < stopped:
            return "Running"
        return "Succeeded" if succeeded == stopped else "Failed"
    return "Pending"


def _succeeded(status: ContainerStatus | None) -> bool:
    return status is not None and status.state is ContainerState.EXITED and status.exit_code == 0


def _container_status(
    container: Object,
    runtime: PodRuntimeStatus,
    runtime_name: str,
    waiting: Waiting,
    ready: Collection[str] | None,
    started: Collection[str] | None,
    default_wait: str,
) -> Object:
    name = container["name"]
    current, previous = runtime.latest(name), runtime.previous(name)
    out: Object = {"name": name, "image": container.get("image", ""), "imageID": ""}
    state: Object
    last: Object = {}
    is_running = current is not None and current.state is ContainerState.RUNNING
    if current is None or current.state is ContainerState.CREATED:
        reason, message = waiting.get(name, (default_wait, ""))
        state = {"waiting": _without_empty({"reason": reason, "message": message})}
        if previous is not None:
            last = {"terminated": _terminated(previous, runtime_name)}
    elif is_running:
        state = {"running": {"startedAt": format_rfc3339(current.started_at)}}
        if previous is not None:
            last = {"terminated": _terminated(previous, runtime_name)}
    elif name in waiting:  # exited, waiting to be restarted (CrashLoopBackOff)
        reason, message = waiting[name]
        state = {"waiting": _without_empty({"reason": reason, "message": message})}
        last = {"terminated": _terminated(current, runtime_name)}
    else:
        state = {"terminated": _terminated(current, runtime_name)}
        if previous is not None:
            last = {"terminated": _terminated(previous, runtime_name)}
    out["state"], out["lastState"] = state, last
    out["ready"] = is_running and (ready is None or name in ready)
    out["restartCount"] = current.attempt if current is not None else 0
    out["started"] = is_running and (started is None or name in started)
    if current is not None:
        out["containerID"] = f"{runtime_name}://{current.id}"
    return out


def _terminated(status: ContainerStatus, runtime_name: str) -> Object:
    out: Object = {"exitCode": status.exit_code, "reason": status.reason or "Error"}
    if status.message:
        out["message"] = status.message
    if status.started_at:
        out["startedAt"] = format_rfc3339(status.started_at)
    out["finishedAt"] = format_rfc3339(status.finished_at or status.created_at)
    out["containerID"] = f"{runtime_name}://{status.id}"
    return out


def _without_empty(values: dict[str, str]) -> Object:
    return {k: v for k, v in values.items() if v}


def _conditions(
    old: Object,
    runtime: PodRuntimeStatus,
    init_statuses: list[Object],
    statuses: list[Object],
    phase: str,
    now: float,
) -> list[Object]:
    previous = {c.get("type"): c for c in old.get("conditions") or []}
    incomplete = [s["name"] for s in init_statuses if "terminated" not in s["state"]]
    incomplete += [
        s["name"] for s in init_statuses if s["state"].get("terminated", {}).get("exitCode", 0) != 0
    ]
    unready = [s["name"] for s in statuses if not s["ready"]]
    sandbox_ready = runtime.ready_sandbox is not None
    wanted: list[tuple[str, bool, str, str]] = [
        ("PodReadyToStartContainers", sandbox_ready, "", ""),
        ("Initialized", not incomplete, "ContainersNotInitialized", _message("incomplete", incomplete)),
    ]
    if phase == "Succeeded":
        wanted += [("Ready", False, "PodCompleted", ""), ("ContainersReady", False, "PodCompleted", "")]
    else:
        message = _message("unready", unready)
        wanted += [
            ("Ready", not unready, "ContainersNotReady", message),
            ("ContainersReady", not unready, "ContainersNotReady", message),
        ]
    # the scheduler's condition is kept; a pod bound without it (spec.nodeName) gets it True
    scheduled = previous.get("PodScheduled") or {
        "type": "PodScheduled",
        "status": "True",
        "lastProbeTime": None,
        "lastTransitionTime": format_rfc3339(now),
    }
    out = [scheduled]
    for kind, ok, reason, message in wanted:
        condition: Object = {"type": kind, "status": "True" if ok else "False", "lastProbeTime": None}
        if not ok and reason:
            condition["reason"] = reason
        if not ok and message:
            condition["message"] = message
        before = previous.get(kind)
        same = before is not None and before.get("status") == condition["status"]
        kept = before.get("lastTransitionTime") if same and before is not None else None
        condition["lastTransitionTime"] = kept or format_rfc3339(now)
        out.append(condition)
    return out


def _message(kind: str, names: list[str]) -> str:
    return f"containers with {kind} status: [{' '.join(names)}]" if names else ""
