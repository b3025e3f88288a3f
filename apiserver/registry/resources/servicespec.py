"""A Service's spec as upstream completes it: ``SetDefaults_Service`` plus what the service
REST storage allocates (IP families, cluster IPs, node ports), and its validation essentials."""

from __future__ import annotations

from typing import Any

from apiserver.registry.resources.serviceallocator import ClusterIPAllocator, RangeAllocator
from minikube_py.api import errors
from minikube_py.api.field_errors import FieldError, invalid, not_supported, required
from minikube_py.api.unstructured import Object

SERVICE_TYPES = ("ClusterIP", "ExternalName", "LoadBalancer", "NodePort")
PROTOCOLS = ("SCTP", "TCP", "UDP")


def needs_node_ports(spec: Object) -> bool:
    kind = spec.get("type")
    return kind == "NodePort" or (kind == "LoadBalancer" and spec.get("allocateLoadBalancerNodePorts", True))


def default_service(spec: Object) -> None:
    """``SetDefaults_Service``: type, session affinity, port protocols and target ports, traffic policies."""
    spec.setdefault("type", "ClusterIP")
    spec.setdefault("sessionAffinity", "None")
    if spec["sessionAffinity"] == "None":
        spec.pop("sessionAffinityConfig", None)
    for port in spec.get("ports") or []:
        port.setdefault("protocol", "TCP")
        if port.get("targetPort") in (None, 0, "") and "port" in port:
            port["targetPort"] = port["port"]
    kind = spec["type"]
    if kind in ("NodePort", "LoadBalancer") or (kind == "ClusterIP" and spec.get("externalIPs")):
        spec.setdefault("externalTrafficPolicy", "Cluster")
    if kind != "ExternalName":
        spec.setdefault("internalTrafficPolicy", "Cluster")
    if kind == "LoadBalancer":
        spec.setdefault("allocateLoadBalancerNodePorts", True)


def allocate(spec: Object, cluster_ips: ClusterIPAllocator, node_ports: RangeAllocator) -> None:
    """IP families, a cluster IP (unless ExternalName or headless) and the missing node ports;
    values the client chose are claimed. Raises a 500 when a range is full, like upstream."""
    if spec.get("type") == "ExternalName":
        return
    headless = spec.get("clusterIP") == "None" or (spec.get("clusterIPs") or [None])[0] == "None"
    selectorless_headless = headless and not spec.get("selector")
    spec.setdefault("ipFamilyPolicy", "RequireDualStack" if selectorless_headless else "SingleStack")
    spec.setdefault("ipFamilies", ["IPv4"])
    ip = spec.get("clusterIP") or (spec.get("clusterIPs") or [""])[0]
    if not ip:
        ip = cluster_ips.allocate()
        if ip is None:
            raise errors.internal("failed to allocate a serviceIP: range is full")
    elif ip != "None":
        cluster_ips.claim(ip)
    spec["clusterIP"] = ip
    spec.setdefault("clusterIPs", [ip])
    if needs_node_ports(spec):
        _allocate_node_ports(spec, node_ports)


def _allocate_node_ports(spec: Object, node_ports: RangeAllocator) -> None:
    for port in spec.get("ports") or []:
        if isinstance(port.get("nodePort"), int) and port["nodePort"]:
            node_ports.claim(port["nodePort"])
            continue
        value = node_ports.allocate()
        if value is None:
            raise errors.internal("failed to allocate a nodePort: range is full")
        port["nodePort"] = value


def keep_allocated(new: Object, old: Object) -> None:
    """An update that omits allocated values keeps them (upstream's ``patchAllocatedValues``):
    the cluster IPs and families, and node ports by port name when not reused by another port."""
    spec, old_spec = new.setdefault("spec", {}), old.get("spec") or {}
    if "ExternalName" in (spec.get("type", "ClusterIP"), old_spec.get("type")):
        return
    if not spec.get("clusterIP") and not spec.get("clusterIPs"):
        for key in ("clusterIP", "clusterIPs", "ipFamilies", "ipFamilyPolicy"):
            if key in old_spec and key not in spec:
                spec[key] = old_spec[key]
    if needs_node_ports(old_spec) and spec.get("type") in ("NodePort", "LoadBalancer"):
        old_ports = {p.get("name", ""): p.get("nodePort") for p in old_spec.get("ports") or []}
        in_use = {p.get("nodePort") for p in spec.get("ports") or []}
        for port in spec.get("ports") or []:
            previous = old_ports.get(port.get("name", ""))
            if not port.get("nodePort") and previous and previous not in in_use:
                port["nodePort"] = previous


def _validate_ports(ports: list[Any]) -> list[FieldError]:
    errs: list[FieldError] = []
    names: set[str] = set()
    for i, port in enumerate(ports):
        at, name, number = f"spec.ports[{i}]", str(port.get("name") or ""), port.get("port")
        if len(ports) > 1 and not name:
            errs.append(required(f"{at}.name"))
        elif name in names:
            errs.append(FieldError("FieldValueDuplicate", f"{at}.name", name))
        names.add(name)
        if not isinstance(number, int) or not 1 <= number <= 65535:
            errs.append(invalid(f"{at}.port", number, "must be between 1 and 65535, inclusive"))
        if port.get("protocol") not in PROTOCOLS:
            errs.append(not_supported(f"{at}.protocol", port.get("protocol"), PROTOCOLS))
    return errs


def validate_service(obj: Object) -> list[FieldError]:
    """Type, ports (required unless ExternalName or headless) and externalName."""
    spec = obj.get("spec") or {}
    kind, ports = spec.get("type"), spec.get("ports") or []
    errs: list[FieldError] = []
    if kind not in SERVICE_TYPES:
        errs.append(not_supported("spec.type", kind, SERVICE_TYPES))
    if not ports and kind != "ExternalName" and spec.get("clusterIP") != "None":
        errs.append(required("spec.ports"))
    errs += _validate_ports(ports)
    if kind == "ExternalName" and not spec.get("externalName"):
        errs.append(required("spec.externalName"))
    return errs


def validate_cluster_ip_unchanged(new: Object, old: Object) -> list[FieldError]:
    """The primary cluster IP may not change (unless the service is or becomes ExternalName)."""
    spec, old_spec = new.get("spec") or {}, old.get("spec") or {}
    if "ExternalName" in (spec.get("type"), old_spec.get("type")):
        return []
    before, after = (old_spec.get("clusterIPs") or [None])[0], (spec.get("clusterIPs") or [None])[0]
    if before and after != before:
        return [invalid("spec.clusterIPs[0]", after, "may not change once set")]
    return []
