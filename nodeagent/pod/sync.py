"""Sync one pod: carry out ``compute_pod_actions`` against the runtime (upstream ``SyncPod``).

``PodSyncer.sync_pod(pod, status)`` kills what must go, creates the sandbox (after preparing
the pod's volumes) or refreshes the volumes of the running sandbox, then starts the next init
container or the containers to start, each through crash-loop backoff; ``kill_pod`` stops
every container (SIGTERM, the grace period, SIGKILL) and the sandbox. What could not be done
is reported, not raised: the returned ``SyncResult`` holds the waiting reason of each
container that could not start and when the pod should be synced again. Every step is an
Event on the pod, with upstream's reasons
(Pulled, Created, Started, Killing, BackOff, Failed, FailedMount).

The container environment (volumes, env, command) comes from a ``PodEnvironment``, so the
sync logic is tested with the fake runtime and a stub environment.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Protocol

from minikube_py.api.unstructured import Object
from minikube_py.clock import Clock
from minikube_py.events import Recorder
from nodeagent.pod.actions import compute_pod_actions
from nodeagent.pod.backoff import Backoff
from nodeagent.pod.dnsconfig import DNSConfigurer
from nodeagent.pod.runtimestatus import PodRuntimeStatus
from nodeagent.runtime.interface import (
    ContainerConfig,
    ContainerRuntime,
    ContainerState,
    PodSandboxConfig,
    RuntimeError_,
)

log = logging.getLogger("nodeagent.sync")
DEFAULT_GRACE = 30


class ConfigError(Exception):
    """A container cannot be configured; ``reason`` (CreateContainerConfigError, ...) becomes
    its waiting reason and the message its event."""

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason


class VolumeError(Exception):
    """A volume could not be set up; the message is upstream's FailedMount message."""


class PodEnvironment(Protocol):
    """What a container gets from its pod: volumes, env, command (see ``containerconfig``)."""

    async def prepare_pod(self, pod: Object) -> None:
        """Set up the pod's volumes. Raises ``VolumeError``."""
        ...

    async def refresh_pod(self, pod: Object) -> None:
        """Bring the running pod's configMap, secret, downwardAPI and projected volumes up to
        date (its sources or its metadata may have changed). Raises ``VolumeError``."""
        ...

    async def container_config(
        self, pod: Object, container: Object, *, pod_ip: str, attempt: int, log_directory: str
    ) -> ContainerConfig:
        """Raises ``ConfigError``."""
        ...

    def log_directory(self, pod: Object) -> str: ...

    async def cleanup_pod(self, pod: Object) -> None:
        """Remove the pod's volumes and logs (the pod is gone)."""
        ...


@dataclass
class SyncResult:
    waiting: dict[str, tuple[str, str]] = field(default_factory=dict)  # container -> (reason, message)
    requeue_after: float | None = None  # sync again after this many seconds


class PodSyncer:
    def __init__(
        self,
        runtime: ContainerRuntime,
        environment: PodEnvironment,
        recorder: Recorder,
        clock: Clock,
        backoff: Backoff | None = None,
        dns: DNSConfigurer | None = None,
    ) -> None:
        """``dns``: the pods' resolver configuration (None: the runtime's default, the node's)."""
        self.runtime = runtime
        self.environment = environment
        self.recorder = recorder
        self.clock = clock
        self.backoff = backoff or Backoff(clock)
        self.dns = dns

    async def sync_pod(
        self, pod: Object, status: PodRuntimeStatus, probe_failures: Mapping[str, str] | None = None
    ) -> SyncResult:
        actions = compute_pod_actions(pod, status, probe_failures)
        result = SyncResult()
        if actions.kill_pod:
            await self.kill_pod(pod, status, grace=_grace(pod))
            if not actions.create_sandbox:
                return result
        else:
            for container_id, why in actions.containers_to_kill.items():
                await self._kill_container(pod, status, container_id, why, _grace(pod))
        sandbox_id, ip = actions.sandbox_id, status.ip
        if not actions.create_sandbox and sandbox_id:
            await self._refresh_volumes(pod)
        if actions.create_sandbox:
            created = await self._create_sandbox(pod, actions.attempt, result)
            if created is None:
                return result
            sandbox_id, ip = created
        to_start = (
            [actions.next_init_container] if actions.next_init_container else actions.containers_to_start
        )
        for container in to_start:
            await self._start_container(pod, container, status, sandbox_id, ip, result)
        for container in actions.ephemeral_containers_to_start:
            if not actions.kill_pod:
                await self._start_container(pod, container, status, sandbox_id, ip, result)
        return result

    async def kill_pod(self, pod: Object, status: PodRuntimeStatus, *, grace: float) -> None:
        """Stop every running container (in parallel) and then the sandbox."""
        stops = [
            self._kill_container(pod, status, c.id, "", grace)
            for c in status.containers
            if c.state is ContainerState.RUNNING
        ]
        await asyncio.gather(*stops)
        for sandbox in status.sandboxes:
            await self.runtime.stop_pod_sandbox(sandbox.id)

    async def _kill_container(
        self, pod: Object, status: PodRuntimeStatus, container_id: str, why: str, grace: float
    ) -> None:
        name = next((c.name for c in status.containers if c.id == container_id), "")
        message = f"{why}, will be restarted" if why else f"Stopping container {name}"
        self.recorder.event(pod, "Normal", "Killing", message)
        await self.runtime.stop_container(container_id, grace)

    async def _refresh_volumes(self, pod: Object) -> None:
        """As upstream's remount on every sync: a volume that cannot be refreshed keeps its
        files and the containers keep running; the failure is a FailedMount event."""
        try:
            await self.environment.refresh_pod(pod)
        except VolumeError as err:
            self.recorder.event(pod, "Warning", "FailedMount", str(err))

    async def _create_sandbox(self, pod: Object, attempt: int, result: SyncResult) -> tuple[str, str] | None:
        meta = pod["metadata"]
        try:
            await self.environment.prepare_pod(pod)
        except VolumeError as err:
            self.recorder.event(pod, "Warning", "FailedMount", str(err))
            result.requeue_after = 2.0
            return None
        config = PodSandboxConfig(
            uid=meta["uid"],
            name=meta["name"],
            namespace=meta["namespace"],
            attempt=attempt,
            hostname=pod_hostname(pod),
            share_process_namespace=bool(pod.get("spec", {}).get("shareProcessNamespace")),
            log_directory=self.environment.log_directory(pod),
            dns_config=self.dns.pod_dns(pod) if self.dns is not None else None,
        )
        try:
            sandbox_id = await self.runtime.run_pod_sandbox(config)
        except RuntimeError_ as err:
            message = f"Failed to create pod sandbox: {err}"
            self.recorder.event(pod, "Warning", "FailedCreatePodSandBox", message)
            result.requeue_after = 5.0
            return None
        sandboxes = await self.runtime.list_pod_sandboxes()
        ip = next((s.ip for s in sandboxes if s.id == sandbox_id), "")
        return sandbox_id, ip

    async def _start_container(
        self,
        pod: Object,
        container: Object,
        status: PodRuntimeStatus,
        sandbox_id: str,
        ip: str,
        result: SyncResult,
    ) -> None:
        name, meta = container["name"], pod["metadata"]
        current = status.latest(name)
        if current is not None and current.state is ContainerState.EXITED:
            key = f"{meta['uid']}/{name}"
            if self.backoff.in_backoff_since(key, current.finished_at):
                delay = self.backoff.delay(key)
                pod_ref = f"{meta['name']}_{meta['namespace']}({meta['uid']})"
                message = f"back-off {_duration(delay)} restarting failed container={name} pod={pod_ref}"
                result.waiting[name] = ("CrashLoopBackOff", message)
                self.recorder.event(
                    pod, "Warning", "BackOff", f"Back-off restarting failed container {name} in pod {pod_ref}"
                )
                remaining = current.finished_at + delay - self.clock.now()
                result.requeue_after = min(result.requeue_after or remaining, remaining)
                return
            self.backoff.next(key, current.finished_at)
        attempt = current.attempt + 1 if current is not None else 0
        try:
            config = await self.environment.container_config(
                pod, container, pod_ip=ip, attempt=attempt, log_directory=self.environment.log_directory(pod)
            )
        except ConfigError as err:
            result.waiting[name] = (err.reason, str(err))
            self.recorder.event(pod, "Warning", "Failed", f"Error: {err}")
            result.requeue_after = min(result.requeue_after or 2.0, 2.0)
            return
        if target := container.get("targetContainerName"):
            # CRI: the ephemeral container joins the target's PID namespace, if it runs
            running = status.latest(str(target))
            if running is not None and running.state is ContainerState.RUNNING:
                config = dataclasses.replace(config, target_container_id=running.id)
        image = container.get("image", "")
        self.recorder.event(pod, "Normal", "Pulled", f'Container image "{image}" already present on machine')
        try:
            container_id = await self.runtime.create_container(sandbox_id, config)
        except RuntimeError_ as err:
            result.waiting[name] = (err.reason, str(err))
            self.recorder.event(pod, "Warning", "Failed", f"Error: {err}")
            return
        self.recorder.event(pod, "Normal", "Created", f"Created container: {name}")
        try:
            await self.runtime.start_container(container_id)
        except RuntimeError_ as err:  # the container is EXITED with reason StartError
            self.recorder.event(pod, "Warning", "Failed", f"Error: {err}")
            return
        self.recorder.event(pod, "Normal", "Started", f"Started container {name}")


def _grace(pod: Object) -> float:
    meta, spec = pod.get("metadata") or {}, pod.get("spec") or {}
    grace = meta.get("deletionGracePeriodSeconds")
    if grace is None:
        grace = spec.get("terminationGracePeriodSeconds")
    return float(DEFAULT_GRACE if grace is None else grace)


def _duration(seconds: float) -> str:
    """Go's duration format for whole seconds and minutes: 10s, 1m20s, 5m0s."""
    whole = int(seconds)
    return f"{whole // 60}m{whole % 60}s" if whole >= 60 else f"{whole}s"


def pod_hostname(pod: Object) -> str:
    """The pod's hostname (upstream ``GeneratePodHostNameAndDomain``): ``spec.hostname`` or the
    pod's name, cut to 63 characters without a trailing ``-`` or ``.``."""
    name = str(pod.get("spec", {}).get("hostname") or pod["metadata"]["name"])
    return name[:63].rstrip("-.") if len(name) > 63 else name
