"""The system priority classes (upstream's scheduling post-start hook): created at start when
missing; restarts keep what exists."""

from __future__ import annotations

import logging

from apiserver.admission.plugins.priority import PC, SYSTEM_PRIORITY_CLASSES
from apiserver.registry.catalog import Catalog
from minikube_py.api import errors

log = logging.getLogger("apiserver.admission")


async def ensure_system_priority_classes(catalog: Catalog) -> None:
    """Create the system classes that are missing (restarts keep what exists)."""
    store = catalog.store(*PC)
    if store is None:
        return
    for name, value, description in SYSTEM_PRIORITY_CLASSES:
        obj = {
            "apiVersion": "scheduling.k8s.io/v1",
            "kind": "PriorityClass",
            "metadata": {"name": name},
            "value": value,
            "description": description,
        }
        try:
            await store.create("", obj)
        except errors.ApiError as err:
            if err.reason != "AlreadyExists":
                raise
        else:
            log.info("created priorityclass %s", name)
