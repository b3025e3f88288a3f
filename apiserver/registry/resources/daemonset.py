"""DaemonSets: upstream's apps/v1 defaults (RollingUpdate with maxUnavailable 1 and maxSurge 0,
10 revisions, the pod template's defaults), validation and ``kubectl get`` row."""

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
    format_labels,
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
from minikube_py.api.models import apps_sets
from minikube_py.api.unstructured import Object

COLUMNS: list[Column] = [
    NAME_COLUMN,
    ("Desired", "integer", "", "The total number of nodes that should be running the daemon pod.", 0),
    ("Current", "integer", "", "The number of nodes running at least one daemon pod.", 0),
    ("Ready", "integer", "", "The number of nodes running the daemon pod with a Ready Condition.", 0),
    ("Up-to-date", "integer", "", "The total number of nodes running the updated daemon pod.", 0),
    ("Available", "integer", "", "The number of nodes running an available daemon pod.", 0),
    ("Node Selector", "string", "", "A selector which must be true for the pod to fit on a node.", 0),
    AGE_COLUMN,
    CONTAINERS_COLUMN,
    IMAGES_COLUMN,
    SELECTOR_COLUMN,
]
_STATUS_CELLS = (
    "desiredNumberScheduled",
    "currentNumberScheduled",
    "numberReady",
    "updatedNumberScheduled",
    "numberAvailable",
)


def default_daemonset(obj: Object) -> None:
    """``SetDefaults_DaemonSet`` (apps/v1) and the template's pod defaults."""
    spec = obj.setdefault("spec", {})
    strategy = spec.setdefault("updateStrategy", {})
    strategy.setdefault("type", "RollingUpdate")
    if strategy["type"] == "RollingUpdate":
        rolling = strategy.get("rollingUpdate")
        if not isinstance(rolling, dict):
            rolling = strategy["rollingUpdate"] = {}
        rolling.setdefault("maxUnavailable", 1)
        rolling.setdefault("maxSurge", 0)
    spec.setdefault("revisionHistoryLimit", 10)
    default_template(spec)


#: upstream's internal ``spec.templateGeneration``, which apps/v1 carries as this annotation
TEMPLATE_GENERATION_ANNOTATION = "deprecated.daemonset.template.generation"


def _template_generation(obj: Object) -> int | None:
    value = ((obj.get("metadata") or {}).get("annotations") or {}).get(TEMPLATE_GENERATION_ANNOTATION)
    try:
        return int(value) if value is not None else None
    except (TypeError, ValueError):
        return None


def _set_template_generation(obj: Object, generation: int) -> None:
    meta = obj.setdefault("metadata", {})
    annotations = meta.get("annotations") or {}
    annotations[TEMPLATE_GENERATION_ANNOTATION] = str(generation)
    meta["annotations"] = annotations


class DaemonSetStrategy(Strategy):
    kinds = (apps_sets.DaemonSet,)
    status_field = "status"
    spec_field = "spec"
    columns = COLUMNS

    def default(self, obj: Object) -> None:
        default_daemonset(obj)

    def prepare_for_create(self, obj: Object) -> None:
        super().prepare_for_create(obj)
        generation = _template_generation(obj)
        _set_template_generation(obj, generation if generation is not None and generation >= 1 else 1)

    def prepare_for_update(self, new: Object, old: Object) -> None:
        """The template generation is the server's: kept, and raised with a template change."""
        super().prepare_for_update(new, old)
        generation = _template_generation(old) or 1
        if (new.get("spec") or {}).get("template") != (old.get("spec") or {}).get("template"):
            generation += 1
        _set_template_generation(new, generation)

    def validate(self, obj: Object) -> list[Cause]:
        spec = obj.get("spec") or {}
        errs = validate_workload(obj, "daemonset", replicas=False)
        errs += non_negative(spec, "minReadySeconds", "spec")
        return to_causes(errs + non_negative(spec, "revisionHistoryLimit", "spec"))

    def validate_update(self, new: Object, old: Object) -> list[Cause]:
        return self.validate(new) + to_causes(validate_selector_unchanged(new, old))

    def table_cells(self, obj: Object, now: float) -> list[Any]:
        meta, spec, status = obj["metadata"], obj.get("spec") or {}, obj.get("status") or {}
        pod_spec = template_spec(obj)
        return [
            meta["name"],
            *(status.get(key, 0) for key in _STATUS_CELLS),
            format_labels(pod_spec.get("nodeSelector")),
            age(meta.get("creationTimestamp"), now),
            *container_cells(pod_spec),
            format_label_selector(spec.get("selector")),
        ]
