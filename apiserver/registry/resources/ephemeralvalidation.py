"""Validation of ephemeral containers (upstream's ``validateEphemeralContainers`` and
``ValidatePodEphemeralContainersUpdate``).

A pod's ``spec.ephemeralContainers`` change only through the subresource, and only by
additions: an existing one may be neither changed nor removed. Each has a name unique across
all the pod's containers, a ``targetContainerName`` (when set) naming one of its init or
regular containers, none of the fields that would make it part of the pod's services (ports,
probes, lifecycle, resources, resize policy, restart policy) and no subPath mounts. A pod may
not be created with any, and a static (mirror) pod may not get any.
"""

from __future__ import annotations

from typing import Any

from apiserver.registry.resources.podvalidation import validate_container
from minikube_py.api.field_errors import FieldError, forbidden
from minikube_py.api.unstructured import Object

FIELD = "spec.ephemeralContainers"
NOT_ALLOWED = "cannot be set for an Ephemeral Container"
# Container fields an ephemeral container may not set (upstream allows a list; these are the
# Container fields it leaves out).
DISALLOWED_FIELDS = (
    "ports",
    "resources",
    "resizePolicy",
    "livenessProbe",
    "readinessProbe",
    "startupProbe",
    "lifecycle",
    "restartPolicy",
)
MIRROR_ANNOTATION = "kubernetes.io/config.mirror"
MAIN_UPDATE_FORBIDDEN = (
    "pod updates may not change fields other than `spec.containers[*].image`,"
    "`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions "
    "to existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it "
    "was previously negative)"
)


def _set(value: Any) -> bool:
    """Upstream's allow-list check skips zero values (``resources: {}`` is not set)."""
    return value not in (None, {}, [], "", 0, False)


def validate_ephemeral_containers(spec: Object) -> list[FieldError]:
    """Upstream's ``validateEphemeralContainers`` (the essentials)."""
    others = [
        str(c.get("name") or "")
        for key in ("containers", "initContainers")
        for c in spec.get(key) or []
        if isinstance(c, dict)
    ]
    names = set(others)
    errs: list[FieldError] = []
    for i, container in enumerate(spec.get("ephemeralContainers") or []):
        at = f"{FIELD}[{i}]"
        # The checks every container gets (name, image, unique across the pod), then its own.
        errs += validate_container(container, at, names)
        if not isinstance(container, dict):
            continue
        target = container.get("targetContainerName")
        if target and target not in others:
            errs.append(FieldError("FieldValueNotFound", f"{at}.targetContainerName", target))
        errs += [
            forbidden(f"{at}.{key}", NOT_ALLOWED) for key in DISALLOWED_FIELDS if _set(container.get(key))
        ]
        for j, mount in enumerate(container.get("volumeMounts") or []):
            for key in ("subPath", "subPathExpr"):
                if isinstance(mount, dict) and mount.get(key):
                    errs.append(forbidden(f"{at}.volumeMounts[{j}].{key}", NOT_ALLOWED))
    return errs


def _ephemeral(pod: Object) -> list[Any]:
    return list((pod.get("spec") or {}).get("ephemeralContainers") or [])


def validate_pod_create(pod: Object) -> list[FieldError]:
    """Upstream's ``ValidatePodCreate``: ephemeral containers come only through the subresource."""
    if (pod.get("spec") or {}).get("ephemeralContainers"):
        return [forbidden(FIELD, "cannot be set on create")]
    return []


def validate_main_update(new: Object, old: Object) -> list[FieldError]:
    """A pod update (not the subresource) may not change the ephemeral containers."""
    if (new.get("spec") or {}).get("ephemeralContainers") != (old.get("spec") or {}).get(
        "ephemeralContainers"
    ):
        return [forbidden("spec", MAIN_UPDATE_FORBIDDEN)]
    return []


def validate_ephemeral_update(new: Object, old: Object) -> list[FieldError]:
    """``ValidatePodEphemeralContainersUpdate``: only additions, never on static pods."""
    if MIRROR_ANNOTATION in ((old.get("metadata") or {}).get("annotations") or {}):
        return [forbidden("", "static pods do not support ephemeral containers")]
    wanted = {
        c.get("name"): c
        for c in (new.get("spec") or {}).get("ephemeralContainers") or []
        if isinstance(c, dict)
    }
    errs: list[FieldError] = []
    for existing in _ephemeral(old):
        name = existing.get("name", "")
        if name not in wanted:
            errs.append(forbidden(FIELD, f'existing ephemeral containers "{name}" may not be removed\n'))
        elif wanted[name] != existing:
            errs.append(
                forbidden(f"{FIELD}[{name}]", f'existing ephemeral containers "{name}" may not be changed\n')
            )
    return errs
