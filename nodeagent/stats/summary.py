"""The Summary API of one node (upstream kubelet ``/stats/summary``, ``stats/v1alpha1``).

``SummaryProvider.summary()`` samples the runtime's ``container_stats()`` (usage of every
running container), groups the containers into pods by their ``io.kubernetes.*`` labels (as
upstream's CRI stats provider does), and asks its ``HostStats`` for the node's own numbers.
CPU rates come from the delta between two samples (``CpuRates``); the provider keeps the
previous sample, so whoever asks (the apiserver for ``kubectl top``, the eviction manager
every 10 s) sees rates over at least a second. ``summary_json`` renders upstream's JSON.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import Any

from minikube_py.api.timestamps import format_rfc3339
from minikube_py.api.unstructured import Object
from minikube_py.clock import Clock
from nodeagent.pod.runtimestatus import (
    LABEL_CONTAINER_NAME,
    LABEL_POD_NAME,
    LABEL_POD_NAMESPACE,
    LABEL_POD_UID,
)
from nodeagent.runtime.interface import ContainerRuntime, ContainerStatus
from nodeagent.stats.host import HostStats
from nodeagent.stats.simulated import simulated_usage
from nodeagent.stats.usage import ContainerUsage, CpuRates, NodeUsage, PodUsage, Summary

NODE_KEY = "node"


class SummaryProvider:
    """Usage of node ``node_name``: its pods from ``runtime``, its own from ``host``."""

    def __init__(
        self,
        node_name: str,
        runtime: ContainerRuntime,
        host: HostStats,
        clock: Clock,
        pods: Callable[[], Mapping[str, Object]] | None = None,
    ) -> None:
        """``pods`` gives the node's pods by uid, whose annotations may script their usage
        (``simulated``)."""
        self.pods = pods or dict
        self.node_name = node_name
        self.runtime = runtime
        self.host = host
        self.clock = clock
        self.rates = CpuRates()

    async def summary(self) -> Summary:
        stats = {s.container_id: s for s in await self.runtime.container_stats()}
        containers = {c.id: c for c in await self.runtime.list_containers() if c.id in stats}
        sandboxes = {s.uid: s.created_at for s in await self.runtime.list_pod_sandboxes()}
        now = self.clock.now()
        known = self.pods()
        by_pod: dict[str, list[tuple[ContainerStatus, ContainerUsage]]] = {}
        for cid, status in containers.items():
            sample = stats[cid]
            usage = ContainerUsage(
                name=status.labels.get(LABEL_CONTAINER_NAME, status.name),
                start_time=status.started_at,
                cpu_usage_nano_cores=self.rates.rate(
                    cid, sample.cpu_usage_core_nanoseconds, sample.timestamp, status.started_at or None
                ),
                cpu_usage_core_nanoseconds=sample.cpu_usage_core_nanoseconds,
                memory_working_set_bytes=sample.memory_working_set_bytes,
            )
            cpu, memory = simulated_usage(known.get(status.labels.get(LABEL_POD_UID, "")))
            if cpu is not None or memory is not None:
                usage = replace(
                    usage,
                    cpu_usage_nano_cores=usage.cpu_usage_nano_cores if cpu is None else cpu,
                    memory_working_set_bytes=usage.memory_working_set_bytes if memory is None else memory,
                )
            by_pod.setdefault(status.labels.get(LABEL_POD_UID, ""), []).append((status, usage))
        pods = tuple(_pod(uid, found, sandboxes.get(uid, now)) for uid, found in by_pod.items() if uid)
        self.rates.retain({*containers, NODE_KEY})
        host = self.host.sample(pods, now)
        cores = host.cpu_usage_nano_cores
        if cores is None:
            cores = self.rates.rate(NODE_KEY, host.cpu_usage_core_nanoseconds, now, host.start_time)
        node = NodeUsage(
            self.node_name, host.start_time, cores, host.cpu_usage_core_nanoseconds,
            host.memory_working_set_bytes, host.memory_available_bytes,
            host.fs_capacity_bytes, host.fs_available_bytes,
        )  # fmt: skip
        return Summary(now, node, pods)


def _pod(uid: str, found: Sequence[tuple[ContainerStatus, ContainerUsage]], started: float) -> PodUsage:
    labels = found[0][0].labels
    return PodUsage(
        name=labels.get(LABEL_POD_NAME, ""),
        namespace=labels.get(LABEL_POD_NAMESPACE, ""),
        uid=uid,
        start_time=started,
        containers=tuple(sorted((usage for _, usage in found), key=lambda c: c.name)),
        ephemeral_storage_bytes=sum(_log_bytes(status.log_path) for status, _ in found),
    )


def _log_bytes(path: str) -> int:
    """Bytes of a container's log files (the current one and its rotations)."""
    if not path:
        return 0
    directory, base = os.path.split(path)
    try:
        return sum(e.stat().st_size for e in os.scandir(directory) if e.name.startswith(base))
    except OSError:
        return 0


def summary_json(summary: Summary) -> dict[str, Any]:
    """Upstream's ``Summary`` JSON: ``node`` and ``pods`` with ``cpu``, ``memory``, ``fs``."""
    at = format_rfc3339(summary.time)
    node = summary.node
    return {
        "node": {
            "nodeName": node.name,
            "startTime": format_rfc3339(node.start_time),
            "cpu": _cpu(at, node.cpu_usage_nano_cores, node.cpu_usage_core_nanoseconds),
            "memory": {
                "time": at,
                "availableBytes": node.memory_available_bytes,
                "usageBytes": node.memory_working_set_bytes,
                "workingSetBytes": node.memory_working_set_bytes,
            },
            "fs": {
                "time": at,
                "availableBytes": node.fs_available_bytes,
                "capacityBytes": node.fs_capacity_bytes,
                "usedBytes": max(0, node.fs_capacity_bytes - node.fs_available_bytes),
            },
        },
        "pods": [_pod_json(at, pod) for pod in summary.pods],
    }


def _pod_json(at: str, pod: PodUsage) -> dict[str, Any]:
    containers = [
        {
            "name": c.name,
            "startTime": format_rfc3339(c.start_time),
            "cpu": _cpu(at, c.cpu_usage_nano_cores, c.cpu_usage_core_nanoseconds),
            "memory": _memory(at, c.memory_working_set_bytes),
        }
        for c in pod.containers
    ]
    return {
        "podRef": {"name": pod.name, "namespace": pod.namespace, "uid": pod.uid},
        "startTime": format_rfc3339(pod.start_time),
        "containers": containers,
        "cpu": _cpu(at, pod.cpu_usage_nano_cores, pod.cpu_usage_core_nanoseconds),
        "memory": _memory(at, pod.memory_working_set_bytes),
        "ephemeral-storage": {"time": at, "usedBytes": pod.ephemeral_storage_bytes},
    }


def _cpu(at: str, nano_cores: int, core_ns: int) -> dict[str, Any]:
    return {"time": at, "usageNanoCores": nano_cores, "usageCoreNanoSeconds": core_ns}


def _memory(at: str, working_set: int) -> dict[str, Any]:
    return {"time": at, "usageBytes": working_set, "workingSetBytes": working_set}
