"""A test stand-in for node agents (issue 7 builds the real ones): a thread that reports every
pod of one namespace Running and Ready through ``pods/status``, as a kubelet would once its
containers started, so rollouts can complete. It writes as the cluster admin."""

from __future__ import annotations

import contextlib
import threading
import time
from datetime import UTC, datetime

import httpx

from tests.cluster import Cluster


def ready_status(pod: dict[str, object]) -> dict[str, object]:
    now = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    spec = pod.get("spec") or {}
    assert isinstance(spec, dict)
    containers = [
        {
            "name": c["name"],
            "image": c.get("image", ""),
            "imageID": "",
            "ready": True,
            "started": True,
            "restartCount": 0,
            "state": {"running": {"startedAt": now}},
        }
        for c in spec.get("containers", [])
    ]
    conditions = [
        {"type": kind, "status": "True", "lastProbeTime": None, "lastTransitionTime": now}
        for kind in ("PodReadyToStartContainers", "Initialized", "Ready", "ContainersReady", "PodScheduled")
    ]
    return {
        "status": {
            "phase": "Running",
            "conditions": conditions,
            "containerStatuses": containers,
            "startTime": now,
            "podIP": "10.0.0.1",
        }
    }


def is_ready(pod: dict[str, object]) -> bool:
    status = pod.get("status") or {}
    assert isinstance(status, dict)
    return any(c.get("type") == "Ready" and c.get("status") == "True" for c in status.get("conditions") or [])


class ReadyPods:
    """``with ReadyPods(cluster, "ns"):`` keeps that namespace's pods Ready (polling, 0.1 s)."""

    def __init__(self, cluster: Cluster, namespace: str) -> None:
        self._cluster = cluster
        self._namespace = namespace
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> ReadyPods:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(timeout=5)

    def _run(self) -> None:
        path = f"/api/v1/namespaces/{self._namespace}/pods"
        with self._cluster.admin_client() as client:
            while not self._stop.is_set():
                with contextlib.suppress(httpx.HTTPError):
                    self._sync(client, path)
                time.sleep(0.1)

    def _sync(self, client: httpx.Client, path: str) -> None:
        for pod in client.get(path).json().get("items", []):
            if is_ready(pod) or pod["metadata"].get("deletionTimestamp"):
                continue
            client.patch(
                f"{path}/{pod['metadata']['name']}/status",
                json=ready_status(pod),
                headers={"Content-Type": "application/merge-patch+json"},
            )
