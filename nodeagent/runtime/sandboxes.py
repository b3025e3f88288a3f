"""``Sandboxes``: the pod sandbox table both runtimes keep (upstream's CRI ``RunPodSandbox``,
``StopPodSandbox``, ``RemovePodSandbox``, ``ListPodSandbox`` bookkeeping): ids, states and
the pod IP each ready sandbox holds. Stopping and removing the sandbox's containers is the
runtime's own business; it calls ``stopped``/``removed`` once they are done."""

from __future__ import annotations

import uuid
from dataclasses import replace

from nodeagent.runtime.interface import (
    CreateContainerError,
    PodSandboxConfig,
    PodSandboxStatus,
    SandboxState,
)
from nodeagent.runtime.podip import PodIPAllocator


class Sandboxes:
    """Sandboxes by id; ``ips`` hands out their pod IPs."""

    def __init__(self, pod_cidr: str) -> None:
        self.ips = PodIPAllocator(pod_cidr)
        self._by_id: dict[str, PodSandboxStatus] = {}
        self._configs: dict[str, PodSandboxConfig] = {}  # what each was created with

    def run(self, config: PodSandboxConfig, now: float) -> str:
        """A new READY sandbox with a pod IP; raises ``PodIPExhaustedError`` when none is free."""
        sandbox_id = uuid.uuid4().hex
        self._by_id[sandbox_id] = PodSandboxStatus(
            sandbox_id, config.uid, config.name, config.namespace, config.attempt,
            SandboxState.READY, self.ips.allocate(), now,
        )  # fmt: skip
        self._configs[sandbox_id] = config
        return sandbox_id

    def config(self, sandbox_id: str) -> PodSandboxConfig | None:
        """The config the sandbox was created with (its DNS config, hostname...)."""
        return self._configs.get(sandbox_id)

    def get(self, sandbox_id: str) -> PodSandboxStatus | None:
        return self._by_id.get(sandbox_id)

    def ready(self, sandbox_id: str) -> PodSandboxStatus:
        """The sandbox a container is created in; ``CreateContainerError`` unless READY."""
        sandbox = self._by_id.get(sandbox_id)
        if sandbox is None or sandbox.state is not SandboxState.READY:
            raise CreateContainerError(f"sandbox {sandbox_id} is not ready")
        return sandbox

    def stopped(self, sandbox_id: str) -> None:
        """NOTREADY, its pod IP released (its containers are stopped)."""
        sandbox = self._by_id.get(sandbox_id)
        if sandbox is not None:
            self.ips.release(sandbox.ip)
            self._by_id[sandbox_id] = replace(sandbox, state=SandboxState.NOTREADY, ip="")

    def removed(self, sandbox_id: str) -> None:
        self._by_id.pop(sandbox_id, None)
        self._configs.pop(sandbox_id, None)

    def ids(self) -> list[str]:
        return list(self._by_id)

    def list(self) -> list[PodSandboxStatus]:
        return list(self._by_id.values())
