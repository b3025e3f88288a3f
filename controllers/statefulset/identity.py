"""A StatefulSet pod's stable identity and storage (upstream's stateful_set_utils.go).

A member is named ``<set>-<ordinal>``; its ordinal is parsed back from the name, so a pod
whose name has no ordinal suffix is never a member. Identity is the name, the namespace and
the labels ``statefulset.kubernetes.io/pod-name`` and ``apps.kubernetes.io/pod-index``; the
hostname and subdomain (the set's ``serviceName``) are written once, at creation, because a
pod's spec cannot change them afterwards. Storage is one ``persistentVolumeClaim`` volume per
``volumeClaimTemplates`` entry, claiming ``<template>-<set>-<ordinal>``.
"""

from __future__ import annotations

import copy
import functools
import re
from collections.abc import Mapping
from typing import Any

from controllers.podcontrol.control import get_pod_from_template
from controllers.podcontrol.pods import is_pod_available, is_pod_ready
from minikube_py.api.unstructured import Object

POD_NAME_LABEL = "statefulset.kubernetes.io/pod-name"
POD_INDEX_LABEL = "apps.kubernetes.io/pod-index"
REVISION_LABEL = "controller-revision-hash"
API_VERSION = "apps/v1"
KIND = "StatefulSet"

_MEMBER_NAME = re.compile(r"^(.*)-([0-9]+)$")
_MAX_INT32 = 2**31 - 1


def parent_name_and_ordinal(pod: Mapping[str, Any]) -> tuple[str, int]:
    """The set a pod's name says it belongs to and its ordinal; ``("", -1)`` when it has none."""
    return _parse_name(str((pod.get("metadata") or {}).get("name") or ""))


@functools.lru_cache(maxsize=8192)  # a sync asks several times per pod; names are few
def _parse_name(name: str) -> tuple[str, int]:
    match = _MEMBER_NAME.match(name)
    if match is None:
        return "", -1
    ordinal = int(match.group(2))
    return match.group(1), ordinal if ordinal <= _MAX_INT32 else -1


def ordinal_of(pod: Mapping[str, Any]) -> int:
    return parent_name_and_ordinal(pod)[1]


def pod_name(sts: Object, ordinal: int) -> str:
    return f"{sts['metadata']['name']}-{ordinal}"


def claim_name(sts: Object, template: Mapping[str, Any], ordinal: int) -> str:
    return f"{(template.get('metadata') or {}).get('name', '')}-{sts['metadata']['name']}-{ordinal}"


def start_ordinal(sts: Object) -> int:
    """``spec.ordinals.start`` (0 when unset)."""
    return int(((sts["spec"].get("ordinals") or {}).get("start")) or 0)


def end_ordinal(sts: Object) -> int:
    """The last ordinal in range (``start + replicas - 1``; below ``start`` when replicas is 0)."""
    return start_ordinal(sts) + int(sts["spec"].get("replicas", 1)) - 1


def in_ordinal_range(pod: Mapping[str, Any], sts: Object) -> bool:
    ordinal = ordinal_of(pod)
    return start_ordinal(sts) <= ordinal <= end_ordinal(sts)


def is_member_of(sts: Object, pod: Mapping[str, Any]) -> bool:
    return parent_name_and_ordinal(pod)[0] == str(sts["metadata"]["name"])


def identity_matches(sts: Object, pod: Object) -> bool:
    parent, ordinal = parent_name_and_ordinal(pod)
    labels = pod["metadata"].get("labels") or {}
    name = pod["metadata"].get("name")
    return (
        ordinal >= 0
        and parent == sts["metadata"]["name"]
        and name == pod_name(sts, ordinal)
        and pod["metadata"].get("namespace") == sts["metadata"].get("namespace")
        and labels.get(POD_NAME_LABEL) == name
        and labels.get(POD_INDEX_LABEL) == str(ordinal)
    )


def update_identity(sts: Object, pod: Object) -> None:
    """Name, namespace and the identity labels (the fields that may still change on a pod)."""
    ordinal = ordinal_of(pod)
    meta = pod["metadata"]
    meta["name"] = pod_name(sts, ordinal)
    meta["namespace"] = sts["metadata"].get("namespace")
    labels = meta.setdefault("labels", {})
    labels[POD_NAME_LABEL] = meta["name"]
    labels[POD_INDEX_LABEL] = str(ordinal)


def volume_claim_templates(sts: Object) -> list[Mapping[str, Any]]:
    return list(sts["spec"].get("volumeClaimTemplates") or [])


def persistent_volume_claims(sts: Object, ordinal: int) -> list[tuple[str, Object]]:
    """(template name, claim) for each template: the template with the member's claim name,
    the set's namespace and the selector's matchLabels added to the template's labels."""
    match_labels = (sts["spec"].get("selector") or {}).get("matchLabels") or {}
    claims = []
    for template in volume_claim_templates(sts):
        claim: Object = {"apiVersion": "v1", "kind": "PersistentVolumeClaim", **copy.deepcopy(dict(template))}
        meta = claim.setdefault("metadata", {})
        template_name = str(meta.get("name") or "")
        meta["name"] = claim_name(sts, template, ordinal)
        meta["namespace"] = sts["metadata"].get("namespace")
        meta["labels"] = {**(meta.get("labels") or {}), **match_labels}
        claim.pop("status", None)
        claims.append((template_name, claim))
    return claims


def storage_matches(sts: Object, pod: Object) -> bool:
    ordinal = ordinal_of(pod)
    if ordinal < 0:
        return False
    volumes = {v.get("name"): v for v in pod["spec"].get("volumes") or []}
    for template_name, claim in persistent_volume_claims(sts, ordinal):
        source = (volumes.get(template_name) or {}).get("persistentVolumeClaim") or {}
        if source.get("claimName") != claim["metadata"]["name"]:
            return False
    return True


def update_storage(sts: Object, pod: Object) -> None:
    """One claim volume per template (replacing a same-named volume), other volumes kept."""
    claims = persistent_volume_claims(sts, ordinal_of(pod))
    names = {name for name, _ in claims}
    volumes: list[dict[str, Any]] = [
        {"name": name, "persistentVolumeClaim": {"claimName": claim["metadata"]["name"]}}
        for name, claim in claims
    ]
    volumes += [v for v in pod["spec"].get("volumes") or [] if v.get("name") not in names]
    pod["spec"]["volumes"] = volumes


def controller_ref(sts: Object) -> dict[str, Any]:
    meta = sts["metadata"]
    return {
        "apiVersion": API_VERSION,
        "kind": KIND,
        "name": meta["name"],
        "uid": meta["uid"],
        "controller": True,
        "blockOwnerDeletion": True,
    }


def new_stateful_set_pod(sts: Object, ordinal: int) -> Object:
    """The member ``ordinal`` of ``sts`` as its template describes it (not yet created)."""
    pod = get_pod_from_template(sts["spec"].get("template") or {}, sts, controller_ref(sts))
    pod["metadata"].pop("generateName", None)
    pod["metadata"]["name"] = pod_name(sts, ordinal)
    update_identity(sts, pod)
    pod["spec"]["hostname"] = pod["metadata"]["name"]
    if sts["spec"].get("serviceName"):
        pod["spec"]["subdomain"] = sts["spec"]["serviceName"]
    update_storage(sts, pod)
    return pod


# -- pod states ------------------------------------------------------------------------------


def phase(pod: Object) -> str:
    return str((pod.get("status") or {}).get("phase") or "")


def is_created(pod: Object) -> bool:
    """Known to the apiserver (a pod the controller has only built has no phase)."""
    return phase(pod) != ""


def is_pending(pod: Object) -> bool:
    return phase(pod) == "Pending"


def is_failed_or_succeeded(pod: Object) -> bool:
    return phase(pod) in ("Failed", "Succeeded")


def is_terminating(pod: Object) -> bool:
    return bool(pod["metadata"].get("deletionTimestamp"))


def is_running_and_ready(pod: Object) -> bool:
    return phase(pod) == "Running" and is_pod_ready(pod)


def is_running_and_available(pod: Object, min_ready_seconds: int, now: float) -> bool:
    return phase(pod) == "Running" and is_pod_available(pod, min_ready_seconds, now)


def is_healthy(pod: Object) -> bool:
    return is_running_and_ready(pod) and not is_terminating(pod)


def is_unavailable(pod: Object, min_ready_seconds: int, now: float) -> bool:
    return not is_pod_available(pod, min_ready_seconds, now) or is_terminating(pod)


def pod_revision(pod: Mapping[str, Any]) -> str:
    return str(((pod.get("metadata") or {}).get("labels") or {}).get(REVISION_LABEL) or "")


def set_pod_revision(pod: Object, revision: str) -> None:
    pod["metadata"].setdefault("labels", {})[REVISION_LABEL] = revision
