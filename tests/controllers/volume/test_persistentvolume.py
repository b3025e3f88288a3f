"""``PersistentVolumeController.sync_claim`` / ``sync_volume`` on the fake client, table-driven."""

from __future__ import annotations

from typing import Any

import pytest

from controllers.volume.persistentvolume.controller import PersistentVolumeController
from minikube_py.api.unstructured import Object
from minikube_py.client.resourcetypes import PERSISTENTVOLUMECLAIMS, PERSISTENTVOLUMES, STORAGECLASSES
from tests.controllers.volume.fixtures import Harness, claim, ref, storage_class, volume


def controller(
    h: Harness, claims: list[Object], volumes: list[Object], classes: list[Object]
) -> PersistentVolumeController:
    c = PersistentVolumeController(h.fake, h.factory, h.recorder, clock=h.clock)
    h.seed(PERSISTENTVOLUMECLAIMS, *claims)
    h.seed(PERSISTENTVOLUMES, *volumes)
    h.seed(STORAGECLASSES, *classes)
    return c


CLAIM_CASES: list[tuple[str, list[Object], list[Object], list[Object], dict[str, Any]]] = [
    (
        "binds the smallest matching available volume",
        [claim()],
        [volume("big", size="10Gi"), volume("small", size="2Gi"), volume("tiny", size="100Mi")],
        [storage_class()],
        {"phase": "Bound", "volume": "small", "events": []},
    ),
    (
        "a selector narrows the candidates",
        [claim(selector={"matchLabels": {"tier": "gold"}})],
        [volume("plain"), {**volume("gold"), "metadata": {"name": "gold", "labels": {"tier": "gold"}}}],
        [storage_class()],
        {"phase": "Bound", "volume": "gold", "events": []},
    ),
    (
        "access modes and volumeMode must match",
        [claim(accessModes=["ReadWriteMany"])],
        [volume("rwo")],
        [],
        {
            "phase": "Pending",
            "volume": None,
            "events": ['Warning ProvisioningFailed storageclass.storage.k8s.io "standard" not found'],
        },
    ),
    (
        "WaitForFirstConsumer: no binding without a selected node",
        [claim()],
        [volume()],
        [storage_class(mode="WaitForFirstConsumer")],
        {
            "phase": "Pending",
            "volume": None,
            "events": ["Normal WaitForFirstConsumer waiting for first consumer to be created before binding"],
        },
    ),
    (
        "a class that does not exist",
        [claim(storage_class="x")],
        [],
        [],
        {
            "phase": "Pending",
            "volume": None,
            "events": ['Warning ProvisioningFailed storageclass.storage.k8s.io "x" not found'],
        },
    ),
    (
        "no class and no volume",
        [claim(storage_class=None)],
        [],
        [],
        {
            "phase": "Pending",
            "volume": None,
            "events": [
                "Normal FailedBinding no persistent volumes available for this claim and no storage class"
                " is set"
            ],
        },
    ),
    (
        "a volume pre-bound to the claim wins, even with delayed binding",
        [claim()],
        [volume("other"), volume("mine", claimRef=ref(claim(), uid=False))],
        [storage_class(mode="WaitForFirstConsumer")],
        {"phase": "Bound", "volume": "mine", "events": []},
    ),
    (
        "a claim pre-bound to a volume that is too small",
        [claim(volumeName="pv1")],
        [volume(size="1Mi")],
        [storage_class()],
        {
            "phase": "Pending",
            "volume": None,
            "events": [
                'Warning VolumeMismatch Cannot bind to requested volume "pv1": requested PV is too small'
            ],
        },
    ),
]


@pytest.mark.parametrize(
    ("name", "claims", "volumes", "classes", "want"), CLAIM_CASES, ids=[c[0] for c in CLAIM_CASES]
)
async def test_sync_claim(
    name: str, claims: list[Object], volumes: list[Object], classes: list[Object], want: dict[str, Any]
) -> None:
    h = Harness()
    c = controller(h, claims, volumes, classes)
    await c.sync_claim("default/data")
    stored = h.claim("data")
    assert stored["status"]["phase"] == want["phase"]
    assert h.recorder.events == want["events"]
    if want["volume"] is None:
        assert not (stored["spec"].get("volumeName") and stored["status"]["phase"] == "Bound")
        return
    assert stored["spec"]["volumeName"] == want["volume"]
    assert stored["metadata"]["annotations"]["pv.kubernetes.io/bind-completed"] == "yes"
    assert stored["status"]["capacity"] == {
        "storage": h.volume(want["volume"])["spec"]["capacity"]["storage"]
    }  # type: ignore[index]
    bound = h.volume(want["volume"])
    assert bound is not None and bound["status"]["phase"] == "Bound"
    assert bound["spec"]["claimRef"]["uid"] == "uid-data"


async def test_a_claim_of_an_external_provisioner_is_annotated_and_waits() -> None:
    h = Harness()
    c = controller(h, [claim()], [], [storage_class(provisioner="example.com/p")])
    await c.sync_claim("default/data")
    annotations = h.claim("data")["metadata"]["annotations"]
    assert annotations["volume.kubernetes.io/storage-provisioner"] == "example.com/p"
    assert annotations["volume.beta.kubernetes.io/storage-provisioner"] == "example.com/p"
    assert h.recorder.events[0].startswith(
        "Normal ExternalProvisioning Waiting for a volume to be created either by the external"
        " provisioner 'example.com/p'"
    )


async def test_a_delayed_claim_with_a_selected_node_is_provisioned() -> None:
    h = Harness()
    delayed = claim()
    delayed["metadata"]["annotations"]["volume.kubernetes.io/selected-node"] = "n1"
    c = controller(h, [delayed], [], [storage_class(mode="WaitForFirstConsumer")])
    await c.sync_claim("default/data")
    assert (
        h.claim("data")["metadata"]["annotations"]["volume.kubernetes.io/storage-provisioner"]
        == "example.com/p"
    )


async def test_a_bound_claim_whose_volume_is_gone_is_lost() -> None:
    h = Harness()
    lost = claim(volumeName="gone")
    lost["metadata"]["annotations"]["pv.kubernetes.io/bind-completed"] = "yes"
    c = controller(h, [lost], [], [])
    await c.sync_claim("default/data")
    assert h.claim("data")["status"]["phase"] == "Lost"
    assert h.recorder.events == [
        "Warning ClaimLost Bound claim has lost its PersistentVolume. Data on the volume is lost!"
    ]


VOLUME_CASES = [
    ("no claimRef: Available", volume(), [], "Available", []),
    ("claim deleted, Retain: Released", volume(claimRef=ref(claim())), [], "Released", []),
    (
        "claim deleted, Delete without a provisioner: Failed",
        volume(claimRef=ref(claim()), persistentVolumeReclaimPolicy="Delete"),
        [],
        "Failed",
        [
            'Warning VolumeFailedDelete error getting deleter volume plugin for volume "pv1": '
            "no volume plugin matched"
        ],
    ),
    (
        "claim deleted, Recycle: Failed",
        volume(claimRef=ref(claim()), persistentVolumeReclaimPolicy="Recycle"),
        [],
        "Failed",
        ["Warning VolumeFailedRecycle No recycler plugin found for the volume!"],
    ),
    (
        "a new claim of the same name does not hold it",
        volume(claimRef=ref(claim())),
        [{**claim(), "metadata": {**claim()["metadata"], "uid": "other"}}],
        "Released",
        [],
    ),
    (
        "its claim is bound to it: Bound",
        volume(claimRef=ref(claim())),
        [claim(volumeName="pv1")],
        "Bound",
        [],
    ),
]


@pytest.mark.parametrize(
    ("name", "pv", "claims", "phase", "events"), VOLUME_CASES, ids=[c[0] for c in VOLUME_CASES]
)
async def test_sync_volume(
    name: str, pv: Object, claims: list[Object], phase: str, events: list[str]
) -> None:
    h = Harness()
    if phase != "Available":
        pv["status"]["phase"] = "Bound"
    c = controller(h, claims, [pv], [])
    await c.sync_volume("pv1")
    stored = h.volume("pv1")
    assert stored is not None and stored["status"]["phase"] == phase
    assert h.recorder.events == events


async def test_a_dynamically_provisioned_delete_volume_is_left_to_its_provisioner() -> None:
    h = Harness()
    pv = volume(claimRef=ref(claim()), persistentVolumeReclaimPolicy="Delete")
    pv["metadata"]["annotations"]["pv.kubernetes.io/provisioned-by"] = "example.com/p"
    pv["status"]["phase"] = "Bound"
    c = controller(h, [], [pv], [])
    await c.sync_volume("pv1")
    stored = h.volume("pv1")
    assert stored is not None and stored["status"]["phase"] == "Released"
    assert h.recorder.events == []
