"""The static pod source: manifests in a folder -> pods added and removed, with a fake clock."""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path

import pytest

from minikube_py.api.unstructured import Object
from minikube_py.clock import FakeClock
from nodeagent.pod.staticpods import (
    FILE_CHECK_FREQUENCY,
    ManifestError,
    StaticPodSource,
    static_pod,
    validate_manifest,
)

WEB = """\
apiVersion: v1
kind: Pod
metadata:
  name: web
  labels: {app: web}
spec:
  containers:
  - name: main
    image: busybox
    command: [sleep, "1000"]
"""


class Recorder:
    def __init__(self) -> None:
        self.events: list[tuple[str, str, str]] = []  # (verb, name, uid)

    def add(self, pod: Object) -> None:
        self.events.append(("add", pod["metadata"]["name"], pod["metadata"]["uid"]))

    def remove(self, pod: Object) -> None:
        self.events.append(("remove", pod["metadata"]["name"], pod["metadata"]["uid"]))


def source(tmp_path: Path) -> tuple[StaticPodSource, Recorder, FakeClock]:
    seen, clock = Recorder(), FakeClock()
    (tmp_path / "manifests").mkdir(exist_ok=True)
    return StaticPodSource(tmp_path / "manifests", "node-1", clock, seen.add, seen.remove), seen, clock


def write(path: Path, text: str, mtime: int | None = None) -> None:
    path.write_text(text)
    if mtime is not None:
        os.utime(path, ns=(mtime, mtime))


def test_a_manifest_becomes_a_named_bound_annotated_pod(tmp_path: Path) -> None:
    src, seen, _ = source(tmp_path)
    write(tmp_path / "manifests" / "web.yaml", WEB)
    assert src.check()
    (pod,) = src.pods.values()
    meta = pod["metadata"]
    assert (meta["name"], meta["namespace"], pod["spec"]["nodeName"]) == ("web-node-1", "default", "node-1")
    assert meta["labels"] == {"app": "web"}
    assert meta["annotations"]["kubernetes.io/config.source"] == "file"
    assert meta["annotations"]["kubernetes.io/config.hash"] == meta["uid"]
    assert meta["annotations"]["kubernetes.io/config.seen"].endswith("Z")
    assert {"operator": "Exists", "effect": "NoExecute"} in pod["spec"]["tolerations"]
    assert seen.events == [("add", "web-node-1", meta["uid"])]


def test_json_manifests_and_namespaces_are_kept(tmp_path: Path) -> None:
    src, _, _ = source(tmp_path)
    manifest = {
        "metadata": {"name": "db", "namespace": "kube-system"},
        "spec": {"containers": [{"name": "c", "image": "x"}]},
    }
    write(tmp_path / "manifests" / "db.json", json.dumps(manifest))
    write(tmp_path / "manifests" / "notes.txt", "not a manifest")
    write(tmp_path / "manifests" / ".hidden.yaml", WEB)
    src.check()
    assert [(p["metadata"]["namespace"], p["metadata"]["name"]) for p in src.pods.values()] == [
        ("kube-system", "db-node-1")
    ]


def test_the_uid_is_deterministic_and_a_change_means_a_new_uid(tmp_path: Path) -> None:
    manifest: Object = {"metadata": {"name": "web"}, "spec": {"containers": [{"name": "c", "image": "x"}]}}
    first = static_pod(manifest, "node-1", "/m/web.yaml", 1.0)
    assert static_pod(manifest, "node-1", "/m/web.yaml", 2.0)["metadata"]["uid"] == first["metadata"]["uid"]
    assert static_pod(manifest, "node-2", "/m/web.yaml", 1.0)["metadata"]["uid"] != first["metadata"]["uid"]
    manifest["spec"]["containers"][0]["image"] = "y"
    assert static_pod(manifest, "node-1", "/m/web.yaml", 1.0)["metadata"]["uid"] != first["metadata"]["uid"]


def test_a_changed_file_replaces_the_pod_and_a_removed_one_stops_it(tmp_path: Path) -> None:
    src, seen, _ = source(tmp_path)
    path = tmp_path / "manifests" / "web.yaml"
    write(path, WEB, mtime=1_000_000_000)
    src.check()
    old_uid = seen.events[0][2]
    assert not src.check()  # nothing changed, not due
    write(path, WEB.replace("busybox", "alpine"), mtime=2_000_000_000)
    assert src.check()
    new_uid = seen.events[-1][2]
    assert new_uid != old_uid
    assert seen.events[1:] == [("remove", "web-node-1", old_uid), ("add", "web-node-1", new_uid)]
    path.unlink()
    src.check()
    assert seen.events[-1] == ("remove", "web-node-1", new_uid)
    assert src.pods == {}


async def test_the_folder_is_read_again_when_due_and_a_touch_keeps_the_pod(tmp_path: Path) -> None:
    src, seen, clock = source(tmp_path)
    path = tmp_path / "manifests" / "web.yaml"
    write(path, WEB, mtime=1_000_000_000)
    src.check()
    seen_at = next(iter(src.pods.values()))["metadata"]["annotations"]["kubernetes.io/config.seen"]
    await clock.step(FILE_CHECK_FREQUENCY)
    write(path, WEB, mtime=1_500_000_000)  # same content, new mtime
    assert src.check()
    assert len(seen.events) == 1  # same uid: no remove/add
    assert next(iter(src.pods.values()))["metadata"]["annotations"]["kubernetes.io/config.seen"] == seen_at
    await clock.step(FILE_CHECK_FREQUENCY)
    assert src.check()  # due: read again even without a change


async def test_run_polls_for_new_files(tmp_path: Path) -> None:
    src, seen, clock = source(tmp_path)
    task = asyncio.create_task(src.run())
    await clock.step(1)
    write(tmp_path / "manifests" / "web.yml", WEB)
    await clock.step(1)
    task.cancel()
    assert [e[:2] for e in seen.events] == [("add", "web-node-1")]


def test_invalid_manifests_are_skipped_and_the_others_run(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    src, seen, _ = source(tmp_path)
    write(tmp_path / "manifests" / "web.yaml", WEB)
    write(tmp_path / "manifests" / "broken.yaml", "metadata: {name: [unclosed\n")
    write(tmp_path / "manifests" / "nocontainers.yaml", "metadata: {name: empty}\nspec: {}\n")
    write(tmp_path / "manifests" / "dup.yaml", WEB)  # same name as web.yaml
    src.check()
    assert [e[:2] for e in seen.events] == [("add", "web-node-1")]
    assert "broken.yaml" in caplog.text and "nocontainers.yaml" in caplog.text and "dup.yaml" in caplog.text


def test_a_manifest_that_turns_invalid_stops_its_pod(tmp_path: Path) -> None:
    src, seen, _ = source(tmp_path)
    path = tmp_path / "manifests" / "web.yaml"
    write(path, WEB, mtime=1_000_000_000)
    src.check()
    write(path, "{{{", mtime=2_000_000_000)
    src.check()
    assert [e[0] for e in seen.events] == ["add", "remove"]


@pytest.mark.parametrize(
    ("manifest", "why"),
    [
        ({"kind": "Service", "metadata": {"name": "x"}}, "want a v1 Pod"),
        ({"metadata": {}, "spec": {"containers": [{"name": "c", "image": "i"}]}}, "metadata.name"),
        (
            {"metadata": {"name": "Bad_Name"}, "spec": {"containers": [{"name": "c", "image": "i"}]}},
            "metadata.name",
        ),
        ({"metadata": {"name": "x"}, "spec": {"containers": "nope"}}, "not a valid pod"),
        ({"metadata": {"name": "x"}, "spec": {"containers": [{"name": "c"}]}}, "image"),
        ({"metadata": {"name": "x"}, "spec": {"containers": [{"name": "c", "image": "i"}] * 2}}, "unique"),
    ],
)
def test_validation_says_what_is_wrong(manifest: Object, why: str) -> None:
    with pytest.raises(ManifestError, match=why):
        validate_manifest(manifest)
