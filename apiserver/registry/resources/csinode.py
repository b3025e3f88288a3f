"""CSINodes (storage.k8s.io/v1, cluster-scoped, named as their node): validation
(``ValidateCSINode``: each driver named once with a node ID; a driver's node ID and topology
keys fixed once registered) and the ``kubectl get csinodes`` row (the number of drivers)."""

from __future__ import annotations

from typing import Any

from apiserver.registry.age import age
from apiserver.registry.resources.configmap import AGE_COLUMN
from apiserver.registry.resources.podvalidation import IMMUTABLE, to_causes
from apiserver.registry.strategy import NAME_COLUMN, Column, Strategy
from minikube_py.api.errors import Cause
from minikube_py.api.field_errors import FieldError, invalid, required, too_long
from minikube_py.api.models import storage_csi
from minikube_py.api.unstructured import Object

COLUMNS: list[Column] = [
    NAME_COLUMN,
    ("Drivers", "integer", "", "Drivers indicates the number of CSI drivers registered on the node", 0),
    AGE_COLUMN,
]
MAX_NODE_ID = 256


def _drivers(obj: Object) -> list[Object]:
    drivers = (obj.get("spec") or {}).get("drivers")
    return [d for d in drivers if isinstance(d, dict)] if isinstance(drivers, list) else []


def validate_csi_node(obj: Object) -> list[FieldError]:
    """``ValidateCSINode``: names present and unique, node IDs present and at most 256 bytes."""
    errs: list[FieldError] = []
    names: set[str] = set()
    for i, driver in enumerate(_drivers(obj)):
        at = f"spec.drivers[{i}]"
        name, node_id = str(driver.get("name") or ""), str(driver.get("nodeID") or "")
        if not name:
            errs.append(required(f"{at}.name"))
        elif name in names:
            errs.append(FieldError("FieldValueDuplicate", f"{at}.name", name))
        names.add(name)
        if not node_id:
            errs.append(required(f"{at}.nodeID", "nodeID must be provided"))
        elif len(node_id) > MAX_NODE_ID:
            errs.append(too_long(f"{at}.nodeID", MAX_NODE_ID))
    return errs


def validate_csi_node_update(new: Object, old: Object) -> list[FieldError]:
    """A registered driver keeps its node ID and topology keys."""
    before = {d.get("name"): d for d in _drivers(old)}
    errs: list[FieldError] = []
    for i, driver in enumerate(_drivers(new)):
        previous = before.get(driver.get("name"))
        if previous is None:
            continue
        for key in ("nodeID", "topologyKeys"):
            if driver.get(key) != previous.get(key):
                errs.append(invalid(f"spec.drivers[{i}].{key}", driver.get(key), IMMUTABLE))
    return errs


class CSINodeStrategy(Strategy):
    kinds = (storage_csi.CSINode,)
    spec_field = "spec"
    columns = COLUMNS

    def default(self, obj: Object) -> None:
        obj.setdefault("spec", {}).setdefault("drivers", [])

    def validate(self, obj: Object) -> list[Cause]:
        return to_causes(validate_csi_node(obj))

    def validate_update(self, new: Object, old: Object) -> list[Cause]:
        return to_causes(validate_csi_node(new) + validate_csi_node_update(new, old))

    def table_cells(self, obj: Object, now: float) -> list[Any]:
        meta = obj["metadata"]
        return [meta["name"], len(_drivers(obj)), age(meta.get("creationTimestamp"), now)]
