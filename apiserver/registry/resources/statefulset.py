"""StatefulSets: upstream's apps/v1 defaults (1 replica, OrderedReady, RollingUpdate with
partition 0, PVCs retained, 10 revisions, the pod template's defaults), validation (only some
spec fields may change) and ``kubectl get`` row."""

from __future__ import annotations

from typing import Any

from apiserver.registry.age import age
from apiserver.registry.resources.configmap import AGE_COLUMN
from apiserver.registry.resources.podtemplatespec import (
    CONTAINERS_COLUMN,
    IMAGES_COLUMN,
    container_cells,
    default_template,
    template_spec,
)
from apiserver.registry.resources.podvalidation import non_negative, to_causes, validate_workload
from apiserver.registry.strategy import NAME_COLUMN, Column, Strategy
from minikube_py.api.errors import Cause
from minikube_py.api.field_errors import FieldError, forbidden
from minikube_py.api.models import apps_sets
from minikube_py.api.unstructured import Object

COLUMNS: list[Column] = [
    NAME_COLUMN,
    ("Ready", "string", "", "Number of the pod with ready state", 0),
    AGE_COLUMN,
    CONTAINERS_COLUMN,
    IMAGES_COLUMN,
]
MUTABLE = (
    "replicas",
    "ordinals",
    "template",
    "updateStrategy",
    "revisionHistoryLimit",
    "persistentVolumeClaimRetentionPolicy",
    "minReadySeconds",
)
FORBIDDEN_UPDATE = (
    "updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', "
    "'updateStrategy', 'revisionHistoryLimit', 'persistentVolumeClaimRetentionPolicy' and "
    "'minReadySeconds' are forbidden"
)


def default_statefulset(obj: Object) -> None:
    """``SetDefaults_StatefulSet`` (apps/v1) and the template's pod defaults."""
    spec = obj.setdefault("spec", {})
    spec.setdefault("podManagementPolicy", "OrderedReady")
    strategy = spec.setdefault("updateStrategy", {})
    if not strategy.get("type"):
        strategy["type"] = "RollingUpdate"
        strategy.setdefault("rollingUpdate", {})
    if strategy["type"] == "RollingUpdate" and isinstance(strategy.get("rollingUpdate"), dict):
        strategy["rollingUpdate"].setdefault("partition", 0)
    retention = spec.setdefault("persistentVolumeClaimRetentionPolicy", {})
    retention.setdefault("whenDeleted", "Retain")
    retention.setdefault("whenScaled", "Retain")
    spec.setdefault("replicas", 1)
    spec.setdefault("revisionHistoryLimit", 10)
    default_template(spec)


def validate_spec_update(new: Object, old: Object) -> list[FieldError]:
    """Only the ``MUTABLE`` spec fields may change."""
    new_spec, old_spec = new.get("spec") or {}, old.get("spec") or {}
    fixed = {k: v for k, v in new_spec.items() if k not in MUTABLE}
    if fixed != {k: v for k, v in old_spec.items() if k not in MUTABLE}:
        return [forbidden("spec", FORBIDDEN_UPDATE)]
    return []


class StatefulSetStrategy(Strategy):
    kinds = (apps_sets.StatefulSet,)
    status_field = "status"
    spec_field = "spec"
    columns = COLUMNS

    def prepare_for_create(self, obj: Object) -> None:
        super().prepare_for_create(obj)
        default_statefulset(obj)

    def prepare_for_update(self, new: Object, old: Object) -> None:
        super().prepare_for_update(new, old)
        default_statefulset(new)

    def validate(self, obj: Object) -> list[Cause]:
        spec = obj.get("spec") or {}
        errs = validate_workload(obj, "statefulset")
        errs += non_negative(spec, "minReadySeconds", "spec")
        return to_causes(errs + non_negative(spec, "revisionHistoryLimit", "spec"))

    def validate_update(self, new: Object, old: Object) -> list[Cause]:
        return self.validate(new) + to_causes(validate_spec_update(new, old))

    def table_cells(self, obj: Object, now: float) -> list[Any]:
        meta, spec, status = obj["metadata"], obj.get("spec") or {}, obj.get("status") or {}
        return [
            meta["name"],
            f"{status.get('readyReplicas', 0)}/{spec.get('replicas', 1)}",
            age(meta.get("creationTimestamp"), now),
            *container_cells(template_spec(obj)),
        ]
