"""A container's runtime configuration from its pod (upstream ``generateContainerConfig``).

``ContainerEnvironment`` is the agent's ``PodEnvironment``: it sets up a pod's volumes
(``VolumeManager``) and turns each container into a ``ContainerConfig``:

- **command**: Kubernetes' rule on the image's config (``nodeagent.images.catalog``: ``command``
  overrides the ENTRYPOINT, ``args`` the CMD) for the images the runtime knows (busybox,
  alpine, python, curlimages/curl, nginx); any other image is taken to have no ENTRYPOINT or
  CMD (its files are not there), so its ``args`` alone are the argv, and with neither it cannot
  be created (``CreateContainerError``, saying so). The image's ENV and files are the runtime's
  to apply (``nodeagent/runtime/imagelayer.py``);
- **env**: ``make_environment_variables`` (configMap/secret/field/resource refs, service
  variables from the services informer), with ``POD_IP`` added when the pod does not set it
  (the built-in images bind to it) and ``NGINX_PORT`` for a built-in nginx with a
  ``containerPort``;
- **mounts**: the container's ``volumeMounts`` on the prepared volumes, and the pod's
  kubelet-managed ``/etc/hosts`` (``etchosts``) unless a volume is mounted there;
- **log path**: ``<root>/logs/<namespace>_<name>_<uid>/<container>/<restart count>.log``;
- **resources**: the limits the runtime enforces; labels naming the pod and the spec's hash.
- **stdin**, **stdinOnce**, **tty**: the container's streams, for ``kubectl attach``.
- **user** (``run_as_user``): the effective ``securityContext`` (the container's fields over the
  pod's, upstream ``DetermineEffectiveSecurityContext``): ``runAsUser``, ``runAsGroup``, the
  pod's ``supplementalGroups`` and ``fsGroup`` as supplementary groups. Without ``runAsUser``,
  ``runAsNonRoot: false`` asks for root (there are no images whose user could be root, and the
  runtime's own default is a non-root user); ``runAsNonRoot: true`` with ``runAsUser: 0`` is
  upstream's ``CreateContainerConfigError`` "container's runAsUser breaks non-root policy".

Configuration errors are ``ConfigError`` with the waiting reason (CreateContainerConfigError
for a missing configMap or secret, CreateContainerError for a missing command).
"""

from __future__ import annotations

import shutil
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

from minikube_py.api.quantity import Quantity
from minikube_py.api.unstructured import Object
from minikube_py.client.interfaces import Client
from nodeagent.envvars import make_environment_variables
from nodeagent.images import catalog
from nodeagent.pod.actions import container_hash
from nodeagent.pod.etchosts import ensure_hosts_file, mounts_hosts
from nodeagent.pod.runtimestatus import (
    LABEL_CONTAINER_HASH,
    LABEL_CONTAINER_NAME,
    LABEL_POD_NAME,
    LABEL_POD_NAMESPACE,
    LABEL_POD_UID,
)
from nodeagent.pod.sync import ConfigError, VolumeError, pod_hostname
from nodeagent.runtime.interface import ContainerConfig, Mount, Resources, RuntimeError_
from nodeagent.volumes import VolumeManager, VolumeSetupError, make_mounts

ServiceLister = Callable[[], Iterable[Mapping[str, Any]]]


class ContainerEnvironment:
    def __init__(
        self,
        client: Client,
        root: Path,
        volumes: VolumeManager,
        *,
        host_ip: str,
        node_allocatable: Mapping[str, str],
        services: ServiceLister | None = None,
        simulated: bool = False,
        cluster_domain: str = "cluster.local",
    ) -> None:
        """``services`` lists the cluster's Services (an informer's cache); None asks the
        apiserver for each container. ``simulated`` (the fake runtime runs nothing): any image
        will do, a container without command gets the image name as its argv, and volumes
        are neither written nor mounted (env is still resolved, so a missing configMap key is
        still a CreateContainerConfigError)."""
        self.client = client
        self.root = root
        self.volumes = volumes
        self.host_ip = host_ip
        self.node_allocatable = dict(node_allocatable)
        self.services = services
        self.simulated = simulated
        self.cluster_domain = cluster_domain  # the FQDN of a pod with a subdomain in /etc/hosts

    async def prepare_pod(self, pod: Object) -> None:
        if self.simulated:
            return  # nothing runs, so nothing reads volumes: simulated nodes do not write them
        try:
            await self.volumes.setup_pod_volumes(pod)
        except VolumeSetupError as err:
            raise VolumeError(str(err)) from err

    async def refresh_pod(self, pod: Object) -> None:
        if self.simulated:
            return
        try:
            await self.volumes.refresh_pod_volumes(pod)
        except VolumeSetupError as err:
            raise VolumeError(str(err)) from err

    def log_directory(self, pod: Object) -> str:
        meta = pod["metadata"]
        return str(self.root / "logs" / f"{meta['namespace']}_{meta['name']}_{meta['uid']}")

    async def container_config(
        self, pod: Object, container: Object, *, pod_ip: str, attempt: int, log_directory: str
    ) -> ContainerConfig:
        if self.simulated:
            command = resolve_command(container, fallback=[container.get("image", "")])
        else:
            command = resolve_command(container)
        try:
            env = await make_environment_variables(
                self.client,
                pod,
                container,
                pod_ip=pod_ip,
                host_ip=self.host_ip,
                node_allocatable=self.node_allocatable,
                services=list(self.services()) if self.services is not None else None,
            )
            mounts = [] if self.simulated else make_mounts(self.volumes, pod, container, env)
        except RuntimeError_ as err:
            raise ConfigError(err.reason, str(err)) from err
        if not self.simulated and pod_ip and not mounts_hosts(container):
            mounts.append(self._hosts_mount(pod, pod_ip))
        names = {name for name, _ in env}
        if "POD_IP" not in names:
            env.append(("POD_IP", pod_ip))
        port = _first_container_port(container)
        image = catalog.lookup(container.get("image", ""))
        if image is not None and image.name == "nginx" and port and "NGINX_PORT" not in names:
            env.append(("NGINX_PORT", str(port)))
        meta = pod["metadata"]
        run_as_user, run_as_group, groups = container_user(pod, container)
        return ContainerConfig(
            name=container["name"],
            image=container.get("image", ""),
            command=command,
            env=env,
            working_dir=container.get("workingDir") or "",
            mounts=mounts,
            log_path=str(Path(log_directory) / container["name"] / f"{attempt}.log"),
            attempt=attempt,
            resources=_limits(container),
            stdin=bool(container.get("stdin")),
            stdin_once=bool(container.get("stdinOnce")),
            tty=bool(container.get("tty")),
            run_as_user=run_as_user,
            run_as_group=run_as_group,
            supplemental_groups=groups,
            labels={
                LABEL_POD_UID: meta["uid"],
                LABEL_POD_NAME: meta["name"],
                LABEL_POD_NAMESPACE: meta["namespace"],
                LABEL_CONTAINER_NAME: container["name"],
                LABEL_CONTAINER_HASH: container_hash(container),
            },
        )

    def _hosts_mount(self, pod: Object, pod_ip: str) -> Mount:
        pod_dir = self.root / "pods" / pod["metadata"]["uid"]
        try:
            return ensure_hosts_file(pod_dir, pod, [pod_ip], pod_hostname(pod), self.cluster_domain)
        except OSError as err:
            raise ConfigError(
                "CreateContainerConfigError", f"cannot write the pod's /etc/hosts: {err}"
            ) from err

    async def cleanup_pod(self, pod: Object) -> None:
        self.volumes.cleanup_pod_volumes(pod["metadata"]["uid"])
        (self.root / "pods" / pod["metadata"]["uid"] / "etc-hosts").unlink(missing_ok=True)
        shutil.rmtree(self.log_directory(pod), ignore_errors=True)


def resolve_command(container: Object, fallback: list[str] | None = None) -> list[str]:
    """The container's argv: ``command`` and ``args`` on its image's ENTRYPOINT and CMD
    (``catalog.container_argv``). An unknown image has neither (``fallback``, a simulated node's,
    is its ENTRYPOINT), so its ``args`` alone are the argv."""
    command, args = list(container.get("command") or []), list(container.get("args") or [])
    image = container.get("image", "")
    known = catalog.lookup(image)
    if known is not None:
        argv = catalog.container_argv(known.entrypoint, known.cmd, command, args)
    else:
        argv = catalog.container_argv(fallback or [], [], command, args)
    if not argv:
        names = ", ".join(sorted(catalog.IMAGES))
        raise ConfigError(
            "CreateContainerError",
            f'container "{container["name"]}" has no command and image "{image}" has no entrypoint known '
            f"to minikube-py (images run without their files): set command (known images: {names})",
        )
    return argv


def container_user(pod: Object, container: Object) -> tuple[int | None, int | None, tuple[int, ...]]:
    """(runAsUser, runAsGroup, supplementary groups) of the container; ``ConfigError`` when
    ``runAsNonRoot`` forbids the user asked for. None: the runtime's non-root default."""
    pod_sc = pod["spec"].get("securityContext") or {}
    sc = {**pod_sc, **{k: v for k, v in (container.get("securityContext") or {}).items() if v is not None}}
    uid, gid, non_root = sc.get("runAsUser"), sc.get("runAsGroup"), sc.get("runAsNonRoot")
    if non_root is True and uid is not None and int(uid) == 0:
        meta = pod["metadata"]
        raise ConfigError(
            "CreateContainerConfigError",
            f"container's runAsUser breaks non-root policy (pod: \"{meta['name']}_{meta['namespace']}"
            f'({meta["uid"]})", container: {container["name"]})',
        )
    if uid is None and non_root is False:
        uid = 0  # runAsNonRoot: false asks for the image's user, which is root here
    groups = [int(g) for g in pod_sc.get("supplementalGroups") or []]
    if pod_sc.get("fsGroup") is not None:
        groups.append(int(pod_sc["fsGroup"]))
    return (
        None if uid is None else int(uid),
        None if gid is None else int(gid),
        tuple(dict.fromkeys(groups)),
    )


def _first_container_port(container: Object) -> int | None:
    ports = container.get("ports") or []
    return int(ports[0]["containerPort"]) if ports and ports[0].get("containerPort") else None


def _limits(container: Object) -> Resources:
    limits = (container.get("resources") or {}).get("limits") or {}
    cpu = Quantity.parse(str(limits["cpu"])).milli_value() if "cpu" in limits else 0
    memory = Quantity.parse(str(limits["memory"])).value() if "memory" in limits else 0
    return Resources(cpu_millis=cpu, memory_bytes=memory)
