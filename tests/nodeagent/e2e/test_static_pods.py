"""Static pods on ``node-1`` of ``up --nodes 1``, seen with real kubectl: manifests in
``<data-dir>/nodes/node-1/manifests/`` run as real processes and appear as mirror pods."""

from __future__ import annotations

import ipaddress
import json
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.cluster import Cluster, free_port, kubectl, start_up
from tests.nodeagent.e2e.test_agent_kubectl import eventually, get, ok, running_commands

pytestmark = pytest.mark.e2e
TIMEOUT = 30.0


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    tmp = tmp_path_factory.mktemp("static")
    manifests = tmp / "data" / "nodes" / "node-1" / "manifests"
    manifests.mkdir(parents=True)
    write_manifest(manifests, "early", "early-marker-" + uuid.uuid4().hex[:8])  # before start
    running = start_up(tmp, free_port(), flags=["--nodes", "1"])
    running.wait_ready()
    yield running
    if running.process.poll() is None:
        running.stop()


def manifests_of(cluster: Cluster) -> Path:
    return cluster.data_dir / "nodes" / "node-1" / "manifests"


def write_manifest(directory: Path, name: str, marker: str) -> Path:
    """A pod whose process is ``sleep`` with a unique marker in its command line."""
    path = directory / f"{name}.yaml"
    path.write_text(
        f"""\
apiVersion: v1
kind: Pod
metadata:
  name: {name}
  labels: {{app: {name}}}
spec:
  containers:
  - name: main
    image: busybox
    command: [sh, -c, "echo started {name}; sleep 1000; echo {marker}"]
"""
    )
    return path


def mirror(cluster: Cluster, name: str) -> Any:
    result = kubectl(cluster, "get", "pod", f"{name}-node-1", "-o", "json")
    return json.loads(result.stdout) if result.returncode == 0 else None


def running_mirror(cluster: Cluster, name: str) -> Any:
    pod = mirror(cluster, name)
    return pod if pod and pod.get("status", {}).get("phase") == "Running" else None


def test_a_manifest_present_at_start_runs_and_is_mirrored(cluster: Cluster) -> None:
    pod = eventually(lambda: running_mirror(cluster, "early"), "the mirror pod early-node-1 Running")
    meta = pod["metadata"]
    assert (
        meta["annotations"]["kubernetes.io/config.mirror"] == meta["annotations"]["kubernetes.io/config.hash"]
    )
    assert meta["annotations"]["kubernetes.io/config.source"] == "file"
    assert meta["ownerReferences"][0]["kind"] == "Node" and meta["ownerReferences"][0]["name"] == "node-1"
    assert pod["spec"]["nodeName"] == "node-1"
    assert pod["status"]["containerStatuses"][0]["state"].get("running")
    assert cluster.network is not None
    assert ipaddress.ip_address(pod["status"]["podIP"]) in ipaddress.ip_network(cluster.network.node_cidr(0))
    # the mirror pod's log is its static pod's (logs are kept under the static pod's uid)
    assert ok(cluster, "logs", "early-node-1").strip() == "started early"


def test_a_new_manifest_runs_a_process_and_deleting_the_mirror_brings_it_back(cluster: Cluster) -> None:
    marker = "static-marker-" + uuid.uuid4().hex[:8]
    write_manifest(manifests_of(cluster), "web", marker)
    first = eventually(lambda: running_mirror(cluster, "web"), "the mirror pod web-node-1 Running")
    eventually(lambda: running_commands(marker), "the static pod's process")
    ok(cluster, "delete", "pod", "web-node-1", "--wait=false")

    def recreated() -> Any:
        pod = running_mirror(cluster, "web")
        return pod if pod and pod["metadata"]["uid"] != first["metadata"]["uid"] else None

    again = eventually(recreated, "the mirror pod recreated")
    assert (
        again["metadata"]["annotations"]["kubernetes.io/config.mirror"]
        == (first["metadata"]["annotations"]["kubernetes.io/config.mirror"])
    )
    assert running_commands(marker), "deleting the mirror pod must not stop the static pod"


def test_removing_the_manifest_removes_the_pod_and_stops_the_process(cluster: Cluster) -> None:
    marker = "doomed-marker-" + uuid.uuid4().hex[:8]
    path = write_manifest(manifests_of(cluster), "doomed", marker)
    eventually(lambda: running_mirror(cluster, "doomed"), "the mirror pod doomed-node-1 Running")
    eventually(lambda: running_commands(marker), "the static pod's process")
    path.unlink()
    eventually(lambda: mirror(cluster, "doomed") is None, "the mirror pod gone")
    eventually(lambda: not running_commands(marker), "the static pod's process stopped")


def test_an_invalid_manifest_beside_a_valid_one_is_skipped(cluster: Cluster) -> None:
    marker = "valid-marker-" + uuid.uuid4().hex[:8]
    (manifests_of(cluster) / "broken.yaml").write_text("metadata: {name: [unclosed\n")
    (manifests_of(cluster) / "nocontainers.yaml").write_text("metadata: {name: empty}\nspec: {}\n")
    write_manifest(manifests_of(cluster), "valid", marker)
    eventually(lambda: running_mirror(cluster, "valid"), "the valid static pod Running")
    assert len(running_commands(marker)) == 1, "the static pod runs once; its mirror never runs"
    assert running_mirror(cluster, "early"), "the other static pods keep running"
    names = [p["metadata"]["name"] for p in get(cluster, "pods")["items"]]
    assert "empty-node-1" not in names
    assert "skipping the static pod manifest" in cluster.stderr.read_text()


def test_a_changed_manifest_replaces_the_pod_and_its_mirror(cluster: Cluster) -> None:
    old_marker, new_marker = ("changed-marker-" + uuid.uuid4().hex[:8] for _ in range(2))
    write_manifest(manifests_of(cluster), "changed", old_marker)
    first = eventually(lambda: running_mirror(cluster, "changed"), "the first version Running")
    eventually(lambda: running_commands(old_marker), "the first version's process")
    write_manifest(manifests_of(cluster), "changed", new_marker)
    old_hash = first["metadata"]["annotations"]["kubernetes.io/config.mirror"]

    def replaced() -> Any:
        pod = running_mirror(cluster, "changed")
        return (
            pod if pod and pod["metadata"]["annotations"]["kubernetes.io/config.mirror"] != old_hash else None
        )

    eventually(replaced, "the mirror pod of the new version Running")
    eventually(lambda: running_commands(new_marker), "the new version's process")
    eventually(lambda: not running_commands(old_marker), "the old version's process stopped")
