"""Which Services select a pod (upstream's ``GetPodServiceMemberships``), and what both
controllers copy from a Service."""

from __future__ import annotations

from collections.abc import Callable

from minikube_py.api.labels import selector_from_set
from minikube_py.api.unstructured import Object
from minikube_py.cache.informer import EventHandlerFuncs
from minikube_py.cache.store import (
    NAMESPACE_INDEX,
    DeletedFinalStateUnknown,
    Indexer,
    final_state,
    meta_namespace_key,
)


def selects(service: Object, pod: Object) -> bool:
    selector = (service.get("spec") or {}).get("selector")
    if not selector:
        return False  # a selector-less (or empty-selector) Service's endpoints are not ours
    return selector_from_set(selector).matches(pod["metadata"].get("labels") or {})


def pod_service_keys(services: Indexer, pod: Object) -> set[str]:
    """Keys of the Services in the pod's namespace whose selector matches its labels."""
    namespace = pod["metadata"].get("namespace", "")
    return {meta_namespace_key(s) for s in services.by_index(NAMESPACE_INDEX, namespace) if selects(s, pod)}


def selected_pods(pods: Indexer, service: Object) -> list[Object]:
    namespace = service["metadata"].get("namespace", "")
    return [p for p in pods.by_index(NAMESPACE_INDEX, namespace) if selects(service, p)]


def has_selector(service: Object) -> bool:
    """Upstream checks ``spec.selector == nil``; an empty map is stored as none (Go's JSON
    ``omitempty``), so it counts as no selector here too."""
    return bool((service.get("spec") or {}).get("selector"))


def is_external_name(service: Object) -> bool:
    return (service.get("spec") or {}).get("type") == "ExternalName"


def pod_event_handlers(services: Indexer, enqueue: Callable[[str], None]) -> EventHandlerFuncs:
    """A pod's add, update and delete enqueue the Services that select it (before and after a
    label change); a resync (same resourceVersion) enqueues nothing. Shared by the Endpoints
    and EndpointSlice controllers (upstream's ``addPod``/``updatePod``/``deletePod``)."""

    def added(pod: Object) -> None:
        for key in pod_service_keys(services, pod):
            enqueue(key)

    def updated(old: Object, new: Object) -> None:
        if old["metadata"].get("resourceVersion") == new["metadata"].get("resourceVersion"):
            return  # a resync: nothing changed
        keys = pod_service_keys(services, new)
        if (old["metadata"].get("labels") or {}) != (new["metadata"].get("labels") or {}):
            keys |= pod_service_keys(services, old)
        for key in keys:
            enqueue(key)

    def deleted(obj: Object | DeletedFinalStateUnknown) -> None:
        added(final_state(obj))

    return EventHandlerFuncs(add=added, update=updated, delete=deleted)
