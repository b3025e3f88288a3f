"""Services: DNS-label names, upstream's defaults, a cluster IP from the service range (default
127.96.0.0/12, ``--service-cluster-ip-range``) and node ports (default 30000-32767,
``--service-node-port-range``) allocated on create, and the ``kubectl get services`` row.

Cluster IPs are loopback addresses here (upstream would refuse a loopback ``clusterIP``: its
service range is routable; ours is the machine's own, so nothing leaves it).

Allocation is in memory (``serviceallocator``): pass allocators whose ``used`` callable reports
the values of stored services, or values of deleted services are never reused.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Any, Self

from apiserver.registry.age import age
from apiserver.registry.resources.configmap import AGE_COLUMN
from apiserver.registry.resources.podtemplatespec import format_labels
from apiserver.registry.resources.podvalidation import to_causes
from apiserver.registry.resources.serviceallocator import (
    ClusterIPAllocator,
    NodePortAllocator,
    ServiceNetwork,
    node_port_allocator,
)
from apiserver.registry.resources.servicespec import (
    allocate,
    default_service,
    keep_allocated,
    validate_cluster_ip_unchanged,
    validate_service,
)
from apiserver.registry.strategy import NAME_COLUMN, Column, Strategy
from minikube_py.api.errors import Cause
from minikube_py.api.models import core_service
from minikube_py.api.unstructured import Object

COLUMNS: list[Column] = [
    NAME_COLUMN,
    ("Type", "string", "", "type determines how the Service is exposed.", 0),
    ("Cluster-IP", "string", "", "clusterIP is the IP address of the service.", 0),
    ("External-IP", "string", "", "externalIPs is a list of IP addresses for which nodes accept traffic.", 0),
    ("Port(s)", "string", "", "The list of ports that are exposed by this service.", 0),
    AGE_COLUMN,
    ("Selector", "string", "", "Route service traffic to pods with labels matching this selector.", 1),
]


def external_ip(svc: Object) -> str:
    """Upstream's ``getServiceExternalIP`` (wide: load-balancer addresses are not clipped)."""
    spec, status = svc.get("spec") or {}, svc.get("status") or {}
    kind, external = spec.get("type"), list(spec.get("externalIPs") or [])
    if kind in ("ClusterIP", "NodePort"):
        return ",".join(external) or "<none>"
    if kind == "LoadBalancer":
        ingress = (status.get("loadBalancer") or {}).get("ingress") or []
        addresses = {i.get("ip") or i.get("hostname") for i in ingress}
        balancers = sorted(str(address) for address in addresses if address)
        return ",".join(balancers + external) or "<pending>"
    if kind == "ExternalName":
        return str(spec.get("externalName", ""))
    return "<unknown>"


def port_string(ports: list[Any]) -> str:
    """``443/TCP``, or ``80:30080/TCP`` with a node port; ``<none>`` without ports."""
    pieces = []
    for port in ports:
        node_port = port.get("nodePort") or 0
        middle = f":{node_port}" if node_port > 0 else ""
        pieces.append(f"{port.get('port', 0)}{middle}/{port.get('protocol', '')}")
    return ",".join(pieces) or "<none>"


def _owner(svc: Object) -> str:
    meta = svc.get("metadata") or {}
    return f"{meta.get('namespace', '')}/{meta.get('name', '')}"


class ServiceStrategy(Strategy):
    kinds = (core_service.Service,)
    status_field = "status"
    name_rule = "label"
    return_deleted_object = True
    columns = COLUMNS

    def __init__(
        self, cluster_ips: ClusterIPAllocator | None = None, node_ports: NodePortAllocator | None = None
    ) -> None:
        self.cluster_ips = cluster_ips or ClusterIPAllocator()
        self.node_ports = node_ports or node_port_allocator()
        self._stored: Callable[[], Iterable[Object]] | None = None

    @classmethod
    def for_storage(cls, stored_objects: Callable[[], Iterable[Object]]) -> Self:
        """Allocators of the default ranges that take what the stored services hold as used
        (``use_network`` switches to the configured ranges)."""
        strategy = cls()
        strategy._stored = stored_objects
        strategy.use_network(ServiceNetwork())
        return strategy

    def use_network(self, network: ServiceNetwork) -> None:
        """Allocate from ``network``'s ranges (the apiserver's flags)."""
        stored = self._stored
        if stored is None:
            self.cluster_ips = ClusterIPAllocator(network.cidr)
            self.node_ports = node_port_allocator(ports=network.node_ports)
            return

        def cluster_ips() -> Iterator[tuple[str, str]]:
            for svc in stored():
                spec, owner = svc.get("spec", {}), _owner(svc)
                for ip in spec.get("clusterIPs") or [spec.get("clusterIP", "")]:
                    yield ip, owner

        def node_ports() -> Iterator[tuple[int, str]]:
            for svc in stored():
                for port in svc.get("spec", {}).get("ports") or []:
                    if isinstance(port.get("nodePort"), int) and port["nodePort"]:
                        yield port["nodePort"], _owner(svc)

        self.cluster_ips = ClusterIPAllocator(network.cidr, used=cluster_ips)
        self.node_ports = node_port_allocator(used=node_ports, ports=network.node_ports)

    def prepare_for_create(self, obj: Object) -> None:
        super().prepare_for_create(obj)
        spec = obj.setdefault("spec", {})
        default_service(spec)
        allocate(spec, self.cluster_ips, self.node_ports, _owner(obj))
        obj["status"] = {"loadBalancer": {}}

    def prepare_for_update(self, new: Object, old: Object) -> None:
        super().prepare_for_update(new, old)
        keep_allocated(new, old)
        default_service(new["spec"])
        allocate(new["spec"], self.cluster_ips, self.node_ports, _owner(old), old.get("spec") or {})

    def validate(self, obj: Object) -> list[Cause]:
        return to_causes(validate_service(obj))

    def validate_update(self, new: Object, old: Object) -> list[Cause]:
        return to_causes(validate_service(new) + validate_cluster_ip_unchanged(new, old))

    def selectable_fields(self, obj: Object) -> dict[str, str]:
        spec = obj.get("spec") or {}
        return {
            **super().selectable_fields(obj),
            "spec.clusterIP": spec.get("clusterIP") or "",
            "spec.type": spec.get("type") or "",
        }

    def table_cells(self, obj: Object, now: float) -> list[Any]:
        meta, spec = obj["metadata"], obj.get("spec") or {}
        return [
            meta["name"],
            spec.get("type", ""),
            (spec.get("clusterIPs") or ["<none>"])[0],
            external_ip(obj),
            port_string(spec.get("ports") or []),
            age(meta.get("creationTimestamp"), now),
            format_labels(spec.get("selector")),
        ]
