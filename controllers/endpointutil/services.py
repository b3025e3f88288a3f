"""Which Services select a pod (upstream's ``GetPodServiceMemberships``), and what both
controllers copy from a Service."""

from __future__ import annotations

from minikube_py.api.labels import selector_from_set
from minikube_py.api.unstructured import Object
from minikube_py.cache.store import NAMESPACE_INDEX, Indexer, meta_namespace_key


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
