"""Where ``pods/proxy``, ``services/proxy`` and ``nodes/proxy`` send a request: upstream's
``ResourceLocation`` of the pod, service and node registries, with one deviation.

The URL's name segment is ``name``, ``name:port`` or ``scheme:name:port`` (upstream's
``SplitSchemeNamePort``; the scheme ``http`` or ``https``, else 400 ``invalid pod request
"x"``):

* a pod: its first ``status.podIPs`` address (``status.podIP`` without them) and the given port,
  else the first ``containerPort`` of its containers, else none (port 80 of the scheme);
* a service: the port, a number, is first turned into the name of that Service port (503 ``no
  service port 81 found for service "web"``); then an address of a random subset of its
  Endpoints that declares that port name, tried from a random one, that is a pod of the
  namespace (``targetRef``) whose IPs include it (upstream's ``isValidAddress``); none: 503 ``no
  endpoints available for service "web"``;
* a node: its node agent (``NodeConnection.locate``: HTTPS, the client certificate) unless a
  port other than the node agent's is asked for, which is then plain ``scheme://address:port``.

**The deviation**: upstream refuses any target that is not a global unicast address (``address
not allowed``), which excludes loopback. Here every pod, node and Service address is on loopback
(the address plan of ``minikube-py up``), so loopback targets are the *only* ones allowed:
the apiserver never dials out of the machine for a cluster object, whatever a user wrote into
a pod's status or a selector-less Endpoints. A pod or node whose address is not loopback is
400 ``address not allowed`` (upstream's answer for a non-unicast one; a node's host name is
not resolved but refused the same way); a Service endpoint that
is not loopback is skipped like one that is no pod's (logged), so a Service with only such
endpoints answers ``no endpoints available``.
"""

from __future__ import annotations

import dataclasses
import ipaddress
import logging
import random
import re
import socket
import ssl
from typing import Any

from apiserver.nodeproxy import NodeConnection
from apiserver.registry.catalog import Catalog
from apiserver.registry.store import GenericStore
from minikube_py.api import errors
from minikube_py.api.field_errors import go_quote
from minikube_py.api.unstructured import Object

logger = logging.getLogger("apiserver")

SCHEMES = ("", "http", "https")
_INTEGER = re.compile(r"[+-]?[0-9]+")


@dataclasses.dataclass(frozen=True, slots=True)
class ProxyTarget:
    """``scheme://host[:port]`` and how to speak TLS to it (None: the proxy transport's own)."""

    scheme: str
    host: str
    port: str = ""
    tls: ssl.SSLContext | None = None

    @property
    def netloc(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"{host}:{self.port}" if self.port else host

    @property
    def dial_port(self) -> int:
        """The port to connect to: the given one, or the scheme's (a named one as Go resolves
        it, from the services database)."""
        if not self.port:
            return 443 if self.scheme == "https" else 80
        if self.port.isdigit():
            return int(self.port)
        try:
            return socket.getservbyname(self.port, "tcp")
        except OSError:
            raise UnknownPort(self.port) from None


class UnknownPort(OSError):
    """A port that is neither a number nor a known service name (Go: ``unknown port``)."""

    def __init__(self, port: str) -> None:
        super().__init__(f"lookup tcp/{port}: unknown port")


def split_scheme_name_port(segment: str) -> tuple[str, str, str] | None:
    """Upstream's ``SplitSchemeNamePort``: (scheme, name, port), or None when invalid."""
    parts = segment.split(":")
    if len(parts) == 1:
        scheme, name, port = "", parts[0], ""
    elif len(parts) == 2:
        scheme, name, port = "", parts[0], parts[1]
    elif len(parts) == 3:
        scheme, name, port = parts
    else:
        return None
    return (scheme, name, port) if name and scheme in SCHEMES else None


def _split(kind: str, segment: str) -> tuple[str, str, str]:
    split = split_scheme_name_port(segment)
    if split is None:
        raise errors.bad_request(f"invalid {kind} request {go_quote(segment)}")
    return split


def is_allowed(ip: str) -> bool:
    """Whether the apiserver may dial ``ip``: a loopback address (see the module docstring)."""
    try:
        return ipaddress.ip_address(ip).is_loopback
    except ValueError:
        return False


def pod_ip(pod: Object) -> str:
    status = pod.get("status") or {}
    ips = status.get("podIPs") or []
    if ips and isinstance(ips[0], dict):
        return str(ips[0].get("ip") or "")
    return str(status.get("podIP") or "")


async def pod_location(store: GenericStore, namespace: str, segment: str) -> ProxyTarget:
    scheme, name, port = _split("pod", segment)
    pod = await store.get(namespace, name)
    if not port:
        for container in (pod.get("spec") or {}).get("containers") or []:
            ports = container.get("ports") or []
            if ports:
                port = str(ports[0].get("containerPort", ""))
                break
    ip = pod_ip(pod)
    if not is_allowed(ip):
        raise errors.bad_request("address not allowed")
    return ProxyTarget(scheme, ip, port)


async def service_location(catalog: Catalog, namespace: str, segment: str) -> ProxyTarget:
    scheme, name, port_name = _split("service", segment)
    if _INTEGER.fullmatch(port_name):  # Go's ParseInt: a port number, not a port name
        number = int(port_name)
        service = await _store(catalog, "services").get(namespace, name)
        ports = (service.get("spec") or {}).get("ports") or []
        declared = next((p for p in ports if p.get("port") == number), None)
        if declared is None:
            raise errors.unavailable(f"no service port {number} found for service {go_quote(name)}")
        port_name = str(declared.get("name") or "")
    endpoints = await _store(catalog, "endpoints").get(namespace, name)
    subsets = endpoints.get("subsets") or []
    if not subsets:
        raise errors.unavailable(f"no endpoints available for service {go_quote(name)}")
    pods = _store(catalog, "pods")
    start = random.randrange(len(subsets))
    for offset in range(len(subsets)):
        subset = subsets[(start + offset) % len(subsets)]
        addresses = subset.get("addresses") or []
        if not addresses:
            continue
        for port in subset.get("ports") or []:
            if (port.get("name") or "") != port_name:
                continue
            first = random.randrange(len(addresses))
            for tried in range(len(addresses)):
                address = addresses[(first + tried) % len(addresses)]
                problem = await _invalid_address(pods, namespace, address)
                if problem:
                    logger.warning(
                        "address %s of service %s/%s isn't valid (%s)", address, namespace, name, problem
                    )
                    continue
                return ProxyTarget(scheme, str(address["ip"]), str(port.get("port", "")))
            logger.warning("no valid address in a subset of service %s/%s, skipping it", namespace, name)
    raise errors.unavailable(f"no endpoints available for service {go_quote(segment)}")


async def _invalid_address(pods: GenericStore, namespace: str, address: dict[str, Any]) -> str:
    """Upstream's ``isValidAddress`` (the address is one of a pod of the namespace), and ours:
    the address is loopback. Empty when valid, else why not."""
    ip = str(address.get("ip") or "")
    if not is_allowed(ip):
        return "address not allowed"
    ref = address.get("targetRef")
    if not ref:
        return "address has no target ref"
    if ref.get("namespace", "") != namespace:
        return "address namespace doesn't match context namespace"
    try:
        pod = await pods.get(namespace, str(ref.get("name", "")))
    except errors.ApiError as err:
        return err.message
    ips = [str(entry.get("ip")) for entry in (pod.get("status") or {}).get("podIPs") or []]
    if ip not in ips:
        return f"pod ip(s) doesn't match endpoint ip: {ips} vs {ip}"
    return ""


async def node_location(nodes: NodeConnection, segment: str) -> ProxyTarget:
    scheme, name, port = _split("node", segment)
    location = await nodes.locate(name)
    _check_node_host(location.host)
    if not port or port == str(location.port):
        return ProxyTarget("https", location.host, str(location.port), nodes.ssl_context())
    return ProxyTarget(scheme, location.host, port)


def _check_node_host(host: str) -> None:
    """Upstream's ``isProxyableHostname`` (every address of the host allowed), without name
    resolution: a host that is no IP address is refused, so no DNS query leaves the machine
    for a name a Node object carries."""
    if not is_allowed(host):
        raise errors.bad_request("address not allowed")


def _store(catalog: Catalog, resource: str) -> GenericStore:
    store = catalog.store("", "v1", resource)
    if store is None:
        raise errors.internal(f"no {resource} storage")
    return store
