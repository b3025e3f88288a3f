"""events.k8s.io/v1 Event <-> core/v1 Event, the shape both versions are stored in.

Upstream (``pkg/apis/events/v1`` conversion) maps both versions onto the internal Event: the
fields below are renamed, and the others (``metadata``, ``eventTime``, ``series`` with its
``count`` and ``lastObservedTime``, ``reportingInstance``, ``action``, ``reason``, ``related``,
``type``) have the same name and shape in both versions. A field is converted only when present
(no zero values are invented), so a round trip gives back an equal object.

A field named like the *other* version's field (``message`` in an events.k8s.io Event, ``note``
in a core one) is unknown in this version: it is dropped, as upstream's decoder drops unknown
fields, instead of shadowing the converted field.
"""

from __future__ import annotations

from minikube_py.api.unstructured import Object

CORE_API_VERSION = "v1"
EVENTS_API_VERSION = "events.k8s.io/v1"

# events.k8s.io/v1 field -> core/v1 field
TO_CORE: dict[str, str] = {
    "regarding": "involvedObject",
    "note": "message",
    "reportingController": "reportingComponent",
    "deprecatedSource": "source",
    "deprecatedFirstTimestamp": "firstTimestamp",
    "deprecatedLastTimestamp": "lastTimestamp",
    "deprecatedCount": "count",
}
FROM_CORE: dict[str, str] = {core: events for events, core in TO_CORE.items()}
CORE_ONLY, EVENTS_ONLY = frozenset(FROM_CORE), frozenset(TO_CORE)


def _renamed(obj: Object, names: dict[str, str], foreign: frozenset[str], api_version: str) -> Object:
    """A new top-level object: ``names`` renamed, ``foreign`` names (the other version's) dropped."""
    out = {names.get(key, key): value for key, value in obj.items() if key not in foreign}
    out["apiVersion"] = api_version
    out["kind"] = "Event"
    return out


def event_to_core(event: Object) -> Object:
    """The core/v1 form of an events.k8s.io/v1 Event (``event`` is not modified)."""
    return _renamed(event, TO_CORE, CORE_ONLY, CORE_API_VERSION)


def event_from_core(event: Object) -> Object:
    """The events.k8s.io/v1 form of a core/v1 Event (``event`` is not modified)."""
    return _renamed(event, FROM_CORE, EVENTS_ONLY, EVENTS_API_VERSION)


class EventsV1Conversion:
    """``StorageConversion`` of events.k8s.io/v1 Events, stored as core/v1 Events."""

    def to_storage(self, obj: Object) -> Object:
        return event_to_core(obj)

    def from_storage(self, obj: Object) -> Object:
        return event_from_core(obj)
