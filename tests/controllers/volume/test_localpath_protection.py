"""The local-path provisioner and the pvc-/pv-protection controllers, ``sync`` on the fake client."""

from __future__ import annotations

from pathlib import Path

import pytest

from controllers.volume.localpath.provisioner import LocalPathProvisioner
from controllers.volume.pvcprotection.controller import PVCProtectionController
from controllers.volume.pvprotection.controller import PVProtectionController
from minikube_py.api.unstructured import Object
from minikube_py.client.resourcetypes import (
    NODES,
    PERSISTENTVOLUMECLAIMS,
    PERSISTENTVOLUMES,
    PODS,
    STORAGECLASSES,
)
from tests.controllers.volume.fixtures import Harness, claim, ref, storage_class, volume

LOCAL = "minikube-py.io/local-path"


def node(name: str, root: Path | None) -> Object:
    annotations = {"minikube-py.io/local-path-dir": str(root)} if root else {}
    return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "annotations": annotations}}


def handed_claim(selected: str | None = "n1") -> Object:
    c = claim()
    c["metadata"]["annotations"]["volume.kubernetes.io/storage-provisioner"] = LOCAL
    if selected:
        c["metadata"]["annotations"]["volume.kubernetes.io/selected-node"] = selected
    return c


def provisioner(
    h: Harness, claims: list[Object], nodes: list[Object], mode: str = "WaitForFirstConsumer"
) -> LocalPathProvisioner:
    p = LocalPathProvisioner(h.fake, h.factory, h.recorder, clock=h.clock)
    h.seed(PERSISTENTVOLUMECLAIMS, *claims)
    h.seed(NODES, *nodes)
    h.seed(STORAGECLASSES, storage_class(mode=mode, provisioner=LOCAL))
    return p


async def test_a_claim_gets_a_host_path_volume_on_the_selected_node(tmp_path: Path) -> None:
    h = Harness()
    p = provisioner(h, [handed_claim()], [node("n1", tmp_path)])
    await p.sync("claim/default/data")
    pv = h.volume("pvc-uid-data")
    assert pv is not None
    assert pv["metadata"]["annotations"] == {"pv.kubernetes.io/provisioned-by": LOCAL}
    assert pv["spec"]["hostPath"] == {
        "path": f"{tmp_path}/pvc-uid-data_default_data",
        "type": "DirectoryOrCreate",
    }
    assert pv["spec"]["claimRef"]["uid"] == "uid-data"
    assert pv["spec"]["persistentVolumeReclaimPolicy"] == "Delete"
    term = pv["spec"]["nodeAffinity"]["required"]["nodeSelectorTerms"][0]["matchExpressions"][0]
    assert term == {"key": "kubernetes.io/hostname", "operator": "In", "values": ["n1"]}
    assert h.recorder.events == [
        'Normal Provisioning External provisioner is provisioning volume for claim "default/data"',
        "Normal ProvisioningSucceeded Successfully provisioned volume pvc-uid-data",
    ]


@pytest.mark.parametrize(
    ("selected", "mode", "events"),
    [
        (None, "WaitForFirstConsumer", []),
        (None, "Immediate", ["Warning ProvisioningFailed configuration error, no node was specified"]),
    ],
)
async def test_no_volume_without_a_node(selected: str | None, mode: str, events: list[str]) -> None:
    h = Harness()
    p = provisioner(h, [handed_claim(selected)], [], mode)
    await p.sync("claim/default/data")
    assert h.volume("pvc-uid-data") is None
    assert h.recorder.events == events


async def test_a_node_without_a_local_path_dir_fails_and_retries() -> None:
    h = Harness()
    p = provisioner(h, [handed_claim()], [node("n1", None)])
    with pytest.raises(RuntimeError):
        await p.sync("claim/default/data")
    assert h.recorder.events[0].startswith('Warning ProvisioningFailed failed to provision volume: node "n1"')


async def test_a_released_delete_volume_goes_with_its_directory(tmp_path: Path) -> None:
    h = Harness()
    directory = tmp_path / "pvc-uid-data_default_data"
    directory.mkdir()
    (directory / "file").write_text("x")
    pv = volume("pvc-uid-data", claimRef=ref(claim()), persistentVolumeReclaimPolicy="Delete")
    pv["spec"]["hostPath"] = {"path": str(directory), "type": "DirectoryOrCreate"}
    pv["metadata"]["annotations"]["pv.kubernetes.io/provisioned-by"] = LOCAL
    pv["status"]["phase"] = "Released"
    p = provisioner(h, [], [])
    h.seed(PERSISTENTVOLUMES, pv)
    await p.sync("volume/pvc-uid-data")
    assert not directory.exists()
    assert h.volume("pvc-uid-data") is None


async def test_the_default_class_is_created_when_missing() -> None:
    h = Harness()
    p = LocalPathProvisioner(h.fake, h.factory, h.recorder, clock=h.clock)
    await p.ensure_default_storage_class()
    created = h.fake.stored(STORAGECLASSES, "", "standard")
    assert created is not None
    assert created["metadata"]["annotations"] == {"storageclass.kubernetes.io/is-default-class": "true"}
    assert (created["provisioner"], created["volumeBindingMode"], created["reclaimPolicy"]) == (
        LOCAL,
        "WaitForFirstConsumer",
        "Delete",
    )


def user(name: str, phase: str = "Running", node_name: str = "n1") -> Object:
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": "default", "uid": f"uid-{name}"},
        "spec": {
            "nodeName": node_name,
            "volumes": [{"name": "v", "persistentVolumeClaim": {"claimName": "data"}}],
        },
        "status": {"phase": phase},
    }


def deleting(obj: Object, finalizer: str) -> Object:
    obj["metadata"]["deletionTimestamp"] = "2020-01-01T00:00:00Z"
    obj["metadata"]["finalizers"] = [finalizer]
    return obj


@pytest.mark.parametrize(
    ("pods", "kept"),
    [
        ([user("a")], True),
        ([user("a", phase="Succeeded")], False),
        ([user("a", node_name="")], False),
        ([], False),
    ],
    ids=["used", "its pod finished", "its pod is not scheduled", "unused"],
)
async def test_pvc_protection(pods: list[Object], kept: bool) -> None:
    h = Harness()
    c = PVCProtectionController(h.fake, h.factory, clock=h.clock)
    h.seed(PERSISTENTVOLUMECLAIMS, deleting(claim(), "kubernetes.io/pvc-protection"))
    h.seed(PODS, *pods)
    await c.sync("default/data")
    stored = h.fake.stored(PERSISTENTVOLUMECLAIMS, "default", "data")
    assert (stored is not None) == kept


async def test_protection_adds_the_finalizers() -> None:
    h = Harness()
    pvc, pv = (
        PVCProtectionController(h.fake, h.factory, clock=h.clock),
        PVProtectionController(h.fake, h.factory, clock=h.clock),
    )
    h.seed(PERSISTENTVOLUMECLAIMS, claim())
    h.seed(PERSISTENTVOLUMES, volume())
    await pvc.sync("default/data")
    await pv.sync("pv1")
    assert h.claim("data")["metadata"]["finalizers"] == ["kubernetes.io/pvc-protection"]
    assert h.volume("pv1")["metadata"]["finalizers"] == ["kubernetes.io/pv-protection"]  # type: ignore[index]


@pytest.mark.parametrize(("phase", "kept"), [("Bound", True), ("Released", False), ("Available", False)])
async def test_pv_protection(phase: str, kept: bool) -> None:
    h = Harness()
    c = PVProtectionController(h.fake, h.factory, clock=h.clock)
    pv = deleting(volume(), "kubernetes.io/pv-protection")
    pv["status"]["phase"] = phase
    h.seed(PERSISTENTVOLUMES, pv)
    await c.sync("pv1")
    assert (h.volume("pv1") is not None) == kept
