"""What the cluster benchmarks share: a process's CPU seconds from ``/proc`` (Linux only),
Ready checks on nodes and pods, and waiting for a freshly started cluster's nodes.

A sibling module, not a package: each benchmark runs as ``python benchmarks/<file>.py``, so
``benchmarks/`` is on ``sys.path`` and this is imported as ``benchutil``."""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from minikube_py.client import RESTClient
from minikube_py.client.resourcetypes import NODES, PODS, SERVICEACCOUNTS

TICKS = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid: int) -> float:
    """User plus system CPU seconds of the process ``pid`` so far (``/proc/<pid>/stat``)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


def _condition_true(obj: dict[str, Any], kind: str) -> bool:
    conditions = (obj.get("status") or {}).get("conditions") or []
    return any(c.get("type") == kind and c.get("status") == "True" for c in conditions)


def is_node_ready(node: dict[str, Any]) -> bool:
    """The node's ``Ready`` condition is True."""
    return _condition_true(node, "Ready")


def is_pod_ready(pod: dict[str, Any]) -> bool:
    """The pod's ``Ready`` condition is True."""
    return _condition_true(pod, "Ready")


async def wait_for_nodes(client: RESTClient, count: int, namespace: str = "default") -> None:
    """Until ``count`` nodes are Ready and ``namespace``'s default service account exists
    (pods are refused before it does); exits the benchmark after 120 s."""
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        nodes = (await client.resource(NODES).list())["items"]
        ready = [n for n in nodes if is_node_ready(n)]
        accounts = (await client.resource(SERVICEACCOUNTS, namespace).list())["items"]
        if len(ready) >= count and accounts:
            return
        await asyncio.sleep(0.5)
    raise SystemExit(f"fewer than {count} nodes Ready after 120 s")


async def watch_pods(
    client: RESTClient, namespace: str, prefix: str, resource_version: str
) -> AsyncIterator[tuple[str, dict[str, Any], float]]:
    """Every change of a pod named ``prefix...`` in ``namespace`` after ``resource_version``,
    as (name, pod, monotonic time seen); the watch is resumed where it ended, forever."""
    pods = client.resource(PODS, namespace)
    while True:
        async for event in pods.watch(resource_version=resource_version, timeout_seconds=600):
            obj = event.object
            resource_version = obj["metadata"]["resourceVersion"]
            name = obj["metadata"]["name"]
            if name.startswith(prefix):
                yield name, obj, time.monotonic()
