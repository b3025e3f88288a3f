"""Vocabulary shared by the PersistentVolume binder, the provisioner, the scheduler's
VolumeBinding plugin and the node agents (upstream's ``storage/util`` and
``component-helpers/storage/volume``): annotation names and small readers of claims,
volumes and classes."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from minikube_py.api.quantity import Quantity, parse_quantity

ANN_BIND_COMPLETED = "pv.kubernetes.io/bind-completed"
ANN_BOUND_BY_CONTROLLER = "pv.kubernetes.io/bound-by-controller"
ANN_DYNAMICALLY_PROVISIONED = "pv.kubernetes.io/provisioned-by"
ANN_STORAGE_PROVISIONER = "volume.kubernetes.io/storage-provisioner"
ANN_BETA_STORAGE_PROVISIONER = "volume.beta.kubernetes.io/storage-provisioner"
ANN_SELECTED_NODE = "volume.kubernetes.io/selected-node"
ANN_BETA_STORAGE_CLASS = "volume.beta.kubernetes.io/storage-class"
ANN_DEFAULT_STORAGE_CLASS = "storageclass.kubernetes.io/is-default-class"
PVC_PROTECTION_FINALIZER = "kubernetes.io/pvc-protection"
PV_PROTECTION_FINALIZER = "kubernetes.io/pv-protection"
WAIT_FOR_FIRST_CONSUMER = "WaitForFirstConsumer"
NOT_SUPPORTED_PROVISIONER = "kubernetes.io/no-provisioner"
LOCAL_PATH_DIR_ANNOTATION = "minikube-py.io/local-path-dir"
"""On a Node (minikube-py's own): the directory its agent keeps local-path volumes under."""

Obj = Mapping[str, Any]


def annotations_of(obj: Obj) -> Mapping[str, str]:
    found: Mapping[str, str] = (obj.get("metadata") or {}).get("annotations") or {}
    return found


def claim_class(claim: Obj) -> str:
    """The claim's class: the beta annotation wins, as upstream's ``GetPersistentVolumeClaimClass``."""
    if ANN_BETA_STORAGE_CLASS in annotations_of(claim):
        return annotations_of(claim)[ANN_BETA_STORAGE_CLASS]
    return str((claim.get("spec") or {}).get("storageClassName") or "")


def volume_class(volume: Obj) -> str:
    if ANN_BETA_STORAGE_CLASS in annotations_of(volume):
        return annotations_of(volume)[ANN_BETA_STORAGE_CLASS]
    return str((volume.get("spec") or {}).get("storageClassName") or "")


def requested_storage(claim: Obj) -> Quantity:
    requests = ((claim.get("spec") or {}).get("resources") or {}).get("requests") or {}
    return parse_quantity(str(requests.get("storage", "0")))


def volume_capacity(volume: Obj) -> Quantity:
    capacity = (volume.get("spec") or {}).get("capacity") or {}
    return parse_quantity(str(capacity.get("storage", "0")))


def volume_mode(obj: Obj) -> str:
    return str((obj.get("spec") or {}).get("volumeMode") or "Filesystem")


def is_delay_binding_mode(storage_class: Obj | None) -> bool:
    return (storage_class or {}).get("volumeBindingMode") == WAIT_FOR_FIRST_CONSUMER


def claim_ref_matches(volume: Obj, claim: Obj) -> bool:
    """The volume's ``claimRef`` names the claim (upstream's ``IsVolumeBoundToClaim``)."""
    ref = (volume.get("spec") or {}).get("claimRef") or {}
    meta = claim.get("metadata") or {}
    if ref.get("name") != meta.get("name") or ref.get("namespace") != meta.get("namespace"):
        return False
    return not ref.get("uid") or ref.get("uid") == meta.get("uid")


def volume_host_path(volume: Obj) -> str:
    """The directory of a hostPath or local volume; "" for other sources."""
    spec = volume.get("spec") or {}
    source = spec.get("hostPath") or spec.get("local") or {}
    return str(source.get("path") or "")
