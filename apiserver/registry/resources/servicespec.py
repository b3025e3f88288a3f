"""A Service's spec as upstream completes it: ``SetDefaults_Service`` plus what the service
REST storage allocates (IP families, cluster IPs, node ports), and its validation essentials."""

from __future__ import annotations

import ipaddress
from typing import Any

from apiserver.registry.resources.podvalidation import to_causes
from apiserver.registry.resources.serviceallocator import (
    AllocationError,
    ClusterIPAllocator,
    NodePortAllocator,
)
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


def allocate(
    spec: Object,
    cluster_ips: ClusterIPAllocator,
    node_ports: NodePortAllocator,
    owner: str,
    old_spec: Object | None = None,
) -> None:
    """IP families, a cluster IP (unless ExternalName or headless) and the missing node ports
    for the service ``owner`` (``namespace/name``); values the client chose are claimed, and
    values ``old_spec`` (the stored service, on update) already holds are kept. A value that
    cannot be had is a 422 with upstream's message; a full range a 500, like upstream."""
    if spec.get("type") == "ExternalName":
        return
    headless = spec.get("clusterIP") == "None" or (spec.get("clusterIPs") or [None])[0] == "None"
    selectorless_headless = headless and not spec.get("selector")
    spec.setdefault("ipFamilyPolicy", "RequireDualStack" if selectorless_headless else "SingleStack")
    spec.setdefault("ipFamilies", ["IPv4"])
    name = owner.rpartition("/")[2]
    had_ip = old_spec is not None and old_spec.get("type") != "ExternalName"
    ip = spec.get("clusterIP") or (spec.get("clusterIPs") or [""])[0]
    if not ip:
        ip = cluster_ips.allocate(owner)
        if ip is None:
            raise errors.internal("failed to allocate a serviceIP: range is full")
    elif ip != "None" and not had_ip and _is_ip(ip):
        try:
            cluster_ips.claim(ip, owner)
        except AllocationError as err:
            detail = f"failed to allocate IP {ip}: {err}"
            wanted = spec.get("clusterIPs") or [ip]
            raise _invalid(name, [invalid("spec.clusterIPs", wanted, detail)]) from None
    spec["clusterIP"] = ip
    spec.setdefault("clusterIPs", [ip])
    if needs_node_ports(spec):
        _allocate_node_ports(spec, node_ports, owner, old_spec)


def _allocate_node_ports(
    spec: Object, node_ports: NodePortAllocator, owner: str, old_spec: Object | None
) -> None:
    """Upstream's ``initNodePorts``/``updateNodePorts``: ports of one service port number
    share a node port (TCP and UDP 53), a requested one is claimed unless the stored service
    holds it already, the others are allocated; node ports the update drops are released."""
    held = {p.get("nodePort") for p in (old_spec or {}).get("ports") or [] if p.get("nodePort")}
    ports = spec.get("ports") or []
    by_number: dict[Any, int] = {}  # service port number -> its node port, in this request
    for i, port in enumerate(ports):
        number = port.get("port")
        wanted = port.get("nodePort") if isinstance(port.get("nodePort"), int) else 0
        wanted = wanted or by_number.get(number) or _requested(ports[i:], number)
        if not wanted:
            allocated = node_ports.allocate(owner)
            if allocated is None:
                raise errors.internal("failed to allocate a nodePort: range is full")
            wanted = allocated
        elif by_number.get(number) != wanted and wanted not in held:
            problem = "provided port is already allocated" if wanted in by_number.values() else None
            try:
                if problem is None:
                    node_ports.claim(wanted, owner)
            except AllocationError as err:
                problem = str(err)
            if problem is not None:
                name = owner.rpartition("/")[2]
                raise _invalid(name, [invalid(f"spec.ports[{i}].nodePort", wanted, problem)])
        port["nodePort"] = wanted
        by_number.setdefault(number, wanted)
    for stale in held - {p.get("nodePort") for p in ports}:
        node_ports.release(stale)


def _requested(ports: list[Any], number: Any) -> int:
    """A node port asked for by a later port of the same number (``findRequestedNodePort``)."""
    for port in ports:
        if port.get("port") == number and isinstance(port.get("nodePort"), int) and port["nodePort"]:
            return int(port["nodePort"])
    return 0


def _is_ip(text: str) -> bool:
    try:
        ipaddress.ip_address(text)
    except ValueError:
        return False
    return True


def _invalid(name: str, errs: list[FieldError]) -> errors.ApiError:
    return errors.invalid("Service", name, "", to_causes(errs))


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
