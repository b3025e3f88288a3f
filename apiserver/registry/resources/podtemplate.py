"""PodTemplates (core/v1): a pod template stored on its own. Its template gets a pod template's
defaults and validation (any restart policy: no controller runs it), a change of the template
bumps the generation, and ``kubectl get podtemplates`` shows containers, images and pod labels."""

from __future__ import annotations

from typing import Any

from apiserver.registry.resources.podtemplatespec import container_cells, default_pod_spec, format_labels
from apiserver.registry.resources.podvalidation import to_causes, validate_pod_spec
from apiserver.registry.strategy import NAME_COLUMN, Column, Strategy
from minikube_py.api.errors import Cause
from minikube_py.api.field_errors import FieldError, invalid
from minikube_py.api.models import core_pod
from minikube_py.api.unstructured import Object
from minikube_py.api.validation import validate_annotations, validate_labels

COLUMNS: list[Column] = [
    NAME_COLUMN,
    ("Containers", "string", "", "Names of each container in the template.", 0),
    ("Images", "string", "", "Images referenced by each container in the template.", 0),
    ("Pod Labels", "string", "", "The labels for the pod template.", 0),
]


def validate_pod_template(obj: Object) -> list[FieldError]:
    """``ValidatePodTemplate``: the template's labels and annotations and its pod spec (no
    selector to match and any restart policy, unlike a workload's template)."""
    template = obj.get("template")
    if not isinstance(template, dict):
        return [invalid("template", template, "must be an object")]
    meta = template.get("metadata") or {}
    errs: list[FieldError] = []
    if isinstance(meta.get("labels"), dict):
        errs += validate_labels({k: str(v) for k, v in meta["labels"].items()}, "template.metadata.labels")
    if isinstance(meta.get("annotations"), dict):
        annotations = {k: str(v) for k, v in meta["annotations"].items()}
        errs += validate_annotations(annotations, "template.metadata.annotations")
    return errs + validate_pod_spec(template.get("spec") or {}, "template.spec")


class PodTemplateStrategy(Strategy):
    kinds = (core_pod.PodTemplate,)
    spec_field = "template"  # generation 1 on create, bumped when the template changes
    columns = COLUMNS

    def default(self, obj: Object) -> None:
        # the template is a struct upstream, never nil: an absent one is defaulted as empty
        template = obj.setdefault("template", {})
        if isinstance(template, dict):
            default_pod_spec(template.setdefault("spec", {}))

    def validate(self, obj: Object) -> list[Cause]:
        return to_causes(validate_pod_template(obj))

    def table_cells(self, obj: Object, now: float) -> list[Any]:
        template = obj.get("template") or {}
        labels = (template.get("metadata") or {}).get("labels")
        return [obj["metadata"]["name"], *container_cells(template.get("spec") or {}), format_labels(labels)]
