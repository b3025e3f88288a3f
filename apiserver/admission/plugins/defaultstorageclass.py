"""DefaultStorageClass: a new PersistentVolumeClaim that names no class (neither
``spec.storageClassName``, not even ``""``, nor the beta ``volume.beta.kubernetes.io/storage-class``
annotation) gets the default StorageClass, the one annotated
``storageclass.kubernetes.io/is-default-class: "true"`` (or its beta spelling). With several
defaults the newest wins (ties: the first name), as upstream. No default leaves the claim
unchanged (the PV controller then binds it to class-less volumes only). Updates are left alone."""

from __future__ import annotations

import logging

from apiserver.admission.attributes import Attributes, Operation
from apiserver.admission.interfaces import Plugin
from apiserver.lookup import Lookup
from minikube_py.api.timestamps import parse_rfc3339
from minikube_py.api.unstructured import Object

NAME = "DefaultStorageClass"
IS_DEFAULT_ANNOTATIONS = (
    "storageclass.kubernetes.io/is-default-class",
    "storageclass.beta.kubernetes.io/is-default-class",
)
BETA_CLASS_ANNOTATION = "volume.beta.kubernetes.io/storage-class"
STORAGE_CLASSES = ("storage.k8s.io", "v1", "storageclasses")
log = logging.getLogger("apiserver.admission")


def is_default(storage_class: Object) -> bool:
    annotations = storage_class["metadata"].get("annotations") or {}
    return any(annotations.get(key) == "true" for key in IS_DEFAULT_ANNOTATIONS)


def default_storage_class(classes: list[Object]) -> Object | None:
    """``GetDefaultClass``: the newest class marked default (ties broken by name), or None."""
    marked = sorted(
        (c for c in classes if is_default(c)),
        key=lambda c: (
            -(parse_rfc3339(c["metadata"].get("creationTimestamp")) or 0.0),
            c["metadata"]["name"],
        ),
    )
    if len(marked) > 1:
        log.debug(
            "%d default StorageClasses were found, choosing: %s", len(marked), marked[0]["metadata"]["name"]
        )
    return marked[0] if marked else None


def has_class(claim: Object) -> bool:
    """``PersistentVolumeClaimHasClass``: a ``storageClassName`` (even empty) or the beta annotation."""
    annotations = (claim.get("metadata") or {}).get("annotations") or {}
    return (
        BETA_CLASS_ANNOTATION in annotations or (claim.get("spec") or {}).get("storageClassName") is not None
    )


class DefaultStorageClass(Plugin):
    name = NAME
    operations = frozenset({Operation.CREATE})

    def __init__(self, lookup: Lookup) -> None:
        super().__init__()
        self.lookup = lookup

    async def admit(self, attrs: Attributes) -> None:
        claim = attrs.object
        if not attrs.is_main("", "persistentvolumeclaims") or claim is None or has_class(claim):
            return
        if not self.lookup.serves(*STORAGE_CLASSES):
            return
        found = default_storage_class(await self.lookup.lister(*STORAGE_CLASSES).list("", fresh=True))
        if found is not None:
            claim.setdefault("spec", {})["storageClassName"] = found["metadata"]["name"]
