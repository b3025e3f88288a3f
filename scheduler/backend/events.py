"""What a pod change means to the queue (upstream ``framework/events.go`` and the helpers in
``scheduling_queue.go``): whether an update of an unscheduled pod can change its scheduling,
which events an assigned pod's update is, and whether a pod could satisfy a waiting pod's
required affinity."""

from __future__ import annotations

from typing import Any

from minikube_py.api.labels import SelectorError, label_selector_as_selector
from minikube_py.api.unstructured import Object
from scheduler.framework.types import ActionType, ClusterEvent, compute_pod_resource_request

UNSCHEDULABLE_TIMEOUT = ClusterEvent("*", ActionType.ALL, "UnschedulableTimeout")
ASSIGNED_POD_ADD = ClusterEvent("Pod", ActionType.ADD, "AssignedPodAdd")
ASSIGNED_POD_LABEL_UPDATE = ClusterEvent("Pod", ActionType.UPDATE_POD_LABEL, "AssignedPodUpdate")
ASSIGNED_POD_SCALE_DOWN = ClusterEvent("Pod", ActionType.UPDATE_POD_SCALE_DOWN, "AssignedPodUpdate")
UPDATE_POD_OTHER = ActionType(256)  # the bit of ActionType.UPDATE no named flag covers
ASSIGNED_POD_OTHER_UPDATE = ClusterEvent("Pod", UPDATE_POD_OTHER, "AssignedPodOtherUpdate")

_IGNORED_METADATA = ("resourceVersion", "generation", "managedFields", "finalizers")


def is_wildcard(event: ClusterEvent) -> bool:
    return event.resource == "*" and event.action == ActionType.ALL


def is_pod_updated(old: Object, new: Object) -> bool:
    """Whether anything but status and bookkeeping metadata changed (upstream ``isPodUpdated``):
    the scheduler's own ``PodScheduled=False`` status write must not requeue the pod."""
    return _strip(old) != _strip(new)


def _strip(pod: Object) -> dict[str, Any]:
    meta = {k: v for k, v in (pod.get("metadata") or {}).items() if k not in _IGNORED_METADATA}
    return {k: v for k, v in pod.items() if k not in ("metadata", "status")} | {"metadata": meta}


def assigned_pod_update_events(old: Object, new: Object) -> list[ClusterEvent]:
    """The events an update of an assigned pod is (upstream ``PodSchedulingPropertiesChange``)."""
    events = []
    if (old.get("metadata") or {}).get("labels") != (new.get("metadata") or {}).get("labels"):
        events.append(ASSIGNED_POD_LABEL_UPDATE)
    if _scaled_down(old, new):
        events.append(ASSIGNED_POD_SCALE_DOWN)
    return events or [ASSIGNED_POD_OTHER_UPDATE]


def _scaled_down(old: Object, new: Object) -> bool:
    before, after = compute_pod_resource_request(old), compute_pod_resource_request(new)
    pairs = [
        (after.milli_cpu, before.milli_cpu),
        (after.memory, before.memory),
        (after.ephemeral_storage, before.ephemeral_storage),
    ]
    pairs += [(after.scalar.get(name, 0), value) for name, value in before.scalar.items()]
    return any(now < was for now, was in pairs)


def matches_required_affinity(waiting: Object, pod: Object) -> bool:
    """Whether ``pod`` matches one of ``waiting``'s required pod-affinity terms (upstream
    ``AffinityTerm.Matches``). A term with a non-empty namespaceSelector counts as matching:
    namespace labels are not known here, and moving a pod too often is only extra work."""
    affinity = ((waiting.get("spec") or {}).get("affinity") or {}).get("podAffinity") or {}
    terms = affinity.get("requiredDuringSchedulingIgnoredDuringExecution") or []
    meta = pod.get("metadata") or {}
    return any(_term_matches(term, waiting, meta) for term in terms)


def _term_matches(term: Object, waiting: Object, meta: Object) -> bool:
    namespace_selector = term.get("namespaceSelector")
    namespaces = term.get("namespaces") or []
    if namespace_selector is None and not namespaces:
        namespaces = [(waiting.get("metadata") or {}).get("namespace")]
    in_namespace = meta.get("namespace") in namespaces or namespace_selector is not None
    if not in_namespace:
        return False
    try:
        selector = label_selector_as_selector(term.get("labelSelector"))
    except SelectorError:
        return False
    return selector.matches(meta.get("labels") or {})
