"""Controller owner references and the ``controller-uid`` index (upstream's metav1
``GetControllerOf``/``NewControllerRef`` and ``AddPodControllerUIDIndexer``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from minikube_py.api.unstructured import Object
from minikube_py.cache.informer import SharedInformer

CONTROLLER_UID_INDEX = "controller-uid"
ORPHAN_INDEX_PREFIX = "orphan:"


def get_controller_of(obj: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """The owner reference with ``controller: true``, or None."""
    for ref in (obj.get("metadata") or {}).get("ownerReferences") or []:
        if ref.get("controller"):
            return ref  # type: ignore[no-any-return]
    return None


def new_controller_ref(owner: Object, api_version: str, kind: str) -> dict[str, Any]:
    meta = owner["metadata"]
    return {
        "apiVersion": api_version,
        "kind": kind,
        "name": meta["name"],
        "uid": meta["uid"],
        "controller": True,
        "blockOwnerDeletion": True,
    }


def controller_uid_index_func(obj: Object) -> list[str]:
    """Files an object under its controller's uid, or under ``orphan:<namespace>``."""
    ref = get_controller_of(obj)
    if ref is not None:
        return [str(ref.get("uid", ""))]
    return [ORPHAN_INDEX_PREFIX + str(obj["metadata"].get("namespace") or "")]


def orphan_index_value(namespace: str) -> str:
    return ORPHAN_INDEX_PREFIX + namespace


def add_controller_uid_index(informer: SharedInformer) -> None:
    """Register the ``controller-uid`` index once (several controllers share the informer)."""
    if CONTROLLER_UID_INDEX not in informer.indexer.indexer_names():
        informer.add_indexers({CONTROLLER_UID_INDEX: controller_uid_index_func})


def objects_for_owner(informer: SharedInformer, owner: Object, include_orphans: bool) -> list[Object]:
    """The objects ``owner`` controls, plus (optionally) the orphans of its namespace."""
    meta = owner["metadata"]
    owned = informer.indexer.by_index(CONTROLLER_UID_INDEX, str(meta.get("uid", "")))
    if not include_orphans:
        return owned
    orphans = informer.indexer.by_index(CONTROLLER_UID_INDEX, orphan_index_value(meta.get("namespace") or ""))
    return owned + orphans
