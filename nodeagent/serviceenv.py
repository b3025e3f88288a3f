"""Service environment variables (upstream's ``envvars.FromServices`` and the kubelet's
``getServiceEnvVarMap``): pure functions over Service objects, plus ``list_services``."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from minikube_py.api.unstructured import Object
from minikube_py.client.interfaces import Client
from minikube_py.client.resourcetypes import SERVICES

MASTER_SERVICES = frozenset({"kubernetes"})


def _join_host_port(host: str, port: int) -> str:
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


def _env_name(name: str) -> str:
    return name.replace("-", "_").upper()


def services_env_vars(services: Iterable[Mapping[str, Any]]) -> list[tuple[str, str]]:
    """Upstream's ``envvars.FromServices``: ``<SVC>_SERVICE_HOST``, ``_SERVICE_PORT``,
    ``_SERVICE_PORT_<NAME>`` and the Docker link variables, for services with a cluster IP."""
    result: list[tuple[str, str]] = []
    for service in services:
        spec = service.get("spec") or {}
        ip, ports = str(spec.get("clusterIP") or ""), list(spec.get("ports") or [])
        if ip in ("", "None") or not ports:
            continue
        prefix = _env_name(service["metadata"]["name"])
        result.append((f"{prefix}_SERVICE_HOST", ip))
        result.append((f"{prefix}_SERVICE_PORT", str(ports[0]["port"])))
        result += [
            (f"{prefix}_SERVICE_PORT_{_env_name(p['name'])}", str(p["port"])) for p in ports if p.get("name")
        ]
        for index, port in enumerate(ports):
            protocol = str(port.get("protocol") or "TCP")
            url = f"{protocol.lower()}://{_join_host_port(ip, int(port['port']))}"
            if index == 0:
                result.append((f"{prefix}_PORT", url))
            port_prefix = f"{prefix}_PORT_{port['port']}_{protocol.upper()}"
            result.append((port_prefix, url))
            result.append((f"{port_prefix}_PROTO", protocol.lower()))
            result.append((f"{port_prefix}_PORT", str(port["port"])))
            result.append((f"{port_prefix}_ADDR", ip))
    return result


def service_env(
    services: Iterable[Mapping[str, Any]], namespace: str, enable_service_links: bool = True
) -> dict[str, str]:
    """Upstream's ``getServiceEnvVarMap``: the ``kubernetes`` service of ``default`` always,
    the services of ``namespace`` when service links are enabled (they win a name clash)."""
    chosen: dict[str, Mapping[str, Any]] = {}
    ordered = sorted(services, key=lambda s: s["metadata"].get("namespace") != "default")
    for service in ordered:
        meta = service["metadata"]
        if meta.get("namespace") == "default" and meta["name"] in MASTER_SERVICES:
            chosen.setdefault(meta["name"], service)
        elif meta.get("namespace") == namespace and enable_service_links:
            chosen[meta["name"]] = service
    return dict(services_env_vars(chosen[name] for name in sorted(chosen)))


async def list_services(client: Client, namespace: str) -> list[Object]:
    """The services of ``namespace`` and of ``default`` (what ``service_env`` needs)."""
    found: list[Object] = []
    for ns in dict.fromkeys((namespace, "default")):
        found += (await client.resource(SERVICES, ns).list()).get("items") or []
    return found
