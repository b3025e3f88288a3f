"""Pod volumes on real files: layout, AtomicWriter, sources, tokens, mounts, upstream's messages."""

from __future__ import annotations

import base64
import os
import socket
import stat
import time
from pathlib import Path
from typing import Any

import pytest

from minikube_py.client.resourcetypes import CONFIGMAPS, SECRETS, SERVICEACCOUNTS
from minikube_py.clock import FakeClock
from minikube_py.testing.fakeclient import FakeClient
from nodeagent.envvars import CreateContainerConfigError
from nodeagent.runtime.interface import Mount
from nodeagent.volumes import (
    FileProjection,
    HostPathTypeError,
    VolumeManager,
    VolumeSetupError,
    check_host_path_type,
    make_mounts,
    write_payload,
)

UID = "uid-1"


def b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


def pod(*volumes: dict[str, Any], mounts: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    container = {
        "name": "app",
        "resources": {"limits": {"memory": "64Mi"}},
        "volumeMounts": mounts or [],
    }
    return {
        "metadata": {"name": "web", "namespace": "default", "uid": UID, "labels": {"b": "2", "a": "1"}},
        "spec": {"serviceAccountName": "default", "containers": [container], "volumes": list(volumes)},
    }


@pytest.fixture
def client() -> FakeClient:
    fake = FakeClient()
    fake.seed(
        CONFIGMAPS,
        {
            "metadata": {"name": "cfg", "namespace": "default"},
            "data": {"app.conf": "x=1", "other": "2"},
            "binaryData": {"blob": base64.b64encode(b"\x00\x01").decode()},
        },
    )
    fake.seed(SECRETS, {"metadata": {"name": "sec", "namespace": "default"}, "data": {"pw": b64("s3cret")}})
    fake.seed(SERVICEACCOUNTS, {"metadata": {"name": "default", "namespace": "default"}})
    return fake


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock(start=time.time())


@pytest.fixture
def manager(client: FakeClient, tmp_path: Path, clock: FakeClock) -> VolumeManager:
    return VolumeManager(
        client, tmp_path / "node", node_allocatable={"cpu": "4", "memory": "8Gi"}, clock=clock
    )


def vol_dir(manager: VolumeManager, plugin: str, name: str) -> Path:
    return manager.root / "pods" / UID / "volumes" / plugin / name


def files(directory: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in directory.iterdir() if not p.name.startswith("..")}


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


async def test_empty_dir_is_a_world_writable_directory(manager: VolumeManager) -> None:
    await manager.setup_pod_volumes(
        pod({"name": "scratch", "emptyDir": {}}, {"name": "m", "emptyDir": {"medium": "Memory"}})
    )
    for name in ("scratch", "m"):
        path = vol_dir(manager, "kubernetes.io~empty-dir", name)
        assert path.is_dir() and mode(path) == 0o777


@pytest.mark.parametrize(
    ("source", "want", "modes"),
    [
        ({"name": "cfg"}, {"app.conf": b"x=1", "other": b"2", "blob": b"\x00\x01"}, {"other": 0o644}),
        (
            {"name": "cfg", "defaultMode": 0o600},
            {"app.conf": b"x=1", "other": b"2", "blob": b"\x00\x01"},
            {"other": 0o600},
        ),
        (
            {
                "name": "cfg",
                "items": [{"key": "app.conf", "path": "conf", "mode": 0o400}, {"key": "blob", "path": "b"}],
            },
            {"conf": b"x=1", "b": b"\x00\x01"},
            {"conf": 0o400, "b": 0o644},
        ),
        ({"name": "absent", "optional": True}, {}, {}),
        ({"name": "cfg", "optional": True, "items": [{"key": "nope", "path": "n"}]}, {}, {}),
    ],
)
async def test_config_map_volume(
    manager: VolumeManager, source: dict[str, Any], want: dict[str, bytes], modes: dict[str, int]
) -> None:
    await manager.setup_pod_volumes(pod({"name": "config", "configMap": source}))
    path = vol_dir(manager, "kubernetes.io~configmap", "config")
    assert files(path) == want
    for name, expected in modes.items():
        assert mode(path / name) == expected


async def test_nested_item_paths(manager: VolumeManager) -> None:
    source = {"name": "cfg", "items": [{"key": "app.conf", "path": "etc/app/app.conf"}]}
    await manager.setup_pod_volumes(pod({"name": "config", "configMap": source}))
    path = vol_dir(manager, "kubernetes.io~configmap", "config")
    assert (path / "etc" / "app" / "app.conf").read_text() == "x=1"
    assert os.readlink(path / "etc") == "..data/etc"


async def test_secret_volume_is_decoded(manager: VolumeManager) -> None:
    await manager.setup_pod_volumes(
        pod({"name": "creds", "secret": {"secretName": "sec", "defaultMode": 0o400}})
    )
    path = vol_dir(manager, "kubernetes.io~secret", "creds")
    assert files(path) == {"pw": b"s3cret"}
    assert mode(path / "pw") == 0o400


@pytest.mark.parametrize(
    ("volume", "message"),
    [
        (
            {"name": "v", "configMap": {"name": "gone"}},
            'MountVolume.SetUp failed for volume "v" : configmap "gone" not found',
        ),
        (
            {"name": "v", "secret": {"secretName": "gone"}},
            'MountVolume.SetUp failed for volume "v" : secret "gone" not found',
        ),
        (
            {"name": "v", "configMap": {"name": "cfg", "items": [{"key": "k", "path": "k"}]}},
            'MountVolume.SetUp failed for volume "v" : configmap references non-existent config key: k',
        ),
        (
            {"name": "v", "secret": {"secretName": "sec", "items": [{"key": "k", "path": "k"}]}},
            'MountVolume.SetUp failed for volume "v" : secret references non-existent secret key: k',
        ),
        (
            {"name": "v", "configMap": {"name": "cfg", "items": [{"key": "other", "path": "../x"}]}},
            "MountVolume.SetUp failed for volume \"v\" : invalid path: must not contain '..': ../x",
        ),
        (
            {"name": "v", "hostPath": {"path": "/nonexistent/dir", "type": "Directory"}},
            'MountVolume.SetUp failed for volume "v" : hostPath type check failed: /nonexistent/dir '
            "is not a directory",
        ),
        (
            {"name": "v", "nfs": {"server": "s", "path": "/x"}},
            'MountVolume.SetUp failed for volume "v" : volume type not supported by this node agent',
        ),
        (
            {
                "name": "v",
                "projected": {"sources": [{"configMap": {"name": "gone"}}, {"secret": {"name": "gone"}}]},
            },
            'MountVolume.SetUp failed for volume "v" : [configmap "gone" not found, secret "gone" not found]',
        ),
    ],
)
async def test_setup_failures_carry_upstreams_failed_mount_message(
    manager: VolumeManager, volume: dict[str, Any], message: str
) -> None:
    with pytest.raises(VolumeSetupError) as caught:
        await manager.setup_pod_volumes(pod({"name": "ok", "emptyDir": {}}, volume))
    assert str(caught.value) == message
    assert caught.value.reason == "FailedMount" and caught.value.volume == "v"
    assert vol_dir(manager, "kubernetes.io~empty-dir", "ok").is_dir()  # the others are still set up


def test_atomic_writer_switches_data_and_removes_stale(tmp_path: Path) -> None:
    target = tmp_path / "vol"
    assert write_payload(target, {"a": FileProjection(b"1"), "b": FileProjection(b"2")})
    first = os.readlink(target / "..data")
    assert first.startswith("..") and os.readlink(target / "a") == "..data/a"
    assert not write_payload(target, {"a": FileProjection(b"1"), "b": FileProjection(b"2")})
    assert os.readlink(target / "..data") == first
    assert write_payload(target, {"a": FileProjection(b"new"), "c": FileProjection(b"3", 0o600)})
    assert files(target) == {"a": b"new", "c": b"3"}
    assert not (target / first).exists() and not (target / "..data_tmp").exists()
    assert mode(target / "c") == 0o600
    assert write_payload(
        target, {"a": FileProjection(b"new"), "c": FileProjection(b"3", 0o644)}
    )  # mode change


async def test_downward_api_volume(manager: VolumeManager) -> None:
    items = [
        {"path": "labels", "fieldRef": {"fieldPath": "metadata.labels"}},
        {"path": "name", "fieldRef": {"fieldPath": "metadata.name"}, "mode": 0o400},
        {"path": "app", "fieldRef": {"fieldPath": "metadata.labels['a']"}},
        {
            "path": "mem",
            "resourceFieldRef": {"containerName": "app", "resource": "limits.memory", "divisor": "1Mi"},
        },
        {
            "path": "cpu",
            "resourceFieldRef": {"containerName": "app", "resource": "limits.cpu", "divisor": "1m"},
        },
    ]
    await manager.setup_pod_volumes(pod({"name": "info", "downwardAPI": {"items": items}}))
    path = vol_dir(manager, "kubernetes.io~downward-api", "info")
    assert files(path) == {
        "labels": b'a="1"\nb="2"',
        "name": b"web",
        "app": b"1",
        "mem": b"64",
        "cpu": b"4000",
    }
    assert mode(path / "name") == 0o400


async def test_downward_api_unknown_container(manager: VolumeManager) -> None:
    items = [{"path": "x", "resourceFieldRef": {"containerName": "nope", "resource": "limits.cpu"}}]
    with pytest.raises(VolumeSetupError, match=r'volume "info" : container nope not found$'):
        await manager.setup_pod_volumes(pod({"name": "info", "downwardAPI": {"items": items}}))


def kube_api_access(expiration: int = 3607, audience: str = "") -> dict[str, Any]:
    token: dict[str, Any] = {"path": "token", "expirationSeconds": expiration}
    if audience:
        token["audience"] = audience
    return {
        "name": "kube-api-access",
        "projected": {
            "sources": [
                {"serviceAccountToken": token},
                {"configMap": {"name": "cfg", "items": [{"key": "app.conf", "path": "ca.crt"}]}},
                {
                    "downwardAPI": {
                        "items": [{"path": "namespace", "fieldRef": {"fieldPath": "metadata.namespace"}}]
                    }
                },
                {"secret": {"name": "sec"}},
            ]
        },
    }


async def test_projected_volume_with_bound_token(manager: VolumeManager, client: FakeClient) -> None:
    await manager.setup_pod_volumes(pod(kube_api_access(audience="vault")))
    path = vol_dir(manager, "kubernetes.io~projected", "kube-api-access")
    content = files(path)
    assert content["token"].startswith(b"fake-token-default-default-")
    assert {k: v for k, v in content.items() if k != "token"} == {
        "ca.crt": b"x=1",
        "namespace": b"default",
        "pw": b"s3cret",
    }
    [request] = client.filter_actions("create", "serviceaccounts")
    assert (request.name, request.subresource) == ("default", "token")
    assert request.body["spec"] == {
        "expirationSeconds": 3607,
        "audiences": ["vault"],
        "boundObjectRef": {"apiVersion": "v1", "kind": "Pod", "name": "web", "uid": UID},
    }


async def test_token_renewed_after_80_percent_of_its_lifetime(
    manager: VolumeManager, client: FakeClient, clock: FakeClock
) -> None:
    the_pod = pod(kube_api_access(expiration=1000))
    await manager.setup_pod_volumes(the_pod)
    token_file = vol_dir(manager, "kubernetes.io~projected", "kube-api-access") / "token"
    first = token_file.read_bytes()
    await clock.step(700)
    await manager.refresh_pod_volumes(the_pod)
    assert token_file.read_bytes() == first and len(client.filter_actions("create", "serviceaccounts")) == 1
    await clock.step(110)
    await manager.refresh_pod_volumes(the_pod)
    assert token_file.read_bytes() != first and len(client.filter_actions("create", "serviceaccounts")) == 2


async def test_token_for_missing_service_account(manager: VolumeManager, client: FakeClient) -> None:
    the_pod = pod(kube_api_access())
    the_pod["spec"]["serviceAccountName"] = "ghost"
    with pytest.raises(VolumeSetupError) as caught:
        await manager.setup_pod_volumes(the_pod)
    assert caught.value.cause == 'failed to fetch token: serviceaccounts "ghost" not found'


async def test_refresh_rewrites_changed_objects_and_keeps_old_files_on_failure(
    manager: VolumeManager, client: FakeClient
) -> None:
    the_pod = pod({"name": "config", "configMap": {"name": "cfg"}}, {"name": "scratch", "emptyDir": {}})
    await manager.setup_pod_volumes(the_pod)
    path = vol_dir(manager, "kubernetes.io~configmap", "config")
    await client.resource(CONFIGMAPS, "default").update(
        {"metadata": {"name": "cfg", "namespace": "default"}, "data": {"app.conf": "x=2"}}
    )
    await manager.refresh_pod_volumes(the_pod)
    assert files(path) == {"app.conf": b"x=2"}
    await client.resource(CONFIGMAPS, "default").delete("cfg")
    with pytest.raises(VolumeSetupError, match='configmap "cfg" not found'):
        await manager.refresh_pod_volumes(the_pod)
    assert files(path) == {"app.conf": b"x=2"}


@pytest.mark.parametrize(
    ("kind", "prepare", "error"),
    [
        ("", None, None),
        ("DirectoryOrCreate", None, None),
        ("DirectoryOrCreate", "dir", None),
        ("DirectoryOrCreate", "file", "is not a directory"),
        ("Directory", "dir", None),
        ("Directory", None, "is not a directory"),
        ("FileOrCreate", None, None),
        ("FileOrCreate", "file", None),
        ("FileOrCreate", "dir", "is not a file"),
        ("File", "file", None),
        ("File", None, "is not a file"),
        ("Socket", "socket", None),
        ("Socket", "file", "is not a socket file"),
        ("CharDevice", "file", "is not a character device"),
        ("BlockDevice", "file", "is not a block device"),
    ],
)
def test_host_path_types(tmp_path: Path, kind: str, prepare: str | None, error: str | None) -> None:
    path = tmp_path / "p"
    if prepare == "dir":
        path.mkdir()
    elif prepare == "file":
        path.write_text("x")
    elif prepare == "socket":
        sock = socket.socket(socket.AF_UNIX)
        sock.bind(str(path))
        sock.close()
    if error:
        with pytest.raises(HostPathTypeError, match=f"^hostPath type check failed: {path} {error}$"):
            check_host_path_type(str(path), kind)
        return
    check_host_path_type(str(path), kind)
    if kind == "DirectoryOrCreate":
        assert path.is_dir()
    if kind == "FileOrCreate":
        assert path.is_file()


def test_invalid_host_path_type(tmp_path: Path) -> None:
    with pytest.raises(HostPathTypeError, match=r"^Weird is an invalid volume type$"):
        check_host_path_type(str(tmp_path), "Weird")


async def test_make_mounts(manager: VolumeManager, tmp_path: Path) -> None:
    host = tmp_path / "host"
    mounts = [
        {"name": "scratch", "mountPath": "/scratch"},
        {"name": "scratch", "mountPath": "/logs", "subPath": "logs/app", "readOnly": True},
        {"name": "config", "mountPath": "/etc/app"},
        {"name": "config", "mountPath": "/etc/app.conf", "subPath": "app.conf"},
        {"name": "host", "mountPath": "/data"},
        {"name": "scratch", "mountPath": "/per-pod", "subPathExpr": "$(POD_NAME)"},
    ]
    the_pod = pod(
        {"name": "scratch", "emptyDir": {}},
        {"name": "config", "configMap": {"name": "cfg"}},
        {"name": "host", "hostPath": {"path": str(host), "type": "DirectoryOrCreate"}},
        mounts=mounts,
    )
    await manager.setup_pod_volumes(the_pod)
    got = make_mounts(manager, the_pod, the_pod["spec"]["containers"][0], [("POD_NAME", "web")])
    scratch = vol_dir(manager, "kubernetes.io~empty-dir", "scratch")
    config = vol_dir(manager, "kubernetes.io~configmap", "config")
    data_file = os.path.realpath(config / "app.conf")
    assert got == [
        Mount(str(scratch), "/scratch", False),
        Mount(str(scratch / "logs" / "app"), "/logs", True),
        Mount(str(config), "/etc/app", True),
        Mount(data_file, "/etc/app.conf", True),
        Mount(str(host), "/data", False),
        Mount(str(scratch / "web"), "/per-pod", False),
    ]
    assert (scratch / "logs" / "app").is_dir() and (scratch / "web").is_dir()
    # subPath directories of an emptyDir are 0777 like it, whatever the umask (non-root users)
    assert {(scratch / d).stat().st_mode & 0o777 for d in ("logs", "logs/app", "web")} == {0o777}
    assert Path(data_file).read_text() == "x=1" and ".." in Path(data_file).parent.name


@pytest.mark.parametrize(
    ("mount", "message"),
    [
        ({"name": "nope", "mountPath": "/x"}, 'cannot find volume "nope" to mount into container "app"'),
        (
            {"name": "scratch", "mountPath": "/x", "subPath": "/abs"},
            "error SubPath `/abs` must not be an absolute path",
        ),
        (
            {"name": "scratch", "mountPath": "/x", "subPath": "a/../../b"},
            "unable to provision SubPath `a/../../b`: must not contain '..'",
        ),
        (
            {"name": "scratch", "mountPath": "/x", "subPathExpr": "$(NOPE)/$(EMPTY)"},
            "missing value for EMPTY, NOPE",
        ),
    ],
)
async def test_make_mounts_errors(manager: VolumeManager, mount: dict[str, Any], message: str) -> None:
    the_pod = pod({"name": "scratch", "emptyDir": {}}, mounts=[mount])
    await manager.setup_pod_volumes(the_pod)
    with pytest.raises(CreateContainerConfigError) as caught:
        make_mounts(manager, the_pod, the_pod["spec"]["containers"][0], [("EMPTY", "")])
    assert str(caught.value) == message


async def test_sub_path_symlink_may_not_escape_the_volume(manager: VolumeManager, tmp_path: Path) -> None:
    the_pod = pod(
        {"name": "scratch", "emptyDir": {}},
        mounts=[{"name": "scratch", "mountPath": "/x", "subPath": "evil"}],
    )
    await manager.setup_pod_volumes(the_pod)
    scratch = vol_dir(manager, "kubernetes.io~empty-dir", "scratch")
    (scratch / "evil").symlink_to(tmp_path)
    with pytest.raises(CreateContainerConfigError, match="not within volume path"):
        make_mounts(manager, the_pod, the_pod["spec"]["containers"][0])


async def test_cleanup_removes_pod_volumes_but_not_host_paths(manager: VolumeManager, tmp_path: Path) -> None:
    host = tmp_path / "keep"
    host.mkdir()
    (host / "f").write_text("kept")
    the_pod = pod(
        kube_api_access(), {"name": "h", "hostPath": {"path": str(host)}}, {"name": "s", "emptyDir": {}}
    )
    await manager.setup_pod_volumes(the_pod)
    manager.cleanup_pod_volumes(UID)
    assert not (manager.root / "pods" / UID / "volumes").exists()
    assert (host / "f").read_text() == "kept"
    manager.cleanup_pod_volumes(UID)  # idempotent
