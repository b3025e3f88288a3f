"""Finding a dependent's controller in an informer's cache (upstream has a
``resolveControllerRef`` and a ``getPodXs``-style lookup in each controller; one typed pair
serves them all here)."""

from collections.abc import Callable, Mapping
from typing import Any

from minikube_py.api.labels import Selector, label_selector_as_selector
from minikube_py.api.unstructured import Object
from minikube_py.cache.store import NAMESPACE_INDEX, Indexer


def resolve_controller_ref(
    indexer: Indexer, kind: str, namespace: str, ref: Mapping[str, Any] | None
) -> Object | None:
    """The cached object of ``kind`` that the controller reference ``ref`` names in
    ``namespace``, or None: no reference, another kind, not cached, or cached under another
    UID (a namesake that replaced the owner must not adopt its predecessor's dependents)."""
    if ref is None or ref.get("kind") != kind:
        return None
    owner = indexer.get_by_key(f"{namespace}/{ref.get('name')}")
    if owner is None or owner["metadata"].get("uid") != ref.get("uid"):
        return None
    return owner


def spec_selector(obj: Object) -> Selector:
    """``spec.selector`` as a label selector (the apps/batch/policy kinds' shape)."""
    return label_selector_as_selector(obj["spec"].get("selector"))


def objects_selecting(
    indexer: Indexer,
    obj: Object,
    selector_of: Callable[[Object], Selector | None] = spec_selector,
) -> list[Object]:
    """The cached objects in ``obj``'s namespace whose non-empty selector matches its labels:
    the candidates for an orphan (an empty selector selects nothing, a None one is invalid)."""
    labels = obj["metadata"].get("labels") or {}
    found = []
    for candidate in indexer.by_index(NAMESPACE_INDEX, obj["metadata"].get("namespace", "")):
        selector = selector_of(candidate)
        if selector is not None and not selector.empty and selector.matches(labels):
            found.append(candidate)
    return found
