"""CPU cost of one scheduling cycle, without HTTP: the scheduler's own share of a pod.

    python benchmarks/scheduler_cycle.py --nodes 500 --pods 2000

Builds the default profile's scheduler over FakeClient (no apiserver, no events written),
adds ``--nodes`` Ready nodes (8 CPU / 32 Gi / 110 pods) to its cache, then schedules
``--pods`` pods one cycle at a time: snapshot, PreFilter/Filter, PreScore/Score, select,
assume. Prints milliseconds per cycle and cycles/s; the binding cycle is not run (the
assumed pods stay in the cache, as while their bindings are in flight).
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from minikube_py.cache.factory import SharedInformerFactory
from minikube_py.clock import FakeClock
from minikube_py.events import FakeRecorder
from minikube_py.testing.fakeclient import FakeClient
from scheduler.app import build_scheduler
from scheduler.framework.config import default_profile
from scheduler.framework.cyclestate import CycleState
from scheduler.scheduler import Explanation


def make_node(name: str, cpu: str, memory: str, pods: int) -> dict[str, Any]:
    """A node with ``cpu``/``memory``/``pods`` allocatable (as tests/scheduler/builders makes it)."""
    allocatable = {"cpu": cpu, "memory": memory, "pods": str(pods)}
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name}},
        "spec": {},
        "status": {"allocatable": allocatable, "capacity": dict(allocatable)},
    }


def make_pod(name: str, uid: str, cpu: str, memory: str) -> dict[str, Any]:
    """A pending pod of one container requesting ``cpu`` and ``memory``."""
    container = {"name": "c0", "image": "busybox", "resources": {"requests": {"cpu": cpu, "memory": memory}}}
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": "default", "uid": uid},
        "spec": {"containers": [container]},
    }


async def run(args: argparse.Namespace) -> None:
    fake = FakeClient()
    clock = FakeClock()
    scheduler = build_scheduler(
        fake, SharedInformerFactory(fake, clock=clock), [default_profile()], None, FakeRecorder(), clock
    )
    for i in range(args.nodes):
        scheduler.handlers.node_added(make_node(f"node-{i}", "8", "32Gi", 110))
    fw = scheduler.frameworks["default-scheduler"]
    for i in range(args.pods):
        scheduler.handlers.pod_added(make_pod(f"p-{i}", f"uid-{i}", "100m", "100Mi"))
    placed = 0
    start = time.process_time()
    while placed < args.pods:
        qpi = await scheduler.queue.pop()
        assert qpi is not None
        host = await scheduler._schedule(fw, CycleState(), qpi, Explanation(0))
        assert host is not None
        assumed = {**qpi.pod, "spec": {**qpi.pod["spec"], "nodeName": host}}
        scheduler.cache.assume_pod(assumed)
        scheduler.queue.done(qpi.key)
        placed += 1
    seconds = time.process_time() - start
    print(
        f"{args.nodes} nodes, {args.pods} pods: {seconds / args.pods * 1000:.3f} ms CPU per cycle, "
        f"{args.pods / seconds:.0f} cycles/s"
    )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--nodes", type=int, default=500)
    parser.add_argument("--pods", type=int, default=2000)
    asyncio.run(run(parser.parse_args()))


if __name__ == "__main__":
    main()
