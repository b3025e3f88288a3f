"""The REST surface against real kubectl (1.27, the default 1.32, 1.33) over HTTPS."""

from __future__ import annotations

import json
import os
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.cluster import KUBECTL, KUBECTL_DIR, Cluster, running_up

pytestmark = pytest.mark.e2e

VERSIONS = {
    "1.27": str(KUBECTL_DIR / "kubectl.1.27"),
    "1.32": KUBECTL,
    "1.33": str(KUBECTL_DIR / "kubectl.1.33"),
}


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    yield from running_up(tmp_path_factory.mktemp("rest"))


@pytest.fixture(params=list(VERSIONS))
def k(request: pytest.FixtureRequest, cluster: Cluster) -> object:
    """``k(*args, stdin=None, env=None)`` runs one kubectl version against the cluster."""
    binary = VERSIONS[request.param]
    assert Path(binary).exists() or binary == KUBECTL, f"{binary} must ship beside kubectl"
    cache = cluster.data_dir.parent / f"kube-cache-{request.param}"

    def run(
        *args: str, stdin: str | None = None, env: dict[str, str] | None = None
    ) -> subprocess.CompletedProcess[str]:
        command = [binary, "--kubeconfig", str(cluster.kubeconfig), "--cache-dir", str(cache), *args]
        full_env = {**os.environ, **env} if env else None
        return subprocess.run(command, input=stdin, capture_output=True, text=True, timeout=30, env=full_env)

    run.version = request.param  # type: ignore[attr-defined]
    return run


def ok(result: subprocess.CompletedProcess[str]) -> str:
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_system_namespaces_exist(k: object) -> None:
    out = ok(k("get", "ns"))  # type: ignore[operator]
    lines = out.splitlines()
    assert lines[0].split() == ["NAME", "STATUS", "AGE"]
    names = {line.split()[0] for line in lines[1:]}
    assert {"default", "kube-system", "kube-public", "kube-node-lease"} <= names
    assert all(line.split()[1] == "Active" for line in lines[1:])


def test_api_resources_lists_the_catalog(k: object) -> None:
    out = ok(k("api-resources"))  # type: ignore[operator]
    rows = {line.split()[0]: line.split() for line in out.splitlines()[1:]}
    assert rows["configmaps"][1:] == ["cm", "v1", "true", "ConfigMap"]
    assert rows["deployments"][1:] == ["deploy", "apps/v1", "true", "Deployment"]
    assert rows["namespaces"][1:] == ["ns", "v1", "false", "Namespace"]


def test_configmap_lifecycle(k: object) -> None:
    run = k  # type: ignore[assignment]
    name = f"cm-{run.version.replace('.', '-')}"  # type: ignore[attr-defined]
    manifest = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": name, "labels": {"app": "web"}},
        "data": {"a": "1", "b": "2"},
    }
    ok(run("create", "-f", "-", stdin=json.dumps(manifest)))  # type: ignore[operator]
    again = run("create", "-f", "-", stdin=json.dumps(manifest))  # type: ignore[operator]
    assert again.returncode != 0
    assert f'configmaps "{name}" already exists' in again.stderr
    table = ok(run("get", "cm", name)).splitlines()  # type: ignore[operator]
    assert table[0].split() == ["NAME", "DATA", "AGE"]
    assert table[1].split()[:2] == [name, "2"]
    got = json.loads(ok(run("get", "cm", name, "-o", "json")))  # type: ignore[operator]
    assert got["data"] == {"a": "1", "b": "2"} and got["metadata"]["uid"]
    assert name in ok(run("get", "cm", "-l", "app=web", "-o", "name"))  # type: ignore[operator]
    assert name not in ok(run("get", "cm", "-l", "app!=web", "-o", "name"))  # type: ignore[operator]
    ok(run("label", "cm", name, "tier=backend"))  # type: ignore[operator]
    ok(run("annotate", "cm", name, "note=hello"))  # type: ignore[operator]
    ok(run("patch", "cm", name, "-p", '{"data":{"c":"3"}}'))  # type: ignore[operator]
    ok(run("patch", "cm", name, "--type=merge", "-p", '{"data":{"a":null}}'))  # type: ignore[operator]
    ok(run("patch", "cm", name, "--type=json", "-p", '[{"op":"replace","path":"/data/b","value":"20"}]'))  # type: ignore[operator]
    got = json.loads(ok(run("get", "cm", name, "-o", "json")))  # type: ignore[operator]
    assert got["data"] == {"b": "20", "c": "3"}
    assert got["metadata"]["labels"] == {"app": "web", "tier": "backend"}
    assert got["metadata"]["annotations"]["note"] == "hello"
    dry = ok(run("delete", "cm", name, "--dry-run=server"))  # type: ignore[operator]
    assert "server dry run" in dry
    ok(run("get", "cm", name))  # type: ignore[operator]
    ok(run("delete", "cm", name))  # type: ignore[operator]
    gone = run("get", "cm", name)  # type: ignore[operator]
    assert gone.returncode != 0 and f'configmaps "{name}" not found' in gone.stderr


def test_replace_with_stale_resource_version_conflicts(k: object) -> None:
    run = k  # type: ignore[assignment]
    name = f"rep-{run.version.replace('.', '-')}"  # type: ignore[attr-defined]
    manifest = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}, "data": {"k": "v"}}
    ok(run("create", "-f", "-", stdin=json.dumps(manifest)))  # type: ignore[operator]
    current = json.loads(ok(run("get", "cm", name, "-o", "json")))  # type: ignore[operator]
    current["data"]["k"] = "changed"
    ok(run("replace", "-f", "-", stdin=json.dumps(current)))  # type: ignore[operator]
    stale = run("replace", "-f", "-", stdin=json.dumps(current))  # type: ignore[operator]
    assert stale.returncode != 0
    assert "the object has been modified" in stale.stderr
    ok(run("delete", "cm", name))  # type: ignore[operator]


def test_invalid_name_is_422_with_upstream_message(k: object) -> None:
    bad = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "Bad_Name"}}
    result = k("create", "-f", "-", stdin=json.dumps(bad))  # type: ignore[operator]
    assert result.returncode != 0
    assert 'The ConfigMap "Bad_Name" is invalid: metadata.name: Invalid value: "Bad_Name"' in result.stderr


def test_get_raw_and_missing_namespace(k: object) -> None:
    out = json.loads(ok(k("get", "--raw", "/api/v1/namespaces/default")))  # type: ignore[operator]
    assert out["kind"] == "Namespace" and out["status"]["phase"] == "Active"
    manifest = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "x", "namespace": "nope"}}
    missing = k("create", "-f", "-", stdin=json.dumps(manifest))  # type: ignore[operator]
    assert missing.returncode != 0 and 'namespaces "nope" not found' in missing.stderr


def deployment(name: str, env: list[dict[str, str]], image: str = "nginx:1.27") -> dict[str, object]:
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name},
        "spec": {
            "replicas": 2,
            "selector": {"matchLabels": {"app": name}},
            "template": {
                "metadata": {"labels": {"app": name}},
                "spec": {
                    "containers": [
                        {"name": "web", "image": image, "ports": [{"containerPort": 80}], "env": env}
                    ]
                },
            },
        },
    }


def test_apply_twice_keeps_ports_and_drops_removed_env(k: object) -> None:
    run = k  # type: ignore[assignment]
    name = f"app-{run.version.replace('.', '-')}"  # type: ignore[attr-defined]
    first = deployment(name, [{"name": "A", "value": "1"}, {"name": "B", "value": "2"}])
    ok(run("apply", "-f", "-", stdin=json.dumps(first)))  # type: ignore[operator]
    second = deployment(name, [{"name": "A", "value": "10"}], image="nginx:1.28")
    ok(run("apply", "-f", "-", stdin=json.dumps(second)))  # type: ignore[operator]
    got = json.loads(ok(run("get", "deploy", name, "-o", "json")))  # type: ignore[operator]
    (container,) = got["spec"]["template"]["spec"]["containers"]
    assert container["image"] == "nginx:1.28"
    assert container["env"] == [{"name": "A", "value": "10"}]
    assert container["ports"] == [{"containerPort": 80, "protocol": "TCP"}]
    assert got["metadata"]["generation"] == 2
    table = ok(run("get", "deploy", name)).splitlines()  # type: ignore[operator]
    assert table[0].split() == ["NAME", "READY", "UP-TO-DATE", "AVAILABLE", "AGE"]
    ok(run("delete", "deploy", name))  # type: ignore[operator]


def test_pods_table_and_immediate_delete_when_unscheduled(k: object) -> None:
    run = k  # type: ignore[assignment]
    name = f"pod-{run.version.replace('.', '-')}"  # type: ignore[attr-defined]
    pod = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name},
        "spec": {"containers": [{"name": "c", "image": "busybox", "command": ["sleep", "3600"]}]},
    }
    ok(run("create", "-f", "-", stdin=json.dumps(pod)))  # type: ignore[operator]
    table = ok(run("get", "pod", name, "-o", "wide")).splitlines()  # type: ignore[operator]
    assert table[0].split()[:5] == ["NAME", "READY", "STATUS", "RESTARTS", "AGE"]
    assert table[1].split()[:4] == [name, "0/1", "Pending", "0"]
    spec = json.loads(ok(run("get", "pod", name, "-o", "json")))["spec"]  # type: ignore[operator]
    assert spec["restartPolicy"] == "Always" and spec["schedulerName"] == "default-scheduler"
    assert ok(run("get", "pods", "--field-selector", "status.phase=Pending", "-o", "name")).strip()  # type: ignore[operator]
    ok(run("delete", "pod", name, "--wait=true", "--timeout=10s"))  # type: ignore[operator]


def test_watch_streams_changes(cluster: Cluster) -> None:
    name = "watched"
    cmd = [
        KUBECTL,
        "--kubeconfig",
        str(cluster.kubeconfig),
        "--cache-dir",
        str(cluster.data_dir.parent / "kc-w"),
    ]
    manifest = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}, "data": {"n": "0"}}
    subprocess.run(
        [*cmd, "create", "-f", "-"], input=json.dumps(manifest), check=True, capture_output=True, text=True
    )
    watcher = subprocess.Popen(
        [*cmd, "get", "cm", name, "--watch", "--request-timeout=5s", "-o", "json"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    # kubectl prints the object it listed, then watches from the list's resourceVersion: once
    # the first object is out, every later change reaches the watch.
    assert watcher.stdout is not None
    first = []
    while (line := watcher.stdout.readline()) and line.rstrip("\n") != "}":
        first.append(line)
    first.append(line)
    for n in ("1", "2"):
        patch = json.dumps({"data": {"n": n}})
        subprocess.run([*cmd, "patch", "cm", name, "-p", patch], check=True, capture_output=True)
    rest, err = watcher.communicate(timeout=15)
    out = "".join(first) + rest
    decoder, seen, index = json.JSONDecoder(), [], 0
    text = out.strip()
    while index < len(text):
        obj, index = decoder.raw_decode(text, index)
        seen.append(obj["data"]["n"])
        while index < len(text) and text[index].isspace():
            index += 1
    assert seen == ["0", "1", "2"], err


def test_scale_subresource(k: object) -> None:
    run = k  # type: ignore[assignment]
    name = f"sc-{run.version.replace('.', '-')}"  # type: ignore[attr-defined]
    ok(run("create", "-f", "-", stdin=json.dumps(deployment(name, []))))  # type: ignore[operator]
    ok(run("scale", "deploy", name, "--replicas=5"))  # type: ignore[operator]
    assert json.loads(ok(run("get", "deploy", name, "-o", "json")))["spec"]["replicas"] == 5  # type: ignore[operator]
    ok(run("scale", "deploy", name, "--current-replicas=5", "--replicas=3"))  # type: ignore[operator]
    scale = json.loads(ok(run("get", "--raw", f"/apis/apps/v1/namespaces/default/deployments/{name}/scale")))  # type: ignore[operator]
    assert scale["kind"] == "Scale" and scale["spec"]["replicas"] == 3
    assert scale["status"]["selector"] == f"app={name}"
    stale = run("scale", "deploy", name, "--current-replicas=5", "--replicas=1")  # type: ignore[operator]
    assert stale.returncode != 0
    ok(run("delete", "deploy", name))  # type: ignore[operator]


def test_binding_sets_the_node_once(cluster: Cluster) -> None:
    with cluster.client(
        cert=(str(cluster.data_dir / "pki/admin.crt"), str(cluster.data_dir / "pki/admin.key"))
    ) as c:
        pod = {"metadata": {"name": "bound"}, "spec": {"containers": [{"name": "c", "image": "busybox"}]}}
        assert c.post("/api/v1/namespaces/default/pods", json=pod).status_code == 201
        binding = {
            "apiVersion": "v1",
            "kind": "Binding",
            "metadata": {"name": "bound"},
            "target": {"name": "n1"},
        }
        first = c.post("/api/v1/namespaces/default/pods/bound/binding", json=binding)
        assert first.status_code == 201 and first.json()["status"] == "Success"
        assert c.get("/api/v1/namespaces/default/pods/bound").json()["spec"]["nodeName"] == "n1"
        again = c.post("/api/v1/namespaces/default/pods/bound/binding", json=binding)
        assert again.status_code == 409 and again.json()["reason"] == "Conflict"
        assert 'pod bound is already assigned to node "n1"' in again.json()["message"]
        eviction = {
            "apiVersion": "policy/v1",
            "kind": "Eviction",
            "metadata": {"name": "bound"},
            "deleteOptions": {"gracePeriodSeconds": 0},
        }
        assert c.post("/api/v1/namespaces/default/pods/bound/eviction", json=eviction).status_code == 201
        assert c.get("/api/v1/namespaces/default/pods/bound").status_code == 404


def test_bad_input_gets_a_status_and_changes_nothing(cluster: Cluster) -> None:
    with cluster.admin_client() as c:
        base = "/api/v1/namespaces/default/configmaps"
        cases = [
            (
                c.post(base, content=b"{not json", headers={"content-type": "application/json"}),
                400,
                "BadRequest",
            ),
            (
                c.post(
                    base, content=b"[" * 100000 + b"]" * 100000, headers={"content-type": "application/json"}
                ),
                400,
                "BadRequest",
            ),
            (
                c.post(
                    base, content=b"x" * (3 * 1024 * 1024 + 1), headers={"content-type": "application/json"}
                ),
                413,
                "RequestEntityTooLarge",
            ),
            (
                c.post(base, json={"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "x"}}),
                400,
                "BadRequest",
            ),
            (
                c.patch(f"{base}/nothing", content=b"{}", headers={"content-type": "text/plain"}),
                415,
                "UnsupportedMediaType",
            ),
            (c.get(f"{base}?labelSelector=a%3D%3D%3Db"), 400, "BadRequest"),
            (c.get(f"{base}?fieldSelector=spec.foo%3Dbar"), 400, "BadRequest"),
            (c.get("/api/v1/nonsense"), 404, "NotFound"),
        ]
        for response, code, reason in cases:
            assert response.status_code == code, response.text
            body = response.json()
            assert (body["kind"], body["reason"], body["code"]) == ("Status", reason, code)
        assert c.get(f"{base}/x").status_code == 404


def test_typed_create_commands_send_protobuf_on_new_kubectl(k: object) -> None:
    """kubectl >= 1.32 sends protobuf bodies for `create configmap|secret|namespace|deployment`."""
    run = k  # type: ignore[assignment]
    suffix = run.version.replace(".", "-")  # type: ignore[attr-defined]
    ok(run("create", "configmap", f"pb-{suffix}", "--from-literal=a=b"))  # type: ignore[operator]
    ok(run("create", "secret", "generic", f"pb-{suffix}", "--from-literal=p=q"))  # type: ignore[operator]
    ok(run("create", "namespace", f"pb-{suffix}"))  # type: ignore[operator]
    ok(run("create", "deployment", f"pb-{suffix}", "--image=nginx", "--replicas=2", "--port=80"))  # type: ignore[operator]
    cm = json.loads(ok(run("get", "cm", f"pb-{suffix}", "-o", "json")))  # type: ignore[operator]
    assert cm["data"] == {"a": "b"}
    secret = json.loads(ok(run("get", "secret", f"pb-{suffix}", "-o", "json")))  # type: ignore[operator]
    assert secret["data"] == {"p": "cQ=="} and secret["type"] == "Opaque"
    deploy = json.loads(ok(run("get", "deploy", f"pb-{suffix}", "-o", "json")))  # type: ignore[operator]
    (container,) = deploy["spec"]["template"]["spec"]["containers"]
    assert (container["image"], container["ports"][0]["containerPort"]) == ("nginx", 80)
    assert deploy["spec"]["replicas"] == 2
    # no namespace controller empties spec.finalizers: the namespace stays, Terminating
    ok(run("delete", "namespace", f"pb-{suffix}", "--wait=false"))  # type: ignore[operator]
    phase = ok(run("get", "namespace", f"pb-{suffix}", "-o", "jsonpath={.status.phase}"))  # type: ignore[operator]
    assert phase == "Terminating"


def test_edit_get_variants_and_delete_options(k: object, tmp_path: Path) -> None:
    run = k  # type: ignore[assignment]
    name = f"ed-{run.version.replace('.', '-')}"  # type: ignore[attr-defined]
    manifest = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}, "data": {"k": "old"}}
    ok(run("create", "-f", "-", stdin=json.dumps(manifest)))  # type: ignore[operator]
    editor = tmp_path / "editor.sh"
    editor.write_text('#!/bin/sh\nsed -i "s/k: old/k: new/" "$1"\n')
    editor.chmod(0o755)
    edited = run("edit", "cm", name, env={"EDITOR": str(editor), "KUBE_EDITOR": str(editor)})  # type: ignore[operator]
    assert edited.returncode == 0, edited.stderr
    assert ok(run("get", "cm", name, "-o", "jsonpath={.data.k}")) == "new"  # type: ignore[operator]
    assert f"name: {name}" in ok(run("get", "cm", name, "-o", "yaml"))  # type: ignore[operator]
    everywhere = ok(run("get", "cm", "-A")).splitlines()  # type: ignore[operator]
    assert everywhere[0].split()[:2] == ["NAMESPACE", "NAME"]
    assert any(line.split()[:2] == ["default", name] for line in everywhere[1:])
    deleted = ok(run("delete", "cm", name, "--grace-period=0", "--force", "--cascade=orphan", "--wait=false"))  # type: ignore[operator]
    assert f'configmap "{name}" force deleted' in deleted
    # marked with the orphan finalizer, which the garbage collector drops once it has orphaned
    # the (no) dependents: then the configmap is gone
    deadline = time.monotonic() + 10
    while (missing := run("get", "cm", name)).returncode == 0 and time.monotonic() < deadline:  # type: ignore[operator]
        time.sleep(0.1)
    assert missing.returncode != 0 and "NotFound" in missing.stderr
