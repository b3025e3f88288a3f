"""One pod as the runtime sees it: its sandboxes and containers (upstream ``kubecontainer.PodStatus``).

Containers carry labels naming their pod and container (as upstream's ``io.kubernetes.*``
labels), so the agent finds a pod's state again after a restart of its own.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from nodeagent.runtime.interface import ContainerState, ContainerStatus, PodSandboxStatus, SandboxState

LABEL_POD_UID = "io.kubernetes.pod.uid"
LABEL_POD_NAME = "io.kubernetes.pod.name"
LABEL_POD_NAMESPACE = "io.kubernetes.pod.namespace"
LABEL_CONTAINER_NAME = "io.kubernetes.container.name"
LABEL_CONTAINER_HASH = "io.kubernetes.container.hash"


@dataclass
class PodRuntimeStatus:
    """A pod's sandboxes (newest first) and containers (per name, newest attempt first)."""

    uid: str
    sandboxes: list[PodSandboxStatus] = field(default_factory=list)
    containers: list[ContainerStatus] = field(default_factory=list)

    @property
    def sandbox(self) -> PodSandboxStatus | None:
        return self.sandboxes[0] if self.sandboxes else None

    @property
    def ready_sandbox(self) -> PodSandboxStatus | None:
        sandbox = self.sandbox
        return sandbox if sandbox is not None and sandbox.state is SandboxState.READY else None

    @property
    def ip(self) -> str:
        sandbox = self.ready_sandbox
        return sandbox.ip if sandbox is not None else ""

    def latest(self, name: str) -> ContainerStatus | None:
        """The newest container named ``name`` (the current one, or the last that ran)."""
        return next((c for c in self.containers if c.name == name), None)

    def previous(self, name: str) -> ContainerStatus | None:
        """The container named ``name`` before the latest (for ``lastState``)."""
        found = [c for c in self.containers if c.name == name]
        return found[1] if len(found) > 1 else None

    def running(self) -> list[ContainerStatus]:
        return [c for c in self.containers if c.state is ContainerState.RUNNING]


def group_by_pod(
    sandboxes: Iterable[PodSandboxStatus], containers: Iterable[ContainerStatus]
) -> dict[str, PodRuntimeStatus]:
    """Every pod the runtime knows, by uid."""
    pods: dict[str, PodRuntimeStatus] = {}
    for sandbox in sandboxes:
        pods.setdefault(sandbox.uid, PodRuntimeStatus(sandbox.uid)).sandboxes.append(sandbox)
    for container in containers:
        uid = container.labels.get(LABEL_POD_UID, "")
        pods.setdefault(uid, PodRuntimeStatus(uid)).containers.append(container)
    for pod in pods.values():
        pod.sandboxes.sort(key=lambda s: (s.attempt, s.created_at), reverse=True)
        pod.containers.sort(key=lambda c: (c.attempt, c.created_at), reverse=True)
    return pods
