"""ReplicaSets: 1 replica by default, the pod template's defaults, upstream's validation
(its empty-selector message says "deployment", as upstream's does) and ``kubectl get`` row."""

from __future__ import annotations

from typing import Any

from apiserver.registry.age import age
from apiserver.registry.resources.configmap import AGE_COLUMN
from apiserver.registry.resources.podtemplatespec import (
    CONTAINERS_COLUMN,
    IMAGES_COLUMN,
    SELECTOR_COLUMN,
    container_cells,
    default_template,
    format_label_selector,
    template_spec,
)
from apiserver.registry.resources.podvalidation import (
    non_negative,
    to_causes,
    validate_selector_unchanged,
    validate_workload,
)
from apiserver.registry.strategy import NAME_COLUMN, Column, Strategy
from minikube_py.api.errors import Cause
from minikube_py.api.models import apps_deployment
from minikube_py.api.unstructured import Object

COLUMNS: list[Column] = [
    NAME_COLUMN,
    ("Desired", "integer", "", "Replicas is the number of desired pods.", 0),
    ("Current", "integer", "", "Replicas is the most recently observed number of replicas.", 0),
    ("Ready", "integer", "", "The number of pods targeted by this ReplicaSet with a Ready Condition.", 0),
    AGE_COLUMN,
    CONTAINERS_COLUMN,
    IMAGES_COLUMN,
    SELECTOR_COLUMN,
]


def default_replicaset(obj: Object) -> None:
    spec = obj.setdefault("spec", {})
    spec.setdefault("replicas", 1)
    default_template(spec)


class ReplicaSetStrategy(Strategy):
    kinds = (apps_deployment.ReplicaSet,)
    status_field = "status"
    spec_field = "spec"
    columns = COLUMNS

    def default(self, obj: Object) -> None:
        default_replicaset(obj)

    def validate(self, obj: Object) -> list[Cause]:
        errs = validate_workload(obj, "deployment")
        return to_causes(errs + non_negative(obj.get("spec") or {}, "minReadySeconds", "spec"))

    def validate_update(self, new: Object, old: Object) -> list[Cause]:
        return self.validate(new) + to_causes(validate_selector_unchanged(new, old))

    def selectable_fields(self, obj: Object) -> dict[str, str]:
        replicas = (obj.get("status") or {}).get("replicas", 0)
        return {**super().selectable_fields(obj), "status.replicas": str(replicas)}

    def table_cells(self, obj: Object, now: float) -> list[Any]:
        meta, spec, status = obj["metadata"], obj.get("spec") or {}, obj.get("status") or {}
        return [
            meta["name"],
            spec.get("replicas", 1),
            status.get("replicas", 0),
            status.get("readyReplicas", 0),
            age(meta.get("creationTimestamp"), now),
            *container_cells(template_spec(obj)),
            format_label_selector(spec.get("selector")),
        ]
