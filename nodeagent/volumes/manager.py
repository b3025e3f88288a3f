"""``VolumeManager``: prepares, refreshes and removes the volumes of the node's pods.

Each volume lives at ``<root>/pods/<uid>/volumes/<plugin>/<name>/`` (upstream's plugin
names); a hostPath volume is used in place. emptyDir is a plain directory (0777), also for
``medium: Memory`` (no tmpfs: its contents live on disk; ``sizeLimit`` is not enforced here).
configMap, secret, downwardAPI and projected volumes are written with the ``AtomicWriter``
and mounted read-only; ``refresh_pod_volumes`` rewrites them from the current objects (every
sync of a running pod calls it: the pod's metadata changed, a source changed, or the periodic
resync), renewing service account tokens when 80% of their lifetime has passed. With
``SourceWatches``, the ConfigMaps and Secrets are read from per-object watches (the pod's
sources are tracked from its first setup until its cleanup), otherwise with a GET each time.

A volume that cannot be set up raises ``VolumeSetupError``: upstream's kubelet then records a
``FailedMount`` event with that message and the pod stays in ``ContainerCreating`` (retried),
unlike ``CreateContainerConfigError`` for environment variables.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from minikube_py.api.errors import ApiError
from minikube_py.client.interfaces import Client
from minikube_py.clock import Clock, RealClock
from nodeagent.sources import SourceNotFoundError, get_config_map, get_secret
from nodeagent.volumes.atomicwriter import FileProjection, PayloadError, write_payload
from nodeagent.volumes.claims import ClaimNotReadyError, claim_volume_path
from nodeagent.volumes.hostpath import HostPathTypeError, check_host_path_type
from nodeagent.volumes.payloads import (
    DEFAULT_MODE,
    PayloadSourceError,
    aggregate_message,
    config_map_payload,
    downward_api_payload,
    secret_payload,
)
from nodeagent.volumes.sourcewatch import NotWatchedError, SourceWatches
from nodeagent.volumes.tokens import ServiceAccountTokens, TokenRequestError

PLUGINS = {
    "emptyDir": "kubernetes.io~empty-dir",
    "configMap": "kubernetes.io~configmap",
    "secret": "kubernetes.io~secret",
    "downwardAPI": "kubernetes.io~downward-api",
    "projected": "kubernetes.io~projected",
}
READ_ONLY_PLUGINS = frozenset({"configMap", "secret", "downwardAPI", "projected"})
_SOURCE_ERRORS = (SourceNotFoundError, ApiError, PayloadSourceError, PayloadError, TokenRequestError)


class VolumeSetupError(Exception):
    """A volume could not be set up. ``str()`` is upstream's FailedMount event message:
    ``MountVolume.SetUp failed for volume "x" : configmap "cfg" not found``."""

    reason = "FailedMount"

    def __init__(self, volume: str, cause: str) -> None:
        super().__init__(f'MountVolume.SetUp failed for volume "{volume}" : {cause}')
        self.volume, self.cause = volume, cause


def volume_plugin(volume: Mapping[str, Any]) -> str:
    """The volume's source kind (``emptyDir``, ``hostPath``...); "" for none we know."""
    return next((kind for kind in (*PLUGINS, "hostPath", "persistentVolumeClaim") if kind in volume), "")


class VolumeManager:
    """The volumes of the pods of one node agent rooted at ``root``."""

    def __init__(
        self,
        client: Client,
        root: str | os.PathLike[str],
        *,
        node_allocatable: Mapping[str, str] | None = None,
        clock: Clock | None = None,
        sources: SourceWatches | None = None,
    ) -> None:
        self._client = client
        self.sources = sources
        self.root = Path(root)
        self.node_allocatable = dict(node_allocatable or {})
        self.tokens = ServiceAccountTokens(client, clock or RealClock())
        # (pod uid, volume name) -> the host directory of a persistentVolumeClaim volume
        self.claim_paths: dict[tuple[str, str], Path] = {}

    def pod_volumes_dir(self, uid: str) -> Path:
        return self.root / "pods" / uid / "volumes"

    def volume_path(self, pod: Mapping[str, Any], volume: Mapping[str, Any]) -> Path:
        """Where the volume's contents are on this host (hostPath: the path itself)."""
        kind = volume_plugin(volume)
        if kind == "hostPath":
            return Path(volume["hostPath"]["path"])
        if kind == "persistentVolumeClaim":
            found = self.claim_paths.get((str(pod["metadata"]["uid"]), str(volume["name"])))
            if found is None:
                raise VolumeSetupError(volume["name"], "the claim's volume is not mounted yet")
            return found
        if not kind:
            raise VolumeSetupError(volume["name"], "volume type not supported by this node agent")
        return self.pod_volumes_dir(str(pod["metadata"]["uid"])) / PLUGINS[kind] / str(volume["name"])

    async def setup_pod_volumes(self, pod: Mapping[str, Any]) -> None:
        """Set up every volume of ``pod`` (idempotent). All are tried; the first failure is
        raised as ``VolumeSetupError`` once the others are done."""
        await self._sync_volumes(pod, refresh=False)

    async def refresh_pod_volumes(self, pod: Mapping[str, Any]) -> None:
        """Rewrite the configMap, secret, downwardAPI and projected volumes of ``pod`` from the
        current objects (files change only when their contents do; a failing volume keeps its
        old files and raises ``VolumeSetupError`` after the others are refreshed)."""
        await self._sync_volumes(pod, refresh=True)

    def cleanup_pod_volumes(self, uid: str) -> None:
        """Remove the pod's volume directories (never hostPath contents) and its tokens."""
        shutil.rmtree(self.root / "pods" / uid / "volumes", ignore_errors=True)
        for key in [key for key in self.claim_paths if key[0] == uid]:
            del self.claim_paths[key]  # the claim's data stays: it outlives the pod
        self.tokens.forget_pod(uid)
        if self.sources is not None:
            self.sources.forget(uid)

    async def _sync_volumes(self, pod: Mapping[str, Any], refresh: bool) -> None:
        if self.sources is not None:
            self.sources.track(pod)
        failures: list[VolumeSetupError] = []
        for volume in (pod.get("spec") or {}).get("volumes") or []:
            kind = volume_plugin(volume)
            if refresh and kind not in READ_ONLY_PLUGINS:
                continue
            try:
                await self._setup_volume(pod, volume, kind)
            except VolumeSetupError as err:
                failures.append(err)
        if failures:
            raise failures[0]

    async def _setup_volume(self, pod: Mapping[str, Any], volume: Mapping[str, Any], kind: str) -> None:
        if kind == "persistentVolumeClaim":
            await self._setup_claim(pod, volume)
            return
        path = self.volume_path(pod, volume)
        try:
            if kind == "hostPath":
                check_host_path_type(str(path), volume["hostPath"].get("type"))
            elif kind == "emptyDir":
                path.mkdir(parents=True, exist_ok=True)
                os.chmod(path, 0o777)
            else:
                write_payload(path, await self._payload(pod, volume, kind))
        except (HostPathTypeError, *_SOURCE_ERRORS) as err:
            raise VolumeSetupError(volume["name"], str(err)) from err

    async def _setup_claim(self, pod: Mapping[str, Any], volume: Mapping[str, Any]) -> None:
        namespace = str(pod["metadata"].get("namespace", "default"))
        claim = str((volume["persistentVolumeClaim"] or {}).get("claimName", ""))
        try:
            path = await claim_volume_path(self._client, namespace, claim)
        except (ClaimNotReadyError, HostPathTypeError) as err:
            raise VolumeSetupError(volume["name"], str(err)) from err
        self.claim_paths[(str(pod["metadata"]["uid"]), str(volume["name"]))] = Path(path)

    async def _payload(
        self, pod: Mapping[str, Any], volume: Mapping[str, Any], kind: str
    ) -> dict[str, FileProjection]:
        source = volume[kind]
        mode = int(source.get("defaultMode") or DEFAULT_MODE)
        if kind == "downwardAPI":
            return downward_api_payload(pod, source.get("items") or [], mode, self.node_allocatable)
        if kind == "projected":
            return await self._projected_payload(pod, source.get("sources") or [], mode)
        return await self._object_payload(pod, kind, source, mode)

    async def _object_payload(
        self, pod: Mapping[str, Any], kind: str, source: Mapping[str, Any], mode: int
    ) -> dict[str, FileProjection]:
        """A configMap or secret source; a missing optional object gives no files."""
        namespace, optional = pod["metadata"].get("namespace", "default"), bool(source.get("optional"))
        name = source.get("name") if kind == "configMap" else source.get("secretName", source.get("name"))
        make = config_map_payload if kind == "configMap" else secret_payload
        try:
            found = await self._source(kind, namespace, str(name or ""))
        except SourceNotFoundError:
            if not optional:
                raise
            return {}
        return make(found, source.get("items") or [], mode, optional)

    async def _source(self, kind: str, namespace: str, name: str) -> Mapping[str, Any]:
        """The ConfigMap or Secret: the watched copy, or (not watched, or its watch not
        listed yet) a GET; ``SourceNotFoundError`` with the kubelet's message when missing."""
        resource, what = ("configmaps", "configmap") if kind == "configMap" else ("secrets", "secret")
        if self.sources is not None:
            try:
                found = await self.sources.get(resource, namespace, name)
            except (NotWatchedError, TimeoutError):
                pass
            else:
                if found is None:
                    raise SourceNotFoundError(f'{what} "{name}" not found')
                return found
        get = get_config_map if kind == "configMap" else get_secret
        return await get(self._client, namespace, name)

    async def _projected_payload(
        self, pod: Mapping[str, Any], sources: list[Mapping[str, Any]], mode: int
    ) -> dict[str, FileProjection]:
        payload: dict[str, FileProjection] = {}
        errors: list[str] = []
        for source in sources:
            try:
                if token_source := source.get("serviceAccountToken"):
                    token = await self.tokens.get_service_account_token(pod, token_source)
                    payload[token_source["path"]] = FileProjection(token.encode(), mode)
                elif "downwardAPI" in source:
                    items = source["downwardAPI"].get("items") or []
                    payload.update(downward_api_payload(pod, items, mode, self.node_allocatable))
                elif kind := next((k for k in ("configMap", "secret") if k in source), ""):
                    payload.update(await self._object_payload(pod, kind, source[kind], mode))
            except _SOURCE_ERRORS as err:
                errors.append(str(err))
        if errors:
            raise PayloadSourceError(aggregate_message(errors))
        return payload
