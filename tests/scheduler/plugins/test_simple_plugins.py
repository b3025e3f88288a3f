"""PrioritySort, SchedulingGates, NodeName, NodeUnschedulable, NodePorts, DefaultBinder,
VolumeBinding."""

from __future__ import annotations

from typing import Any

import pytest

from minikube_py.client.resourcetypes import PODS
from minikube_py.testing.fakeclient import FakeClient
from scheduler.framework.cyclestate import CycleState
from scheduler.framework.status import Code
from scheduler.plugins.defaultbinder import DefaultBinder
from scheduler.plugins.nodename import NodeName
from scheduler.plugins.nodeports import NodePorts
from scheduler.plugins.nodeunschedulable import NodeUnschedulable
from scheduler.plugins.prioritysort import PrioritySort
from scheduler.plugins.schedulinggates import SchedulingGates
from scheduler.plugins.volumebinding import VolumeBinding
from tests.scheduler.builders import make_handle, make_node, make_pod, node_info, queued, toleration
from tests.scheduler.plugins.harness import run_filter

OK = Code.SUCCESS
UNSCHED, UNRESOLVABLE = Code.UNSCHEDULABLE, Code.UNSCHEDULABLE_AND_UNRESOLVABLE


@pytest.mark.parametrize(
    ("a", "b", "want"),
    [
        ((10, 5.0), (1, 1.0), True),
        ((1, 1.0), (10, 5.0), False),
        ((None, 1.0), (None, 2.0), True),
        ((None, 2.0), (None, 1.0), False),
        ((3, 1.0), (3, 1.0), False),
    ],
)
def test_priority_sort(a: tuple[int | None, float], b: tuple[int | None, float], want: bool) -> None:
    plugin = PrioritySort({}, make_handle())
    pa, pb = make_pod("a", priority=a[0]), make_pod("b", priority=b[0])
    assert plugin.less(queued(pa, a[1]), queued(pb, b[1])) is want


@pytest.mark.parametrize(
    ("gates", "code", "message"),
    [
        ((), OK, ""),
        (("example.com/a",), UNRESOLVABLE, "waiting for scheduling gates: [example.com/a]"),
        (("a", "b"), UNRESOLVABLE, "waiting for scheduling gates: [a b]"),
    ],
)
def test_scheduling_gates(gates: tuple[str, ...], code: Code, message: str) -> None:
    status = SchedulingGates({}, make_handle()).pre_enqueue(make_pod(scheduling_gates=gates))
    assert (status.code, status.message()) == (code, message)


@pytest.mark.parametrize(
    ("node_name", "code"),
    [("", OK), ("n1", OK), ("n2", UNRESOLVABLE)],
)
def test_node_name(node_name: str, code: Code) -> None:
    status = run_filter(
        NodeName({}, make_handle()), make_pod(node_name=node_name), node_info(make_node("n1"))
    )
    assert status.code == code
    if code != OK:
        assert status.message() == "node(s) didn't match the requested node name"


@pytest.mark.parametrize(
    ("unschedulable", "tolerations", "code"),
    [
        (False, [], OK),
        (True, [], UNRESOLVABLE),
        (True, [toleration("node.kubernetes.io/unschedulable", operator="Exists", effect="NoSchedule")], OK),
        (True, [toleration(operator="Exists")], OK),
        (
            True,
            [toleration("node.kubernetes.io/unschedulable", operator="Exists", effect="NoExecute")],
            UNRESOLVABLE,
        ),
    ],
)
def test_node_unschedulable(unschedulable: bool, tolerations: list[dict[str, Any]], code: Code) -> None:
    node = node_info(make_node(unschedulable=unschedulable))
    status = run_filter(NodeUnschedulable({}, make_handle()), make_pod(tolerations=tolerations), node)
    assert status.code == code
    if code != OK:
        assert status.message() == "node(s) were unschedulable"


@pytest.mark.parametrize(
    ("wanted", "used", "code"),
    [
        ([], [8080], OK),
        ([8080], [], OK),
        ([8080], [8080], UNSCHED),
        ([8080], [8081], OK),
        ([(8080, "UDP")], [8080], OK),
        ([(8080, "TCP", "10.0.0.1")], [(8080, "TCP", "10.0.0.2")], OK),
        ([(8080, "TCP", "10.0.0.1")], [8080], UNSCHED),  # 0.0.0.0 in use covers every IP
        ([8080], [(8080, "TCP", "10.0.0.2")], UNSCHED),  # 0.0.0.0 wanted conflicts with any IP
        ([8080, 9090], [9090], UNSCHED),
    ],
)
def test_node_ports(wanted: list[Any], used: list[Any], code: Code) -> None:
    node = node_info(make_node(), make_pod("existing", ports=used)) if used else node_info(make_node())
    status = run_filter(NodePorts({}, make_handle()), make_pod(ports=wanted), node)
    assert status.code == code
    if code != OK:
        assert status.message() == "node(s) didn't have free ports for the requested pod ports"


async def test_default_binder_posts_binding() -> None:
    client = FakeClient()
    pod = make_pod("web", namespace="ns1")
    client.seed(PODS, pod)
    status = await DefaultBinder({}, make_handle(client=client)).bind(CycleState(), pod, "n1")
    assert status.is_success()
    stored = client.stored(PODS, "ns1", "web")
    assert stored is not None and stored["spec"]["nodeName"] == "n1"
    action = client.actions[-1]
    assert action.subresource == "binding"
    assert action.body["target"] == {"apiVersion": "v1", "kind": "Node", "name": "n1"}
    assert action.body["metadata"] == {"name": "web", "namespace": "ns1", "uid": "uid-ns1-web"}


async def test_default_binder_error() -> None:
    status = await DefaultBinder({}, make_handle()).bind(CycleState(), make_pod("missing"), "n1")
    assert status.code == Code.ERROR


@pytest.mark.parametrize(
    ("pvcs", "claims", "code", "message"),
    [
        ((), None, OK, ""),
        (("data",), None, UNRESOLVABLE, "pod has unbound immediate PersistentVolumeClaims"),
        (("data",), {}, UNRESOLVABLE, 'persistentvolumeclaim "data" not found'),
        (("data",), {"data": {"spec": {}}}, UNRESOLVABLE, "pod has unbound immediate PersistentVolumeClaims"),
        (("data",), {"data": {"spec": {"volumeName": "pv1"}}}, OK, ""),
    ],
)
def test_volume_binding(
    pvcs: tuple[str, ...], claims: dict[str, Any] | None, code: Code, message: str
) -> None:
    handle = make_handle()
    if claims is not None:
        handle.pvc_lister = lambda namespace, name: claims.get(name)
        handle.pv_lister = lambda: [{"metadata": {"name": "pv1"}, "spec": {}}]
    status = run_filter(VolumeBinding({}, handle), make_pod(pvcs=pvcs), node_info(make_node()))
    assert (status.code, status.message()) == (code, message)
