"""A container's ``volumeMounts`` as runtime ``Mount``s (upstream's kubelet ``makeMounts``).

``subPath`` (or ``subPathExpr``, expanded with the container's environment) selects a path
inside the volume; a missing one is created as a directory (with the volume's mode, as
upstream), and its resolved path must stay inside the volume. configMap, secret, downwardAPI
and projected volumes are always read-only. Errors are ``CreateContainerConfigError`` with
upstream's message.
"""

from __future__ import annotations

import os
import posixpath
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from nodeagent.envvars import CreateContainerConfigError, expand
from nodeagent.runtime.interface import Mount
from nodeagent.volumes.manager import READ_ONLY_PLUGINS, VolumeManager, VolumeSetupError, volume_plugin


def expand_sub_path_expr(expr: str, env: Sequence[tuple[str, str]]) -> str:
    """Upstream's ``ExpandContainerVolumeMounts``: every ``$(VAR)`` must have a non-empty value."""
    values = dict(env)
    missing: set[str] = set()

    def mapping(name: str) -> str:
        if not values.get(name):
            missing.add(name)
        return values.get(name, "")

    expanded = expand(expr, mapping)
    if missing:
        raise CreateContainerConfigError(f"missing value for {', '.join(sorted(missing))}")
    return expanded


def _sub_path_mount(volume_path: Path, sub_path: str, mount: Mapping[str, Any], container: str) -> str:
    if posixpath.isabs(sub_path):
        raise CreateContainerConfigError(f"error SubPath `{sub_path}` must not be an absolute path")
    if ".." in sub_path.split("/"):
        raise CreateContainerConfigError(f"unable to provision SubPath `{sub_path}`: must not contain '..'")
    host_path = volume_path / sub_path
    if not os.path.lexists(host_path):
        mode = volume_path.stat().st_mode & 0o7777
        parts = Path(sub_path).parts
        steps = [volume_path.joinpath(*parts[:depth]) for depth in range(1, len(parts) + 1)]
        missing = [step for step in steps if not os.path.lexists(step)]
        try:
            host_path.mkdir(mode=mode, parents=True)
            # exactly the volume's mode, as upstream (mkdir applies the umask): a container
            # that is not root may then write a subPath of an emptyDir
            for created in missing:
                os.chmod(created, mode)
        except OSError as err:
            message = f'for volumeMount "{mount["name"]}" of container "{container}"'
            raise CreateContainerConfigError(f"failed to create subPath directory {message}") from err
    resolved, base = os.path.realpath(host_path), os.path.realpath(volume_path)
    if resolved != base and not resolved.startswith(base + os.sep):
        raise CreateContainerConfigError(f'subpath "{resolved}" not within volume path "{base}"')
    return resolved


def make_mounts(
    volumes: VolumeManager,
    pod: Mapping[str, Any],
    container: Mapping[str, Any],
    env: Sequence[tuple[str, str]] = (),
) -> list[Mount]:
    """The runtime mounts of ``container``'s ``volumeMounts``, in order (volumes set up first
    with ``VolumeManager.setup_pod_volumes``); ``env`` expands ``subPathExpr``."""
    by_name = {v["name"]: v for v in (pod.get("spec") or {}).get("volumes") or []}
    mounts: list[Mount] = []
    for mount in container.get("volumeMounts") or []:
        volume = by_name.get(mount["name"])
        if volume is None:
            raise CreateContainerConfigError(
                f'cannot find volume "{mount["name"]}" to mount into container "{container["name"]}"'
            )
        try:
            volume_path = volumes.volume_path(pod, volume)
        except VolumeSetupError as err:
            raise CreateContainerConfigError(str(err)) from err
        host_path = str(volume_path)
        sub_path = str(mount.get("subPath") or "")
        if mount.get("subPathExpr"):
            sub_path = expand_sub_path_expr(str(mount["subPathExpr"]), env)
        if sub_path:
            host_path = _sub_path_mount(volume_path, sub_path, mount, str(container["name"]))
        read_only = bool(mount.get("readOnly")) or volume_plugin(volume) in READ_ONLY_PLUGINS
        read_only = read_only or bool((volume.get("persistentVolumeClaim") or {}).get("readOnly"))
        mounts.append(Mount(host_path, str(mount["mountPath"]), read_only))
    return mounts
