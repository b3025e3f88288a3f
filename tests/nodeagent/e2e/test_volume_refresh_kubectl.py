"""configMap, secret and downwardAPI volumes of a running pod follow their sources (issue 13
item 11), through ``up --nodes 1`` and real kubectl: the files a container reads change after
``kubectl patch configmap`` / ``kubectl label pod``; a subPath mount keeps its first contents."""

from __future__ import annotations

import json
import subprocess
import time
from collections.abc import Iterator

import pytest

from tests.cluster import KUBECTL, Cluster, eventually, free_port, kubectl, start_up
from tests.cluster import kubectl_json as get
from tests.cluster import kubectl_ok as ok

pytestmark = pytest.mark.e2e
REFRESH_WITHIN = 15.0  # the default refresh delay (1 s) plus one sync, with room for a busy machine


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    running = start_up(tmp_path_factory.mktemp("refresh"), free_port(), flags=["--nodes", "1"])
    try:
        running.wait_ready()
        # pods need the namespace's default service account (its controller makes it)
        eventually(lambda: kubectl(running, "get", "serviceaccount", "default").returncode == 0, "default SA")
        yield running
    finally:
        if running.process.poll() is None:
            running.stop()


def read(cluster: Cluster, pod: str, path: str) -> str:
    result = kubectl(cluster, "exec", pod, "--", "cat", path)
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_configmap_secret_and_downward_api_files_follow_their_sources(cluster: Cluster) -> None:
    ok(cluster, "create", "configmap", "settings", "--from-literal=mode=one")
    ok(cluster, "create", "secret", "generic", "creds", "--from-literal=pw=first")
    pod = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "reader", "labels": {"app": "demo"}},
        "spec": {
            "nodeName": "node-1",
            "automountServiceAccountToken": False,
            "containers": [
                {
                    "name": "c",
                    "image": "busybox",
                    "command": ["sleep", "600"],
                    "volumeMounts": [
                        {"name": "settings", "mountPath": "/etc/settings"},
                        {"name": "settings", "mountPath": "/etc/pinned/mode", "subPath": "mode"},
                        {"name": "creds", "mountPath": "/etc/creds"},
                        {"name": "info", "mountPath": "/etc/info"},
                    ],
                }
            ],
            "volumes": [
                {"name": "settings", "configMap": {"name": "settings"}},
                {"name": "creds", "secret": {"secretName": "creds"}},
                {
                    "name": "info",
                    "downwardAPI": {
                        "items": [{"path": "labels", "fieldRef": {"fieldPath": "metadata.labels"}}]
                    },
                },
            ],
        },
    }
    ok(cluster, "create", "-f", "-", stdin=json.dumps(pod))
    eventually(lambda: get(cluster, "pod", "reader")["status"].get("phase") == "Running", "reader Running")
    assert read(cluster, "reader", "/etc/settings/mode") == "one"
    assert read(cluster, "reader", "/etc/creds/pw") == "first"
    assert read(cluster, "reader", "/etc/info/labels") == 'app="demo"'

    started = time.monotonic()
    ok(cluster, "patch", "configmap", "settings", "-p", json.dumps({"data": {"mode": "two"}}))
    eventually(
        lambda: read(cluster, "reader", "/etc/settings/mode") == "two",
        "the configMap volume to show the new value",
        timeout=REFRESH_WITHIN,
    )
    took = time.monotonic() - started
    print(f"configMap change visible after {took:.2f}s")
    assert took < REFRESH_WITHIN
    # upstream: a subPath mount never sees updates
    assert read(cluster, "reader", "/etc/pinned/mode") == "one"
    # the update is atomic: ..data points at the new timestamped directory
    listing = kubectl(cluster, "exec", "reader", "--", "ls", "-a", "/etc/settings").stdout.split()
    assert "..data" in listing and "mode" in listing

    secret = ok(cluster, "create", "secret", "generic", "creds", "--from-literal=pw=second",
                "--dry-run=client", "-o", "json")  # fmt: skip
    ok(cluster, "replace", "-f", "-", stdin=secret)
    eventually(
        lambda: read(cluster, "reader", "/etc/creds/pw") == "second",
        "the secret volume to show the new value",
        timeout=REFRESH_WITHIN,
    )

    ok(cluster, "label", "pod", "reader", "tier=web")
    eventually(
        lambda: read(cluster, "reader", "/etc/info/labels") == 'app="demo"\ntier="web"',
        "the downwardAPI volume to show the new label",
        timeout=REFRESH_WITHIN,
    )
    # the agent reads them as upstream's kubelet does: one object at a time, by name
    node = ["--kubeconfig", str(cluster.data_dir / "node-node-1.kubeconfig")]
    one = subprocess.run(
        [KUBECTL, *node, "get", "configmaps", "--field-selector=metadata.name=settings", "-o", "name"],
        capture_output=True, text=True, timeout=30,
    )  # fmt: skip
    assert (one.returncode, one.stdout) == (0, "configmap/settings\n"), one.stderr
    every = subprocess.run([KUBECTL, *node, "get", "configmaps"], capture_output=True, text=True, timeout=30)
    assert every.returncode != 0 and "forbidden" in every.stderr, every.stderr
    # no warning on the way: every refresh succeeded
    events = get(cluster, "events", "--field-selector", "involvedObject.name=reader")["items"]
    assert not [e for e in events if e["reason"] == "FailedMount"], events
