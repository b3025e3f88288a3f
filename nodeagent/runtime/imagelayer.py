"""A container's image, as the process runtime applies it (what containerd does with an
image's config and layers): ``with_image`` merges the image's ENV under the container's (the
container's own variables win; an unknown image gets containerd's default ``PATH``), sets the
image's WORKDIR when the container sets none, and adds the host programs standing in for the
image's files (``nodeagent.images.toolbox``) as read-only binds before the container's own
mounts (a volume mounted at the same path covers them).

Without a mount namespace nothing can be bound: the toolbox's directory is put first in
``PATH`` instead, an argv naming a bound file (``/entrypoint.sh``) runs the host's copy, and the
image's WORKDIR is not used (it would have to be created on the node).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from nodeagent.images import catalog, toolbox
from nodeagent.runtime.interface import ContainerConfig, CreateContainerError, Mount


def with_image(config: ContainerConfig, root: str, can_mount: bool) -> tuple[ContainerConfig, str]:
    """``config`` with its image applied, and a warning for the node's log ("" if none);
    ``CreateContainerError`` when the node lacks what the image needs."""
    image = catalog.lookup(config.image)
    if image is None:
        return replace(config, env=merge_env((("PATH", catalog.DEFAULT_PATH),), config.env)), ""
    host = toolbox.host_image(image, root)
    if host.missing:
        raise CreateContainerError(host.missing)
    env, mounts, command = host.env, list(config.mounts), list(config.command)
    if can_mount:
        mounts = [Mount(source, target, read_only=True) for source, target in host.binds] + mounts
    elif host.bin_dir:
        env = tuple((k, f"{host.bin_dir}:{v}" if k == "PATH" else v) for k, v in env)
        command[:1] = [next((s for s, t in host.binds if t == command[0]), command[0])] if command else []
    return replace(
        config,
        command=command,
        env=merge_env(env, config.env),
        mounts=mounts,
        # without a mount namespace an image's WORKDIR would have to be made on the node: not
        working_dir=config.working_dir or (host.working_dir if can_mount else ""),
    ), host.warning


def merge_env(image_env: Sequence[tuple[str, str]], env: Sequence[tuple[str, str]]) -> list[tuple[str, str]]:
    """The image's variables, each replaced in place by the container's of the same name, then
    the container's others in their order (containerd's rule)."""
    own = list(env)
    values = dict(own)  # the last of a name wins
    merged = [(name, values.get(name, value)) for name, value in image_env]
    seen = {name for name, _ in image_env}
    return merged + [(name, value) for name, value in own if name not in seen]
