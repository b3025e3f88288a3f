"""ReplicationControllers (core/v1, ``rc``): upstream's defaults (1 replica; the selector and the
controller's labels from the template's labels; the template's pod defaults), validation
(``ValidateReplicationController``: a non-empty map selector matching the template's labels,
restart policy ``Always``) and the ``kubectl get rc`` row. Unlike apps/v1 selectors, an RC's
selector may change. A DELETE without a propagation policy orphans the pods, as core/v1's does
(kubectl always sends one, so ``kubectl delete rc`` cascades)."""

from __future__ import annotations

from typing import Any

from apiserver.registry.age import age
from apiserver.registry.deletion import ORPHAN_DEPENDENTS
from apiserver.registry.resources.configmap import AGE_COLUMN
from apiserver.registry.resources.podtemplatespec import (
    CONTAINERS_COLUMN,
    IMAGES_COLUMN,
    container_cells,
    default_template,
    format_labels,
    template_spec,
)
from apiserver.registry.resources.podvalidation import non_negative, to_causes, validate_pod_spec
from apiserver.registry.strategy import NAME_COLUMN, Column, Strategy
from minikube_py.api.errors import Cause
from minikube_py.api.field_errors import FieldError, forbidden, invalid, not_supported, required
from minikube_py.api.labels import selector_from_set
from minikube_py.api.models import core_replication
from minikube_py.api.unstructured import Object
from minikube_py.api.validation import validate_annotations, validate_labels

COLUMNS: list[Column] = [
    NAME_COLUMN,
    ("Desired", "integer", "", "Replicas is the number of desired replicas.", 0),
    ("Current", "integer", "", "Replicas is the most recently observed number of replicas.", 0),
    ("Ready", "integer", "", "The number of ready replicas for this replication controller.", 0),
    AGE_COLUMN,
    CONTAINERS_COLUMN,
    IMAGES_COLUMN,
    (
        "Selector",
        "string",
        "",
        "Selector is a label query over pods that should match the Replicas count.",
        1,
    ),
]


def default_replication_controller(obj: Object) -> None:
    """``SetDefaults_ReplicationController`` and the template's pod defaults."""
    spec = obj.setdefault("spec", {})
    template = spec.get("template")
    labels = (template.get("metadata") or {}).get("labels") if isinstance(template, dict) else None
    if labels:
        if not spec.get("selector"):
            spec["selector"] = dict(labels)
        meta = obj.setdefault("metadata", {})
        if not meta.get("labels"):
            meta["labels"] = dict(labels)
    spec.setdefault("replicas", 1)
    default_template(spec)


def _string_map(value: Any) -> dict[str, str]:
    return {str(k): str(v) for k, v in value.items()} if isinstance(value, dict) else {}


def validate_rc_template(template: Any, selector: dict[str, str], path: str) -> list[FieldError]:
    """``ValidatePodTemplateSpecForRC``."""
    if not isinstance(template, dict):
        return [required(path)]
    meta = template.get("metadata") or {}
    labels = _string_map(meta.get("labels"))
    errs: list[FieldError] = []
    if selector and not selector_from_set(selector).matches(labels):
        errs.append(
            invalid(
                f"{path}.metadata.labels", meta.get("labels"), f"selector does not match labels in {path}"
            )
        )
    errs += validate_labels(labels, f"{path}.metadata.labels")
    errs += validate_annotations(_string_map(meta.get("annotations")), f"{path}.metadata.annotations")
    spec = template.get("spec") or {}
    errs += validate_pod_spec(spec, f"{path}.spec")
    if spec.get("restartPolicy") != "Always":
        errs.append(not_supported(f"{path}.spec.restartPolicy", spec.get("restartPolicy", ""), ("Always",)))
    if spec.get("activeDeadlineSeconds") is not None:
        detail = "activeDeadlineSeconds in ReplicationController is not Supported"
        errs.append(forbidden(f"{path}.spec.activeDeadlineSeconds", detail))
    return errs


def validate_replication_controller(obj: Object) -> list[FieldError]:
    """``ValidateReplicationControllerSpec``."""
    spec = obj.get("spec") or {}
    selector = _string_map(spec.get("selector"))
    errs = non_negative(spec, "minReadySeconds", "spec")
    if not selector:
        errs.append(required("spec.selector"))
    errs += non_negative(spec, "replicas", "spec")
    return errs + validate_rc_template(spec.get("template"), selector, "spec.template")


class ReplicationControllerStrategy(Strategy):
    kinds = (core_replication.ReplicationController,)
    status_field = "status"
    spec_field = "spec"
    gc_policy = ORPHAN_DEPENDENTS
    columns = COLUMNS

    def default(self, obj: Object) -> None:
        default_replication_controller(obj)

    def validate(self, obj: Object) -> list[Cause]:
        return to_causes(validate_replication_controller(obj))

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
            format_labels(spec.get("selector")),
        ]
