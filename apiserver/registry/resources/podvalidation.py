"""Validation of pod specs and of workloads' pod templates, with upstream's messages
(``pkg/apis/core/validation`` and ``pkg/apis/apps/validation``), as 422 causes.

The essentials only: containers present, named (unique DNS labels) and with an image; supported
restart and DNS policies; the DNS fields (``poddns``); a workload's selector present, non-empty,
immutable and matching its template's labels; non-negative replicas.
"""

from __future__ import annotations

from typing import Any

from apiserver.registry.resources.poddns import validate_pod_dns
from minikube_py.api.errors import Cause
from minikube_py.api.field_errors import FieldError, forbidden, invalid, not_supported, required
from minikube_py.api.labels import SelectorError, label_selector_as_selector
from minikube_py.api.unstructured import Object
from minikube_py.api.validation import is_dns1123_label, is_qualified_name, validate_labels

RESTART_POLICIES = ("Always", "OnFailure", "Never")
DNS_POLICIES = ("ClusterFirstWithHostNet", "ClusterFirst", "Default", "None")
NEGATIVE = "must be greater than or equal to 0"
IMMUTABLE = "field is immutable"


def to_causes(errs: list[FieldError]) -> list[Cause]:
    """Field errors as ``details.causes`` (the message without the field path, like upstream)."""
    return [Cause(e.reason, e.body(), e.field) for e in errs]


def non_negative(spec: Object, key: str, path: str) -> list[FieldError]:
    """``ValidateNonnegativeField`` for an optional integer of ``spec``."""
    value = spec.get(key)
    if isinstance(value, int) and value < 0:
        return [invalid(f"{path}.{key}", value, NEGATIVE)]
    return []


def validate_container(container: Any, at: str, taken: set[str]) -> list[FieldError]:
    """The container at ``at``: an object with a DNS-label name unique in ``taken`` (updated)
    and an image. Shared by regular, init and ephemeral containers."""
    if not isinstance(container, dict):
        return [invalid(at, container, "must be an object")]
    errs: list[FieldError] = []
    name = str(container.get("name") or "")
    if not name:
        errs.append(required(f"{at}.name"))
    else:
        errs += [invalid(f"{at}.name", name, msg) for msg in is_dns1123_label(name)]
    if not container.get("image"):
        errs.append(required(f"{at}.image"))
    if name and name in taken:
        errs.append(FieldError("FieldValueDuplicate", f"{at}.name", name))
    taken.add(name)
    return errs


def _validate_containers(containers: list[Any], path: str, taken: set[str]) -> list[FieldError]:
    """Each container of the list at ``path`` (``validate_container``)."""
    return [e for i, c in enumerate(containers) for e in validate_container(c, f"{path}[{i}]", taken)]


def validate_pod_spec(spec: Object, path: str) -> list[FieldError]:
    """``ValidatePodSpec``'s essentials for a pod (``path="spec"``) or a template."""
    containers = spec.get("containers") or []
    errs: list[FieldError] = []
    if not containers:
        errs.append(required(f"{path}.containers"))
    names: set[str] = set()
    errs += _validate_containers(containers, f"{path}.containers", names)
    errs += _validate_containers(spec.get("initContainers") or [], f"{path}.initContainers", names)
    restart = spec.get("restartPolicy", "")
    if not restart:
        errs.append(required(f"{path}.restartPolicy"))
    elif restart not in RESTART_POLICIES:
        errs.append(not_supported(f"{path}.restartPolicy", restart, RESTART_POLICIES))
    dns = spec.get("dnsPolicy", "")
    if dns and dns not in DNS_POLICIES:
        errs.append(not_supported(f"{path}.dnsPolicy", dns, DNS_POLICIES))
    errs += validate_pod_dns(spec, path)
    return errs + non_negative(spec, "terminationGracePeriodSeconds", path)


def validate_pod(pod: Object) -> list[FieldError]:
    """A pod's spec, and (pod-only) no spaces around image names."""
    spec = pod.get("spec") or {}
    errs = validate_pod_spec(spec, "spec")
    for i, container in enumerate(spec.get("containers") or []):
        image = container.get("image") if isinstance(container, dict) else None
        if isinstance(image, str) and image != image.strip():
            detail = "must not have leading or trailing whitespace"
            errs.append(invalid(f"spec.containers[{i}].image", image, detail))
    return errs


def validate_template(
    template: Any, selector: Any, path: str, restart_policies: tuple[str, ...] = ("Always",)
) -> list[FieldError]:
    """``ValidatePodTemplateSpecForReplicaSet``: labels match the selector, a valid pod spec, and a
    restart policy among ``restart_policies`` (empty: no restriction)."""
    if not isinstance(template, dict):
        return [required(path)]
    labels = (template.get("metadata") or {}).get("labels")
    errs: list[FieldError] = []
    try:
        parsed = label_selector_as_selector(selector)
    except SelectorError:
        parsed = None
    if parsed is not None and not parsed.empty and not parsed.matches(labels or {}):
        detail = "`selector` does not match template `labels`"
        errs.append(invalid(f"{path}.metadata.labels", labels, detail))
    if isinstance(labels, dict):
        errs += validate_labels({k: str(v) for k, v in labels.items()}, f"{path}.metadata.labels")
    spec = template.get("spec") or {}
    errs += validate_pod_spec(spec, f"{path}.spec")
    restart = spec.get("restartPolicy")
    if restart_policies and restart in RESTART_POLICIES and restart not in restart_policies:
        errs.append(not_supported(f"{path}.spec.restartPolicy", restart, restart_policies))
    return errs


def validate_label_selector(selector: Any, path: str) -> list[FieldError]:
    """``ValidateLabelSelector``: label keys and values of ``matchLabels``; each expression's
    key, and an operator with the values it needs (``In``/``NotIn``: some; ``Exists``/
    ``DoesNotExist``: none)."""
    if not isinstance(selector, dict):
        return []
    errs = validate_labels(
        {str(k): str(v) for k, v in (selector.get("matchLabels") or {}).items()}, f"{path}.matchLabels"
    )
    for i, expression in enumerate(selector.get("matchExpressions") or []):
        at = f"{path}.matchExpressions[{i}]"
        if not isinstance(expression, dict):
            continue
        operator, values = expression.get("operator"), expression.get("values") or []
        if operator in ("In", "NotIn"):
            if not values:
                errs.append(required(f"{at}.values", "must be specified when `operator` is 'In' or 'NotIn'"))
        elif operator in ("Exists", "DoesNotExist"):
            if values:
                detail = "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"
                errs.append(forbidden(f"{at}.values", detail))
        else:
            errs.append(invalid(f"{at}.operator", operator, "not a valid selector operator"))
        errs += [
            invalid(f"{at}.key", expression.get("key"), m)
            for m in is_qualified_name(str(expression.get("key", "")))
        ]
    return errs


def validate_selector(spec: Object, kind: str) -> list[FieldError]:
    """``spec.selector``: required, valid (``validate_label_selector``), not empty
    (``empty selector is invalid for <kind>``), parseable (``invalid label selector``)."""
    selector = spec.get("selector")
    if selector is None:
        return [required("spec.selector")]
    errs = validate_label_selector(selector, "spec.selector")
    if isinstance(selector, dict) and not (selector.get("matchLabels") or selector.get("matchExpressions")):
        errs.append(invalid("spec.selector", selector, f"empty selector is invalid for {kind}"))
    if parsed_selector(selector) is None:
        errs.append(invalid("spec.selector", selector, "invalid label selector"))
    return errs


def parsed_selector(selector: Any) -> Any:
    try:
        return label_selector_as_selector(selector)
    except SelectorError:
        return None


def validate_workload(obj: Object, kind: str, *, replicas: bool = True) -> list[FieldError]:
    """A Deployment/ReplicaSet/DaemonSet/StatefulSet spec: replicas, selector and, when the
    selector parses, the template (upstream skips it otherwise)."""
    spec = obj.get("spec") or {}
    errs = non_negative(spec, "replicas", "spec") if replicas else []
    errs += validate_selector(spec, kind)
    if spec.get("selector") is None or parsed_selector(spec.get("selector")) is not None:
        errs += validate_template(spec.get("template"), spec.get("selector"), "spec.template")
    return errs


def validate_selector_unchanged(new: Object, old: Object) -> list[FieldError]:
    """apps/v1 selectors are immutable."""
    selector = (new.get("spec") or {}).get("selector")
    if selector != (old.get("spec") or {}).get("selector"):
        return [invalid("spec.selector", selector, IMMUTABLE)]
    return []
