"""Static pods: pods a node runs from manifest files (upstream ``config/file.go`` and
``config/common.go``), mirrored into the API (``mirror.MirrorPods``).

``StaticPodSource`` watches ``<node root>/manifests/``: every ``*.yaml``, ``*.yml`` and ``*.json``
file (hidden files excepted) holds one Pod. The folder is read again every
``FILE_CHECK_FREQUENCY`` seconds (upstream's ``fileCheckFrequency``) and as soon as a file's
mtime or size, or the list of files, changes (polled every ``POLL`` seconds). Each pod is:

- named ``<name>-<node>``, in namespace ``default`` unless it names one, bound to the node;
- given a uid that hashes its manifest, the node and the file path (unless it sets one), so an
  unchanged manifest keeps its uid across agent restarts and a changed one is a new pod;
- annotated ``kubernetes.io/config.source: file``, ``config.hash: <uid>`` and
  ``config.seen`` (when this uid was first seen), and tolerates every NoExecute taint.

A manifest that does not parse or is not a valid pod is logged and skipped; the others run.
A pod whose file went away, became invalid or changed is removed (``on_remove``) before its
successor is added (``on_add``). ``StaticPods`` joins the source to the pod manager (which
runs the pods like any other) and to the mirror pods.
"""

from __future__ import annotations

import asyncio
import copy
import hashlib
import json
import logging
from collections.abc import Callable
from pathlib import Path

import yaml
from pydantic import ValidationError

from minikube_py.api.models.core_pod import Pod
from minikube_py.api.timestamps import format_rfc3339
from minikube_py.api.unstructured import Object
from minikube_py.api.validation import is_dns1123_label, is_dns1123_subdomain
from minikube_py.cache.informer import EventHandlerFuncs
from minikube_py.client.interfaces import Client
from minikube_py.clock import Clock
from nodeagent.pod.mirror import (
    CONFIG_HASH,
    CONFIG_SEEN,
    CONFIG_SOURCE,
    FILE_SOURCE,
    MirrorPods,
    full_name,
)
from nodeagent.pod.podmanager import PodManager

log = logging.getLogger("nodeagent.staticpods")
FILE_CHECK_FREQUENCY = 20.0
POLL = 1.0
SUFFIXES = (".yaml", ".yml", ".json")
Signature = tuple[tuple[str, int, int], ...]


class ManifestError(ValueError):
    """A manifest that is not one valid Pod; ``str()`` says why."""


def load_manifest(path: Path) -> Object:
    """The object in ``path`` (JSON, or YAML: a JSON document is YAML too)."""
    try:
        text = path.read_text()
        obj = json.loads(text) if path.suffix == ".json" else yaml.safe_load(text)
    except (OSError, ValueError, yaml.YAMLError) as err:
        raise ManifestError(f"cannot read {path}: {err}") from err
    if not isinstance(obj, dict):
        raise ManifestError(f"{path} does not hold an object")
    return obj


def validate_manifest(obj: Object) -> None:
    """Raise ``ManifestError`` unless ``obj`` looks like a Pod the agent can run."""
    if obj.get("kind", "Pod") != "Pod" or obj.get("apiVersion", "v1") != "v1":
        raise ManifestError(f"want a v1 Pod, got {obj.get('apiVersion')}/{obj.get('kind')}")
    try:
        Pod.model_validate(obj)
    except ValidationError as err:
        raise ManifestError(f"not a valid pod: {err}") from err
    meta = obj.get("metadata") or {}
    name, namespace = str(meta.get("name") or ""), str(meta.get("namespace") or "default")
    if not name:
        raise ManifestError("metadata.name: Required value")
    for field, errors in (
        ("metadata.name", is_dns1123_subdomain(name)),
        ("metadata.namespace", is_dns1123_label(namespace)),
    ):
        if errors:
            raise ManifestError(f"{field}: {'; '.join(errors)}")
    containers = (obj.get("spec") or {}).get("containers") or []
    if not containers:
        raise ManifestError("spec.containers: Required value")
    names = [str(c.get("name") or "") for c in containers]
    if not all(names) or len(set(names)) != len(names) or any(is_dns1123_label(n) for n in names):
        raise ManifestError(f"spec.containers: names must be unique DNS labels: {names}")
    if not all(c.get("image") for c in containers):
        raise ManifestError("spec.containers[*].image: Required value")


def static_pod(obj: Object, node_name: str, source: str, seen: float) -> Object:
    """The pod the manifest ``obj`` (read from ``source``) describes on ``node_name``."""
    validate_manifest(obj)
    pod = copy.deepcopy(obj)
    pod.update(apiVersion="v1", kind="Pod")
    meta, spec = pod.setdefault("metadata", {}), pod.setdefault("spec", {})
    uid = str(meta.get("uid") or "") or pod_uid(obj, node_name, source)
    meta.update(uid=uid, name=f"{meta['name']}-{node_name}", namespace=meta.get("namespace") or "default")
    meta["annotations"] = {
        **(meta.get("annotations") or {}),
        CONFIG_SOURCE: FILE_SOURCE,
        CONFIG_HASH: uid,
        CONFIG_SEEN: format_rfc3339(seen),
    }
    spec["nodeName"] = node_name
    tolerations = spec.setdefault("tolerations", [])
    if {"operator": "Exists", "effect": "NoExecute"} not in tolerations:
        tolerations.append({"operator": "Exists", "effect": "NoExecute"})
    pod.pop("status", None)
    return pod


def pod_uid(obj: Object, node_name: str, source: str) -> str:
    """The hash of a manifest, its node and its file (upstream: md5 of the pod, host, file)."""
    hasher = hashlib.md5(usedforsecurity=False)
    hasher.update(json.dumps(obj, sort_keys=True, default=str).encode())
    hasher.update(f"host:{node_name}file:{source}".encode())
    return hasher.hexdigest()


class StaticPodSource:
    def __init__(
        self,
        directory: Path,
        node_name: str,
        clock: Clock,
        on_add: Callable[[Object], None],
        on_remove: Callable[[Object], None],
    ) -> None:
        self.directory, self.node_name, self.clock = directory, node_name, clock
        self.on_add, self.on_remove = on_add, on_remove
        self.pods: dict[str, Object] = {}  # file -> its pod
        self._signature: Signature | None = None
        self._read_at = float("-inf")

    async def run(self) -> None:
        """Check the folder every ``POLL`` seconds until cancelled."""
        while True:
            try:
                self.check()
            except Exception:
                log.exception("reading the static pods in %s failed", self.directory)
            await self.clock.sleep(POLL)

    def check(self) -> bool:
        """Read the folder if it changed or is due; True when it was read."""
        signature = self._stat()
        if signature == self._signature and self.clock.monotonic() - self._read_at < FILE_CHECK_FREQUENCY:
            return False
        self._signature, self._read_at = signature, self.clock.monotonic()
        self._apply({path: self._read(Path(path)) for path, _, _ in signature})
        return True

    def _stat(self) -> Signature:
        found = []
        for path in sorted(self.directory.glob("*")) if self.directory.is_dir() else []:
            if path.suffix in SUFFIXES and not path.name.startswith(".") and path.is_file():
                stat = path.stat()
                found.append((str(path), stat.st_mtime_ns, stat.st_size))
        return tuple(found)

    def _read(self, path: Path) -> Object | None:
        old = self.pods.get(str(path))
        try:
            obj = load_manifest(path)
            seen = self.clock.now()
            pod = static_pod(obj, self.node_name, str(path), seen)
        except ManifestError as err:
            log.error("skipping the static pod manifest %s: %s", path, err)
            return None
        if old is not None and old["metadata"]["uid"] == pod["metadata"]["uid"]:
            return old  # unchanged: first seen earlier
        return pod

    def _apply(self, read: dict[str, Object | None]) -> None:
        names: dict[str, str] = {}
        wanted: dict[str, Object] = {}
        for path, pod in read.items():
            if pod is None:
                continue
            name = f"{pod['metadata']['namespace']}/{pod['metadata']['name']}"
            if name in names:
                log.error("skipping the static pod manifest %s: %s comes from %s", path, name, names[name])
                continue
            names[name], wanted[path] = path, pod
        for path, pod in list(self.pods.items()):
            if (wanted.get(path) or {}).get("metadata", {}).get("uid") != pod["metadata"]["uid"]:
                del self.pods[path]
                self.on_remove(pod)
        for path, pod in wanted.items():
            if path not in self.pods:
                self.pods[path] = pod
                self.on_add(pod)


class StaticPods:
    """A node's static pods: manifests -> the pod manager's workers, and their mirror pods."""

    def __init__(self, client: Client, node_name: str, root: Path, pods: PodManager, clock: Clock) -> None:
        self.pods = pods
        self.mirrors = MirrorPods(client, node_name, clock, on_mirror=pods.workers.wake)
        self.source = StaticPodSource(root / "manifests", node_name, clock, self._add, self._remove)
        pods.status_manager.use_mirror_pods(self.mirrors.mirror_of)

    def handlers(self) -> EventHandlerFuncs:
        """For the node's pod informer: its mirror pods."""
        return self.mirrors.handlers()

    async def run(self) -> None:
        async with asyncio.TaskGroup() as tasks:
            tasks.create_task(self.source.run())
            tasks.create_task(self.mirrors.run())

    def _add(self, pod: Object) -> None:
        log.info("static pod %s added (uid %s)", full_name(pod), pod["metadata"]["uid"])
        self.mirrors.set_static_pod(pod)
        self.pods.update_static_pod(pod)

    def _remove(self, pod: Object) -> None:
        log.info("static pod %s removed (uid %s)", full_name(pod), pod["metadata"]["uid"])
        self.mirrors.remove_static_pod(pod)
        self.pods.remove_static_pod(pod)
