"""``TriggerTimeTracker`` (upstream's ``endpoint/trigger_time_tracker.go``): the value of the
``endpoints.kubernetes.io/last-change-trigger-time`` annotation, the time of the earliest change
(a pod's Ready transition, the Service's creation) that the coming write reflects."""

from __future__ import annotations

from dataclasses import dataclass, field

from minikube_py.api.timestamps import parse_rfc3339
from minikube_py.api.unstructured import Object

ANNOTATION = "endpoints.kubernetes.io/last-change-trigger-time"


@dataclass
class _ServiceState:
    last_service_trigger: float | None = None
    last_pod_triggers: dict[str, float] = field(default_factory=dict)


def pod_trigger_time(pod: Object) -> float | None:
    """When the pod's Ready condition last changed (it drives both address lists)."""
    for condition in (pod.get("status") or {}).get("conditions") or []:
        if condition.get("type") == "Ready":
            return parse_rfc3339(condition.get("lastTransitionTime"))
    return None


class TriggerTimeTracker:
    """Per Service, the trigger times seen at its last sync; a sync's trigger time is the
    minimum over what changed since. Each key is synced by one worker at a time."""

    def __init__(self) -> None:
        self._states: dict[str, _ServiceState] = {}

    def compute(self, key: str, service: Object, pods: list[Object]) -> float | None:
        state = self._states.setdefault(key, _ServiceState())
        changed: list[float] = []
        created = parse_rfc3339(service["metadata"].get("creationTimestamp"))
        if created is not None and created != state.last_service_trigger:
            changed.append(created)
        state.last_service_trigger = created
        seen: dict[str, float] = {}
        for pod in pods:
            at = pod_trigger_time(pod)
            if at is None:
                continue
            name = pod["metadata"]["name"]
            seen[name] = at
            if state.last_pod_triggers.get(name) != at:
                changed.append(at)
        state.last_pod_triggers = seen
        return min(changed) if changed else None

    def delete_service(self, key: str) -> None:
        self._states.pop(key, None)
