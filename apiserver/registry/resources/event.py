"""core/v1 Events: selectable by involved object, reason, source and type; ``kubectl get events``
shows when, what and why (``Last Seen``, ``Type``, ``Reason``, ``Object``, ``Message``)."""

from __future__ import annotations

from typing import Any, ClassVar

from apiserver.registry.age import age
from apiserver.registry.deletion import UNSUPPORTED
from apiserver.registry.strategy import Column, ServedModels, Strategy
from minikube_py.api.models import core_objects
from minikube_py.api.unstructured import Object

COLUMNS: list[Column] = [
    ("Last Seen", "string", "", "The time at which the most recent occurrence was recorded.", 0),
    ("Type", "string", "", "Type of this event (Normal, Warning), new types could be added in the future", 0),
    ("Reason", "string", "", "A short, machine understandable string that gives the reason.", 0),
    ("Object", "string", "", "The object that this event is about.", 0),
    ("Subobject", "string", "", "The field of the object this event is about (e.g. a container).", 1),
    ("Source", "string", "", "The component reporting this event.", 1),
    ("Message", "string", "", "A human-readable description of the status of this operation.", 0),
    ("First Seen", "string", "", "The time at which the event was first recorded.", 1),
    ("Count", "string", "", "The number of times this event has occurred.", 1),
    ("Name", "string", "name", "Name must be unique within a namespace.", 1),
]
INVOLVED_FIELDS = ("kind", "namespace", "name", "uid", "apiVersion", "resourceVersion", "fieldPath")


def event_source(event: Object) -> str:
    """``component, host``: the source, or the reporting controller and instance."""
    source = event.get("source") or {}
    component = source.get("component") or event.get("reportingComponent") or ""
    host = source.get("host") or event.get("reportingInstance") or ""
    return f"{component}, {host}" if host else str(component)


def seen(event: Object, now: float) -> tuple[str, str, int]:
    """``(last seen, first seen, count)``: a series wins; a count of 0 means a singleton."""
    first = age(event.get("firstTimestamp") or event.get("eventTime"), now)
    last = age(event["lastTimestamp"], now) if event.get("lastTimestamp") else first
    count = int(event.get("count") or 0)
    series = event.get("series")
    if isinstance(series, dict):
        return age(series.get("lastObservedTime"), now), first, int(series.get("count") or 0)
    return last, first, count or 1


def target(event: Object) -> str:
    """``kind/name`` of the involved object, kind in lower case."""
    involved = event.get("involvedObject") or {}
    kind = str(involved.get("kind", "")).lower()
    return f"{kind}/{involved['name']}" if involved.get("name") else kind


class EventStrategy(Strategy):
    kinds: ClassVar[ServedModels] = (core_objects.Event,)
    gc_policy = UNSUPPORTED  # events are never held by GC finalizers
    columns = COLUMNS

    def selectable_fields(self, obj: Object) -> dict[str, str]:
        """``involvedObject.*``, ``reason``, ``reportingComponent``, ``source`` (the component, else
        the reporting controller) and ``type``, as upstream."""
        involved = obj.get("involvedObject") or {}
        source = (obj.get("source") or {}).get("component") or obj.get("reportingComponent") or ""
        fields = {f"involvedObject.{key}": str(involved.get(key) or "") for key in INVOLVED_FIELDS}
        fields.update(
            reason=obj.get("reason") or "",
            reportingComponent=obj.get("reportingComponent") or "",
            source=source,
            type=obj.get("type") or "",
        )
        return {**fields, **super().selectable_fields(obj)}

    def table_cells(self, obj: Object, now: float) -> list[Any]:
        last, first, count = seen(obj, now)
        involved = obj.get("involvedObject") or {}
        return [
            last,
            obj.get("type", ""),
            obj.get("reason", ""),
            target(obj),
            involved.get("fieldPath", ""),
            event_source(obj),
            str(obj.get("message", "")).strip(),
            first,
            count,
            obj["metadata"]["name"],
        ]
