"""Objects every cluster has from its first start: the system namespaces and the
``kubernetes`` Service in ``default`` (upstream's apiserver creates them too)."""

from __future__ import annotations

import logging
from typing import Any

from apiserver.bootstrap.rbac import ensure_bootstrap_policy
from apiserver.registry.catalog import Catalog
from minikube_py.api import errors

log = logging.getLogger("apiserver.bootstrap")

SYSTEM_NAMESPACES = ("default", "kube-system", "kube-public", "kube-node-lease")
SERVICE_IP = "10.96.0.1"


def kubernetes_service(port: int = 6443) -> dict[str, Any]:
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
            "clusterIP": SERVICE_IP,
            "clusterIPs": [SERVICE_IP],
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
    await _create_missing(
        lambda: services.create("default", kubernetes_service()), "service default/kubernetes"
    )
    await ensure_bootstrap_policy(catalog)


async def _create_missing(create: Any, what: str) -> None:
    try:
        await create()
    except errors.ApiError as err:
        if err.reason != "AlreadyExists":
            raise
    else:
        log.info("created %s", what)
