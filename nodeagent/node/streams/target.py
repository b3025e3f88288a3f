"""What the streaming endpoints know of a pod: a ``StreamLookup`` ``(namespace, name) ->
StreamTarget | None`` that the agent assembles from its pod informer and runtimes (None: the
pod is not on this node)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from nodeagent.runtime.interface import ContainerRuntime, SandboxState


@dataclass(frozen=True)
class StreamTarget:
    uid: str
    runtime: ContainerRuntime  # the runtime of the pod's node
    container_statuses: Sequence[dict[str, Any]]  # v1 ContainerStatus objects of every kind
    full_name: str = ""  # upstream's pod full name, <name>_<namespace>

    def running_container_id(self, name: str) -> str | None:
        """The runtime's id of container ``name`` if its status says it runs."""
        for status in self.container_statuses:
            if status.get("name") == name and "running" in (status.get("state") or {}):
                container_id = str(status.get("containerID") or "")
                return container_id.split("://", 1)[-1] or None
        return None


StreamLookup = Callable[[str, str], StreamTarget | None]
STATUS_KEYS = ("initContainerStatuses", "containerStatuses", "ephemeralContainerStatuses")


async def ready_sandbox(target: StreamTarget) -> str | None:
    """The id of the runtime's ready sandbox of the pod (None: the pod does not run here)."""
    for sandbox in await target.runtime.list_pod_sandboxes():
        if sandbox.uid == target.uid and sandbox.state is SandboxState.READY:
            return sandbox.id
    return None


def stream_lookup(
    get_pod: Callable[[str], dict[str, Any] | None], runtimes: Mapping[str, ContainerRuntime]
) -> StreamLookup:
    """A lookup over an informer's ``get_by_key`` (``namespace/name``) and the runtime of each
    node by name (filled in as the nodes are set up)."""

    def lookup(namespace: str, name: str) -> StreamTarget | None:
        pod = get_pod(f"{namespace}/{name}")
        if pod is None:
            return None
        runtime = runtimes.get((pod.get("spec") or {}).get("nodeName", ""))
        if runtime is None:
            return None
        status = pod.get("status") or {}
        statuses = [
            s for key in STATUS_KEYS for s in status.get(key) or []
        ]  # fmt: skip
        meta = pod["metadata"]
        return StreamTarget(meta["uid"], runtime, statuses, f"{name}_{namespace}")

    return lookup
