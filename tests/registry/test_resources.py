"""Node, Endpoints, Event, ServiceAccount, Lease and PriorityClass strategies, and the columns of
every strategy in this package against upstream's printers."""

from __future__ import annotations

from typing import Any

import pytest

from apiserver.registry.resources.daemonset import DaemonSetStrategy
from apiserver.registry.resources.deployment import DeploymentStrategy
from apiserver.registry.resources.endpoints import EndpointsStrategy, format_endpoints
from apiserver.registry.resources.event import EventStrategy
from apiserver.registry.resources.job import JobStrategy
from apiserver.registry.resources.lease import LeaseStrategy
from apiserver.registry.resources.node import NodeStrategy
from apiserver.registry.resources.pod import PodStrategy
from apiserver.registry.resources.priorityclass import PriorityClassStrategy
from apiserver.registry.resources.replicaset import ReplicaSetStrategy
from apiserver.registry.resources.service import ServiceStrategy
from apiserver.registry.resources.serviceaccount import ServiceAccountStrategy
from apiserver.registry.resources.statefulset import StatefulSetStrategy
from apiserver.registry.strategy import Strategy
from tests.registry.helpers import NOW, ago, causes, meta, prepared_for_create, prepared_for_update

WIDE = ["Containers*", "Images*", "Selector*"]
# column names in upstream's order; a ``*`` marks a priority-1 (``-o wide``) column
COLUMNS: list[tuple[Strategy, list[str]]] = [
    (
        PodStrategy(),
        ["Name", "Ready", "Status", "Restarts", "Age", "IP*", "Node*", "Nominated Node*", "Readiness Gates*"],
    ),
    (DeploymentStrategy(), ["Name", "Ready", "Up-to-date", "Available", "Age", *WIDE]),
    (ReplicaSetStrategy(), ["Name", "Desired", "Current", "Ready", "Age", *WIDE]),
    (
        DaemonSetStrategy(),
        ["Name", "Desired", "Current", "Ready", "Up-to-date", "Available", "Node Selector", "Age", *WIDE],
    ),
    (StatefulSetStrategy(), ["Name", "Ready", "Age", "Containers*", "Images*"]),
    (JobStrategy(), ["Name", "Status", "Completions", "Duration", "Age", *WIDE]),
    (
        NodeStrategy(),
        [
            "Name",
            "Status",
            "Roles",
            "Age",
            "Version",
            "Internal-IP*",
            "External-IP*",
            "OS-Image*",
            "Kernel-Version*",
            "Container-Runtime*",
        ],
    ),
    (ServiceStrategy(), ["Name", "Type", "Cluster-IP", "External-IP", "Port(s)", "Age", "Selector*"]),
    (EndpointsStrategy(), ["Name", "Endpoints", "Age"]),
    (
        EventStrategy(),
        [
            "Last Seen",
            "Type",
            "Reason",
            "Object",
            "Subobject*",
            "Source*",
            "Message",
            "First Seen*",
            "Count*",
            "Name*",
        ],
    ),
    (ServiceAccountStrategy(), ["Name", "Secrets", "Age"]),
    (LeaseStrategy(), ["Name", "Holder", "Age"]),
    (PriorityClassStrategy(), ["Name", "Value", "Global-Default", "Age", "PreemptionPolicy"]),
]


@pytest.mark.parametrize(("strategy", "expected"), COLUMNS, ids=[type(s).__name__ for s, _ in COLUMNS])
def test_columns(strategy: Strategy, expected: list[str]) -> None:
    columns = strategy.table_columns()
    assert [c[0] + "*" * c[4] for c in columns] == expected
    assert all(c[3] for c in columns)  # every column is described
    # a bare object prints a full row
    assert len(strategy.table_cells({"metadata": meta("bare")}, NOW)) == len(columns)


@pytest.mark.parametrize("strategy", [s for s, _ in COLUMNS], ids=[type(s).__name__ for s, _ in COLUMNS])
def test_selectable_fields_of_a_bare_object(strategy: Strategy) -> None:
    """The list endpoint asks for the field names with a bare object: every value is a string."""
    fields = strategy.selectable_fields({"metadata": {"name": "", "namespace": ""}})
    assert "metadata.name" in fields and all(isinstance(v, str) for v in fields.values())


# Node


def node(labels: dict[str, str] | None = None, ready: str | None = "True", **spec: Any) -> dict[str, Any]:
    status: dict[str, Any] = {
        "addresses": [
            {"type": "InternalIP", "address": "192.168.49.2"},
            {"type": "Hostname", "address": "n1"},
        ],
        "nodeInfo": {
            "kubeletVersion": "v1.32.0",
            "osImage": "Ubuntu 22.04.4 LTS",
            "kernelVersion": "6.5.0",
            "containerRuntimeVersion": "containerd://1.7.0",
        },
    }
    if ready is not None:
        status["conditions"] = [
            {"type": "MemoryPressure", "status": "False"},
            {"type": "Ready", "status": ready},
        ]
    return {"metadata": meta("n1", namespace=None, labels=labels or {}), "spec": spec, "status": status}


@pytest.mark.parametrize(
    ("obj", "status", "roles"),
    [
        (node(), "Ready", "<none>"),
        (
            node(
                {"node-role.kubernetes.io/control-plane": "", "node-role.kubernetes.io/etcd": ""},
                "False",
                unschedulable=True,
            ),
            "NotReady,SchedulingDisabled",
            "control-plane,etcd",
        ),
        (node({"kubernetes.io/role": "worker"}, None), "Unknown", "worker"),
        (node({"node-role.kubernetes.io/": "x"}, "Unknown"), "NotReady", "<none>"),
    ],
)
def test_node_row(obj: dict[str, Any], status: str, roles: str) -> None:
    assert NodeStrategy().table_cells(obj, NOW) == [
        "n1",
        status,
        roles,
        "60m",
        "v1.32.0",
        "192.168.49.2",
        "<none>",
        "Ubuntu 22.04.4 LTS",
        "6.5.0",
        "containerd://1.7.0",
    ]


def test_node_keeps_its_registered_status_and_defaults_allocatable() -> None:
    obj = node()
    obj["status"]["capacity"] = {"cpu": "4", "memory": "8Gi"}
    prepared_for_create(NodeStrategy(), obj)
    assert obj["status"]["nodeInfo"]["kubeletVersion"] == "v1.32.0"
    assert obj["status"]["allocatable"] == {"cpu": "4", "memory": "8Gi"}


def test_node_update_keeps_status() -> None:
    old, new = node(), node(ready="False")
    prepared_for_update(NodeStrategy(), new, old)
    assert new["status"] == old["status"]


def test_node_selectable_fields() -> None:
    assert NodeStrategy().selectable_fields(node(unschedulable=True)) == {
        "metadata.name": "n1",
        "spec.unschedulable": "true",
    }


def test_node_wide_cells_without_info() -> None:
    obj = {"metadata": meta("n2", namespace=None), "status": {}}
    assert NodeStrategy().table_cells(obj, NOW)[4:] == [
        "",
        "<none>",
        "<none>",
        "<unknown>",
        "<unknown>",
        "<unknown>",
    ]


# Endpoints


def subset(ips: list[str], ports: list[int]) -> dict[str, Any]:
    return {"addresses": [{"ip": ip} for ip in ips], "ports": [{"port": p} for p in ports]}


@pytest.mark.parametrize(
    ("subsets", "text"),
    [
        ([], "<none>"),
        ([subset(["10.0.0.1"], [80])], "10.0.0.1:80"),
        ([subset(["10.0.0.1", "10.0.0.2"], [80])], "10.0.0.1:80,10.0.0.2:80"),
        (
            [subset(["10.0.0.1", "10.0.0.2", "10.0.0.3"], [53, 9153])],
            "10.0.0.1:53,10.0.0.2:53,10.0.0.3:53 + 3 more...",
        ),
        ([subset(["10.0.0.1"], [80]), subset(["10.0.0.9", "10.0.0.8"], [])], "10.0.0.1:80,10.0.0.9,10.0.0.8"),
        ([subset(["fd00::1"], [80])], "[fd00::1]:80"),
        ([subset([], [80])], ""),
    ],
)
def test_endpoints_cell(subsets: list[dict[str, Any]], text: str) -> None:
    assert format_endpoints({"subsets": subsets}) == text


def test_endpoints_ports_default_to_tcp_and_row() -> None:
    obj: dict[str, Any] = {"metadata": meta("kube-dns"), "subsets": [subset(["10.0.0.1"], [53])]}
    prepared_for_create(EndpointsStrategy(), obj)
    assert obj["subsets"][0]["ports"] == [{"port": 53, "protocol": "TCP"}]
    assert EndpointsStrategy().table_cells(obj, NOW) == ["kube-dns", "10.0.0.1:53", "60m"]


# Event


def event(**fields: Any) -> dict[str, Any]:
    return {
        "metadata": meta("web.17a"),
        "involvedObject": {
            "kind": "Pod",
            "namespace": "default",
            "name": "web",
            "uid": "p-1",
            "apiVersion": "v1",
        },
        "reason": "Pulled",
        "message": 'Successfully pulled image "nginx"\n',
        "type": "Normal",
        **fields,
    }


def test_event_row() -> None:
    obj = event(
        source={"component": "kubelet", "host": "n1"},
        firstTimestamp=ago(minutes=10),
        lastTimestamp=ago(minutes=2),
        count=4,
    )
    obj["involvedObject"]["fieldPath"] = "spec.containers{web}"
    assert EventStrategy().table_cells(obj, NOW) == [
        "2m",
        "Normal",
        "Pulled",
        "pod/web",
        "spec.containers{web}",
        "kubelet, n1",
        'Successfully pulled image "nginx"',
        "10m",
        4,
        "web.17a",
    ]


def test_new_style_event_row() -> None:
    obj = event(
        eventTime="2024-05-01T11:59:29.750000Z", reportingComponent="default-scheduler", reportingInstance=""
    )
    obj["involvedObject"] = {"kind": "Node"}
    row = EventStrategy().table_cells(obj, NOW)
    assert row[:6] == ["30s", "Normal", "Pulled", "node", "", "default-scheduler"]  # truncated, as upstream
    assert row[7:9] == ["30s", 1]


def test_event_series() -> None:
    obj = event(
        eventTime=ago(minutes=30), series={"count": 7, "lastObservedTime": "2024-05-01T11:59:00.000000Z"}
    )
    row = EventStrategy().table_cells(obj, NOW)
    assert (row[0], row[7], row[8]) == ("60s", "30m", 7)


def test_event_selectable_fields() -> None:
    obj = event(reportingComponent="kubelet")
    assert EventStrategy().selectable_fields(obj) == {
        "metadata.name": "web.17a",
        "metadata.namespace": "default",
        "involvedObject.kind": "Pod",
        "involvedObject.namespace": "default",
        "involvedObject.name": "web",
        "involvedObject.uid": "p-1",
        "involvedObject.apiVersion": "v1",
        "involvedObject.resourceVersion": "",
        "involvedObject.fieldPath": "",
        "reason": "Pulled",
        "reportingComponent": "kubelet",
        "source": "kubelet",
        "type": "Normal",
    }


# ServiceAccount, Lease, PriorityClass


def test_service_account_row() -> None:
    obj = {"metadata": meta("default"), "secrets": [{"name": "a"}, {"name": "b"}]}
    assert ServiceAccountStrategy().table_cells(obj, NOW) == ["default", 2, "60m"]
    assert ServiceAccountStrategy().table_cells({"metadata": meta("bare")}, NOW) == ["bare", 0, "60m"]


def test_lease_row() -> None:
    obj = {"metadata": meta("kube-scheduler", "kube-system"), "spec": {"holderIdentity": "n1_abc"}}
    assert LeaseStrategy().table_cells(obj, NOW) == ["kube-scheduler", "n1_abc", "60m"]


def priority_class(name: str, value: int, **fields: Any) -> dict[str, Any]:
    return {"metadata": meta(name, namespace=None), "value": value, **fields}


def test_priority_class_defaults_and_row() -> None:
    strategy = PriorityClassStrategy()
    obj = priority_class("high", 1000, globalDefault=True)
    prepared_for_create(strategy, obj)
    assert strategy.table_cells(obj, NOW) == ["high", 1000, True, "60m", "PreemptLowerPriority"]
    assert strategy.validate(obj) == []


@pytest.mark.parametrize(
    ("obj", "expected"),
    [
        (priority_class("system-cluster-critical", 2_000_000_000), []),
        (
            priority_class("huge", 1_000_000_001),
            [
                (
                    "FieldValueForbidden",
                    "value",
                    "Forbidden: maximum allowed value of a user defined priority is 1000000000",
                )
            ],
        ),
        (
            priority_class("system-mine", 10),
            [
                (
                    "FieldValueForbidden",
                    "metadata.name",
                    "Forbidden: priority class names with 'system-' prefix are reserved for system use only. "
                    "error: system-mine is not a known system priority class",
                )
            ],
        ),
    ],
)
def test_priority_class_validation(obj: dict[str, Any], expected: list[tuple[str, str, str]]) -> None:
    strategy = PriorityClassStrategy()
    prepared_for_create(strategy, obj)
    assert causes(strategy.validate(obj)) == expected


def test_priority_class_value_is_immutable() -> None:
    strategy = PriorityClassStrategy()
    old = priority_class("high", 1000)
    prepared_for_create(strategy, old)
    new = priority_class("high", 2000)
    prepared_for_update(strategy, new, old)
    assert causes(strategy.validate_update(new, old)) == [
        ("FieldValueForbidden", "value", "Forbidden: may not be changed in an update.")
    ]
