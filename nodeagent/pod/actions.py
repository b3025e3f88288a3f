"""What a sync must do to move a pod toward its spec (upstream ``computePodActions``).

``compute_pod_actions(pod, status, probe_failures)`` compares the pod's spec with what the
runtime runs and answers, without side effects:

- a new sandbox when the pod has none ready (then every container starts over, init ones
  first), except for a ``restartPolicy: Never`` pod whose containers already ran;
- the next init container to run: init containers run one at a time, in order, each to
  success; a failed one is retried unless the policy is Never, which fails the pod;
- the regular containers to start: never started, or exited and the restart policy says so
  (Always; OnFailure after a non-zero exit);
- the running containers to kill: their spec changed (the hash label differs) or their
  liveness probe failed; they restart unless the policy is Never;
- the ephemeral containers to start: those never started (they run once, even before the
  init containers are done, and are never restarted);
- ``kill_pod`` when nothing will run any more (the sandbox is stopped).

Crash-loop backoff is applied by the sync when it starts a container, not here.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass, field

from minikube_py.api.unstructured import Object
from nodeagent.pod.runtimestatus import LABEL_CONTAINER_HASH, PodRuntimeStatus
from nodeagent.runtime.interface import ContainerState, ContainerStatus


@dataclass
class PodActions:
    kill_pod: bool = False
    create_sandbox: bool = False
    sandbox_id: str = ""
    attempt: int = 0  # of the sandbox to create
    next_init_container: Object | None = None
    containers_to_start: list[Object] = field(default_factory=list)
    containers_to_kill: dict[str, str] = field(default_factory=dict)  # container id -> why
    ephemeral_containers_to_start: list[Object] = field(default_factory=list)


def container_hash(container: Object) -> str:
    """A stable hash of a container's spec (upstream ``HashContainer``)."""
    return hashlib.sha256(json.dumps(container, sort_keys=True).encode()).hexdigest()[:16]


def restart_policy(pod: Object) -> str:
    return str((pod.get("spec") or {}).get("restartPolicy") or "Always")


def should_restart(pod: Object, status: ContainerStatus | None) -> bool:
    """Upstream ``ShouldContainerBeRestarted``: a container never started, or one that exited
    and the restart policy wants back."""
    if status is None or status.state is ContainerState.CREATED:
        return True
    if status.state is ContainerState.RUNNING:
        return False
    policy = restart_policy(pod)
    if policy == "Never":
        return False
    if policy == "OnFailure":
        return status.exit_code != 0
    return True


def compute_pod_actions(
    pod: Object, status: PodRuntimeStatus, probe_failures: Mapping[str, str] | None = None
) -> PodActions:
    """See the module docstring; ``probe_failures``: container name -> the probe (liveness or
    startup) that failed it."""
    spec = pod.get("spec") or {}
    init_containers: list[Object] = spec.get("initContainers") or []
    containers: list[Object] = spec.get("containers") or []
    sandbox = status.sandbox
    ready = status.ready_sandbox
    if ready is None:
        attempt = sandbox.attempt + 1 if sandbox is not None else 0
        if restart_policy(pod) == "Never" and attempt and status.containers:
            return PodActions(kill_pod=True)  # it ran; a Never pod is not started again
        actions = PodActions(kill_pod=True, create_sandbox=True, attempt=attempt)
        if init_containers:
            actions.next_init_container = init_containers[0]
        else:
            actions.containers_to_start = list(containers)
        return actions
    actions = PodActions(sandbox_id=ready.id)
    # as upstream: ephemeral containers start once each (never restarted), even before the
    # init containers are done, and never keep a pod running on their own
    for ephemeral in spec.get("ephemeralContainers") or []:
        if status.latest(ephemeral["name"]) is None:
            actions.ephemeral_containers_to_start.append(ephemeral)
    if init_containers and not _initialized(pod, status, init_containers, actions):
        return actions
    keep = 0
    for container in containers:
        current = status.latest(container["name"])
        if current is not None and current.state is ContainerState.RUNNING:
            why = _why_kill(container, current, probe_failures or {})
            if why:
                actions.containers_to_kill[current.id] = why
                if restart_policy(pod) != "Never":
                    actions.containers_to_start.append(container)
            else:
                keep += 1
        elif should_restart(pod, current):
            actions.containers_to_start.append(container)
    if keep == 0 and not actions.containers_to_start:
        actions.kill_pod = True
    return actions


def _initialized(pod: Object, status: PodRuntimeStatus, init: list[Object], actions: PodActions) -> bool:
    """True once every init container succeeded; otherwise sets what to do next."""
    for container in init:
        current = status.latest(container["name"])
        if current is None or current.state is ContainerState.CREATED:
            actions.next_init_container = container
            return False
        if current.state is ContainerState.RUNNING:
            return False  # still running: wait for it
        if current.exit_code != 0:
            if restart_policy(pod) == "Never":
                actions.kill_pod = True  # the pod has failed
            else:
                actions.next_init_container = container
            return False
    return True


def _why_kill(container: Object, current: ContainerStatus, probe_failures: Mapping[str, str]) -> str:
    if current.labels.get(LABEL_CONTAINER_HASH, container_hash(container)) != container_hash(container):
        return f"Container {container['name']} definition changed"
    if container["name"] in probe_failures:
        return f"Container {container['name']} failed {probe_failures[container['name']]} probe"
    return ""
