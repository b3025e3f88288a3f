"""Which objects each node may read: the secrets, config maps, claims and service accounts
that the pods bound to it reference (upstream's node authorizer graph, rebuilt from the pod
watch cache when pods change instead of maintained edge by edge)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from apiserver.authz.policycache import CachedObjects


@dataclass
class NodeRefs:
    """(kind, namespace, name) of everything the pods of one node use, and those pods."""

    pods: set[tuple[str, str]] = field(default_factory=set)
    refs: set[tuple[str, str, str]] = field(default_factory=set)


def pod_references(pod: dict[str, Any]) -> Iterator[tuple[str, str]]:
    """(kind, name) of the secrets, configmaps, persistentvolumeclaims and serviceaccounts a
    pod uses (volumes, projected sources, env, envFrom, image pull secrets, its account)."""
    spec = pod.get("spec") or {}
    yield "serviceaccounts", spec.get("serviceAccountName") or "default"
    for secret in spec.get("imagePullSecrets") or []:
        yield "secrets", secret.get("name", "")
    for volume in spec.get("volumes") or []:
        yield from _volume_references(volume)
    containers = (spec.get(k) or [] for k in ("initContainers", "containers", "ephemeralContainers"))
    for container in (c for group in containers for c in group):
        yield from _env_references(container)


def _volume_references(volume: dict[str, Any]) -> Iterator[tuple[str, str]]:
    if "secret" in volume:
        yield "secrets", (volume["secret"] or {}).get("secretName", "")
    if "configMap" in volume:
        yield "configmaps", (volume["configMap"] or {}).get("name", "")
    if "persistentVolumeClaim" in volume:
        yield "persistentvolumeclaims", (volume["persistentVolumeClaim"] or {}).get("claimName", "")
    for source in (volume.get("projected") or {}).get("sources") or []:
        if "secret" in source:
            yield "secrets", (source["secret"] or {}).get("name", "")
        if "configMap" in source:
            yield "configmaps", (source["configMap"] or {}).get("name", "")


def _env_references(container: dict[str, Any]) -> Iterator[tuple[str, str]]:
    for env in container.get("env") or []:
        source = env.get("valueFrom") or {}
        if "secretKeyRef" in source:
            yield "secrets", (source["secretKeyRef"] or {}).get("name", "")
        if "configMapKeyRef" in source:
            yield "configmaps", (source["configMapKeyRef"] or {}).get("name", "")
    for env_from in container.get("envFrom") or []:
        if "secretRef" in env_from:
            yield "secrets", (env_from["secretRef"] or {}).get("name", "")
        if "configMapRef" in env_from:
            yield "configmaps", (env_from["configMapRef"] or {}).get("name", "")


def build_graph(
    pods: list[dict[str, Any]], claims: list[dict[str, Any]] | None = None
) -> dict[str, NodeRefs]:
    """``claims``: a claim a node's pod references lets the node read its bound volume too
    (upstream's pvc -> pv edge: the agent mounts the volume's directory)."""
    volume_of = {
        (c["metadata"].get("namespace", ""), c["metadata"].get("name", "")): (c.get("spec") or {}).get(
            "volumeName"
        )
        for c in claims or []
    }
    graph: dict[str, NodeRefs] = {}
    for pod in pods:
        node = (pod.get("spec") or {}).get("nodeName")
        if not node:
            continue
        meta = pod.get("metadata", {})
        namespace = meta.get("namespace", "")
        refs = graph.setdefault(node, NodeRefs())
        refs.pods.add((namespace, meta.get("name", "")))
        refs.refs.update((kind, namespace, name) for kind, name in pod_references(pod) if name)
        for kind, name in pod_references(pod):
            if kind == "persistentvolumeclaims" and (volume := volume_of.get((namespace, name))):
                refs.refs.add(("persistentvolumes", "", volume))
    return graph


class NodeGraph:
    """``build_graph`` of the pod cache, recomputed when the cache's resourceVersion moves."""

    def __init__(self, pods: CachedObjects, claims: CachedObjects | None = None) -> None:
        self.pods, self.claims = pods, claims
        self._version: tuple[int, int] = (-1, -1)
        self._graph: dict[str, NodeRefs] = {}

    def refs(self, node: str) -> NodeRefs:
        version = (self.pods.resource_version, self.claims.resource_version if self.claims else 0)
        if self._version != version:
            self._version = version
            claims = self.claims.objects() if self.claims is not None else None
            self._graph = build_graph(self.pods.objects(), claims)
        return self._graph.get(node) or NodeRefs()
