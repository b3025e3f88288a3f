"""VolumeBinding with real listers: delayed claims provisioned on the chosen node, bound
volumes' node affinity, immediate unbound claims (upstream's messages)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from minikube_py.api.unstructured import Object
from minikube_py.client.resourcetypes import PERSISTENTVOLUMECLAIMS
from minikube_py.clock import FakeClock
from minikube_py.testing.fakeclient import FakeClient
from scheduler.framework.cyclestate import CycleState
from scheduler.framework.status import Code
from scheduler.plugins.volumebinding import VolumeBinding
from tests.scheduler.builders import make_handle, make_node, make_pod, node_info

WFFC = {"metadata": {"name": "wffc"}, "provisioner": "p", "volumeBindingMode": "WaitForFirstConsumer"}
IMMEDIATE = {"metadata": {"name": "now"}, "provisioner": "p", "volumeBindingMode": "Immediate"}


def pvc(name: str = "data", cls: str = "wffc", volume: str = "") -> Object:
    spec: dict[str, Any] = {
        "storageClassName": cls,
        "accessModes": ["ReadWriteOnce"],
        "resources": {"requests": {"storage": "1Gi"}},
    }
    if volume:
        spec["volumeName"] = volume
    return {
        "metadata": {"name": name, "namespace": "default", "uid": f"uid-{name}", "annotations": {}},
        "spec": spec,
    }


def pv_on(name: str, node: str) -> Object:
    term = {"matchExpressions": [{"key": "kubernetes.io/hostname", "operator": "In", "values": [node]}]}
    return {"metadata": {"name": name}, "spec": {"nodeAffinity": {"required": {"nodeSelectorTerms": [term]}}}}


def plugin(
    claims: dict[str, Object], volumes: list[Object], client: FakeClient | None = None
) -> VolumeBinding:
    nodes = [
        node_info(make_node("n1", labels={"kubernetes.io/hostname": "n1"})),
        node_info(make_node("n2", labels={"kubernetes.io/hostname": "n2"})),
    ]
    handle = make_handle(nodes, client)
    handle.pvc_lister = lambda namespace, name: claims.get(name)
    handle.pv_lister = lambda: volumes
    handle.storage_class_lister = {"wffc": WFFC, "now": IMMEDIATE}.get
    return VolumeBinding({"bindTimeoutSeconds": 5}, handle)


@pytest.mark.parametrize(
    ("claims", "volumes", "verdicts"),
    [
        ({"data": pvc()}, [], {"n1": (Code.SUCCESS, ""), "n2": (Code.SUCCESS, "")}),
        (
            {"data": pvc(volume="pv1")},
            [pv_on("pv1", "n2")],
            {
                "n1": (Code.UNSCHEDULABLE, "node(s) had volume node affinity conflict"),
                "n2": (Code.SUCCESS, ""),
            },
        ),
    ],
    ids=["delayed claim: any node can provision", "bound volume: its node only"],
)
def test_filter(
    claims: dict[str, Object], volumes: list[Object], verdicts: dict[str, tuple[Code, str]]
) -> None:
    vb = plugin(claims, volumes)
    state = CycleState()
    _, status = vb.pre_filter(state, make_pod(pvcs=("data",)), [])
    assert status.is_success()
    for name, (code, message) in verdicts.items():
        node = vb.handle.snapshot.get(name)
        assert node is not None
        result = vb.filter(state, make_pod(pvcs=("data",)), node)
        assert (result.code, result.message()) == (code, message)


def test_an_unbound_immediate_claim_is_unresolvable() -> None:
    _, status = plugin({"data": pvc(cls="now")}, []).pre_filter(CycleState(), make_pod(pvcs=("data",)), [])
    assert (status.code, status.message()) == (
        Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
        "pod has unbound immediate PersistentVolumeClaims",
    )


async def test_pre_bind_selects_the_node_and_waits_for_the_binding() -> None:
    client = FakeClient()
    claims = {"data": client.seed(PERSISTENTVOLUMECLAIMS, pvc())[0]}
    vb = plugin(claims, [], client)
    state, pod = CycleState(), make_pod(pvcs=("data",))
    vb.pre_filter(state, pod, [])
    assert vb.reserve(state, pod, "n1").is_success()
    waiting = asyncio.ensure_future(vb.pre_bind(state, pod, "n1"))
    await asyncio.sleep(0)
    stored = client.stored(PERSISTENTVOLUMECLAIMS, "default", "data")
    assert (
        stored is not None and stored["metadata"]["annotations"]["volume.kubernetes.io/selected-node"] == "n1"
    )
    assert not waiting.done()
    claims["data"] = {**stored, "spec": {**stored["spec"], "volumeName": "pvc-uid-data"}}  # the binder did it
    clock = vb.handle.clock
    assert isinstance(clock, FakeClock)
    await clock.step(1.0)
    assert (await asyncio.wait_for(waiting, 5)).is_success()
