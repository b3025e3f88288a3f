"""persistentVolumeClaim volumes: claim -> its bound PersistentVolume -> the volume's
``hostPath`` or ``local`` directory on this host, mounted in place (upstream's kubelet
resolves the same chain in its volume manager's desired-state populator, then mounts the
volume's plugin). A claim that is missing, being deleted or not bound yet keeps the pod
waiting (``ContainerCreating``, a ``FailedMount`` event saying why, retried), as the kubelet
does; a volume of another kind cannot be mounted by this agent."""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from minikube_py.api.errors import ApiError
from minikube_py.client.interfaces import Client
from minikube_py.client.resourcetypes import PERSISTENTVOLUMECLAIMS, PERSISTENTVOLUMES
from nodeagent.volumes.hostpath import check_host_path_type


class ClaimNotReadyError(Exception):
    """Why a claim's volume cannot be mounted yet (the FailedMount cause)."""


async def claim_volume_path(client: Client, namespace: str, claim_name: str) -> str:
    """The host directory of the claim's volume, created when its ``hostPath`` type says
    so (``DirectoryOrCreate``: a local-path volume's first mount); ``ClaimNotReadyError``."""
    where = f"{namespace}/{claim_name}"
    try:
        claim = await client.resource(PERSISTENTVOLUMECLAIMS, namespace).get(claim_name)
    except ApiError as err:
        raise ClaimNotReadyError(
            f"error processing PVC {where}: failed to fetch PVC from API server: {err}"
        ) from err
    if (claim.get("metadata") or {}).get("deletionTimestamp"):
        raise ClaimNotReadyError(f"can't start pod because PVC {where} is being deleted")
    volume_name = (claim.get("spec") or {}).get("volumeName") or ""
    if not volume_name or (claim.get("status") or {}).get("phase") != "Bound":
        raise ClaimNotReadyError(f"error processing PVC {where}: PVC is not bound")
    try:
        volume = await client.resource(PERSISTENTVOLUMES).get(volume_name)
    except ApiError as err:
        raise ClaimNotReadyError(
            f"error processing PVC {where}: failed to fetch PV {volume_name}: {err}"
        ) from err
    return volume_source_path(volume, where)


def volume_source_path(volume: Mapping[str, Any], where: str) -> str:
    spec = volume.get("spec") or {}
    if spec.get("hostPath"):
        path = str(spec["hostPath"].get("path") or "")
        if spec["hostPath"].get("type") == "DirectoryOrCreate" and not os.path.lexists(path):
            # as rancher's local-path helper (mkdir -m 0777): any container user may write
            os.makedirs(path, exist_ok=True)
            os.chmod(path, 0o777)
        check_host_path_type(path, spec["hostPath"].get("type"))
        return path
    if spec.get("local"):
        path = str(spec["local"].get("path") or "")
        check_host_path_type(path, "Directory")
        return path
    name = (volume.get("metadata") or {}).get("name", "")
    raise ClaimNotReadyError(
        f"error processing PVC {where}: volume {name} has no source this node agent can mount"
    )
