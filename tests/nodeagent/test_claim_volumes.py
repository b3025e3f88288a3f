"""persistentVolumeClaim volumes on the node agent: claim -> bound volume -> its directory."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from minikube_py.client.resourcetypes import PERSISTENTVOLUMECLAIMS, PERSISTENTVOLUMES
from minikube_py.testing.fakeclient import FakeClient
from nodeagent.volumes import VolumeManager, VolumeSetupError, make_mounts


def pod(read_only: bool = False) -> dict[str, object]:
    return {
        "metadata": {"name": "p", "namespace": "default", "uid": "u1"},
        "spec": {
            "containers": [{"name": "c", "volumeMounts": [{"name": "v", "mountPath": "/data"}]}],
            "volumes": [{"name": "v", "persistentVolumeClaim": {"claimName": "data", "readOnly": read_only}}],
        },
    }


def seed(client: FakeClient, path: Path, bound: bool = True) -> None:
    spec = {"volumeName": "pv1"} if bound else {}
    status = {"phase": "Bound" if bound else "Pending"}
    client.seed(
        PERSISTENTVOLUMECLAIMS,
        {"metadata": {"name": "data", "namespace": "default"}, "spec": spec, "status": status},
    )
    volume = {
        "metadata": {"name": "pv1"},
        "spec": {"hostPath": {"path": str(path), "type": "DirectoryOrCreate"}},
    }
    client.seed(PERSISTENTVOLUMES, volume)


@pytest.mark.parametrize("read_only", [False, True])
async def test_a_bound_claim_mounts_its_volume_directory(tmp_path: Path, read_only: bool) -> None:
    client = FakeClient()
    target = tmp_path / "local-path" / "pv1_default_data"
    seed(client, target)
    volumes = VolumeManager(client, tmp_path / "node")
    await volumes.setup_pod_volumes(pod(read_only))
    assert stat.S_IMODE(target.stat().st_mode) == 0o777  # any container user may write
    spec = pod(read_only)["spec"]
    mounts = make_mounts(volumes, pod(read_only), spec["containers"][0])  # type: ignore[index]
    assert [(m.host_path, m.container_path, m.read_only) for m in mounts] == [
        (str(target), "/data", read_only)
    ]
    volumes.cleanup_pod_volumes("u1")
    assert target.exists()  # the claim's data outlives the pod


async def test_an_unbound_claim_keeps_the_pod_waiting(tmp_path: Path) -> None:
    client = FakeClient()
    seed(client, tmp_path / "x", bound=False)
    with pytest.raises(VolumeSetupError) as failed:
        await VolumeManager(client, tmp_path / "node").setup_pod_volumes(pod())
    assert (
        str(failed.value)
        == 'MountVolume.SetUp failed for volume "v" : error processing PVC default/data: PVC is not bound'
    )
