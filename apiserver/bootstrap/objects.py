"""Objects every cluster has from its first start: the system namespaces and the
``kubernetes`` Service in ``default`` (upstream's apiserver creates them too), at the first
address of the service range (``127.96.0.1`` by default).

A ``kubernetes`` Service at another address (a data dir of an older version, whose range was
10.96.0.0/12, or a changed ``--service-cluster-ip-range``) is replaced: its address is
immutable, and one outside the loopback range would send pods' API traffic off the machine.
"""

from __future__ import annotations

import logging
from typing import Any

from apiserver.bootstrap.rbac import ensure_bootstrap_policy
from apiserver.registry.catalog import Catalog
from apiserver.registry.deletion import DeleteOptions
from apiserver.registry.resources.serviceallocator import ServiceNetwork
from apiserver.registry.store import GenericStore
from minikube_py.api import errors

log = logging.getLogger("apiserver.bootstrap")

SYSTEM_NAMESPACES = ("default", "kube-system", "kube-public", "kube-node-lease")
SERVICE_IP = ServiceNetwork().kubernetes_ip  # of the default range


def kubernetes_service(port: int = 6443, ip: str = SERVICE_IP) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {
            "name": "kubernetes",
            "namespace": "default",
            "labels": {"component": "apiserver", "provider": "kubernetes"},
        },
        "spec": {
            "type": "ClusterIP",
            "clusterIP": ip,
            "clusterIPs": [ip],
            "ports": [{"name": "https", "port": 443, "protocol": "TCP", "targetPort": port}],
            "sessionAffinity": "None",
            "ipFamilies": ["IPv4"],
            "ipFamilyPolicy": "SingleStack",
            "internalTrafficPolicy": "Cluster",
        },
    }


async def ensure_bootstrap_objects(catalog: Catalog) -> None:
    """Create what is missing; leave what exists alone (restarts keep user changes)."""
    namespaces = catalog.store("", "v1", "namespaces")
    services = catalog.store("", "v1", "services")
    assert namespaces is not None and services is not None
    for name in SYSTEM_NAMESPACES:
        obj = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}}
        await _create_missing(lambda o=obj: namespaces.create("", o), f"namespace {name}")
    ip = catalog.service_network.kubernetes_ip
    await _replace_moved(services, ip)
    await _create_missing(
        lambda: services.create("default", kubernetes_service(ip=ip)), "service default/kubernetes"
    )
    await ensure_bootstrap_policy(catalog)


async def _replace_moved(services: GenericStore, ip: str) -> None:
    """Delete the ``kubernetes`` Service when it has another address than ``ip``."""
    try:
        existing = await services.get("default", "kubernetes")
    except errors.ApiError as err:
        if err.code == 404:
            return
        raise
    current = (existing.get("spec") or {}).get("clusterIP")
    if current == ip:
        return
    log.info("service default/kubernetes has address %s, not %s: replacing it", current, ip)
    try:
        await services.delete("default", "kubernetes", DeleteOptions())
    except errors.ApiError as err:
        if err.code != 404:
            raise


async def _create_missing(create: Any, what: str) -> None:
    try:
        await create()
    except errors.ApiError as err:
        if err.reason != "AlreadyExists":
            raise
    else:
        log.info("created %s", what)
