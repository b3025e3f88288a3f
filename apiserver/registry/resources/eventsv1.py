"""events.k8s.io/v1 Events: the same objects as core/v1 Events (one storage, stored in the core
shape, ``eventconversion``), as upstream serves both from the core event registry.

Upstream's field label conversion for events.k8s.io/v1 Events (``AddFieldLabelConversionsForEvent``
in ``pkg/apis/events/v1``) accepts ``regarding.*``, ``reportingController``, ``reason``,
``source``, ``type`` and ``metadata.name``/``metadata.namespace``, each read from the core field it
maps to; ``involvedObject.*`` and ``reportingComponent`` are not supported (400). The Table is
core's (upstream prints both versions with the internal Event's printer).

Writes through this version are validated as upstream validates events.k8s.io requests
(``eventvalidation``: required reporting fields, limits, series, immutable fields), on the core
form of the Event, so paths are core's names.
"""

from __future__ import annotations

from typing import Any

from apiserver.registry.resources.event import INVOLVED_FIELDS, EventStrategy
from apiserver.registry.resources.eventconversion import EventsV1Conversion, event_to_core
from apiserver.registry.resources.eventvalidation import validate_event_create, validate_event_update
from minikube_py.api.errors import Cause
from minikube_py.api.models import events
from minikube_py.api.unstructured import Object

# events.k8s.io/v1 field label -> the core/v1 field label it selects on
FIELD_LABELS: dict[str, str] = {
    "metadata.name": "metadata.name",
    "metadata.namespace": "metadata.namespace",
    **{f"regarding.{key}": f"involvedObject.{key}" for key in INVOLVED_FIELDS},
    "reason": "reason",
    "reportingController": "reportingComponent",
    "source": "source",
    "type": "type",
}


class EventsV1Strategy(EventStrategy):
    kinds = (events.Event,)
    conversion = EventsV1Conversion()

    def validate(self, obj: Object) -> list[Cause]:
        return validate_event_create(event_to_core(obj))

    def validate_update(self, new: Object, old: Object) -> list[Cause]:
        return validate_event_update(event_to_core(new), event_to_core(old))

    def selectable_fields(self, obj: Object) -> dict[str, str]:
        """events.k8s.io labels with the values of the core fields they map to; ``obj`` is the
        stored (core/v1) Event."""
        core = super().selectable_fields(obj)
        return {label: core[field] for label, field in FIELD_LABELS.items() if field in core}

    def table_cells(self, obj: Object, now: float) -> list[Any]:
        """Core's cells of the Event (``obj`` is served, events.k8s.io/v1)."""
        return super().table_cells(event_to_core(obj), now)
