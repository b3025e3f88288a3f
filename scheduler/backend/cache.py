"""The scheduler cache (upstream ``backend/cache/cache.go``): nodes and the pods placed on
them, including pods the scheduler *assumed* onto a node before the binding is confirmed.

Pod lifecycle, keyed ``namespace/name``::

    assume_pod --> finish_binding --(ttl passes)--> expired (removed)
        |               |
        |               +--(add_pod: the informer saw it bound)--> added
        +--(forget_pod: binding failed)--> removed

An assumed pod counts on its node at once, so the next cycle does not pick the same room.
Until ``finish_binding`` it never expires; after it, ``add_pod`` must confirm it within
``ttl`` seconds (``run`` checks every second). A pod may arrive for a node the cache does not
know yet, and a removed node stays (without its Node object) until its pods are gone; neither
shows in snapshots.

Every change stamps the node with a new generation and moves it to the end of ``_changed``;
``update_snapshot`` walks that order backwards and stops at the snapshot's generation, so it
costs O(changed nodes). Informer-driven calls tolerate repeats and unknown pods (logged);
``assume_pod`` of a pod already in the cache raises ``ValueError``.
"""

from __future__ import annotations

import logging
from collections import OrderedDict
from dataclasses import dataclass

from minikube_py.api.unstructured import Object
from minikube_py.clock import Clock
from scheduler.backend.snapshot import Snapshot
from scheduler.framework.types import NodeInfo, PodInfo, pod_key

__all__ = ["Cache", "Snapshot"]

log = logging.getLogger("scheduler.cache")

CLEANUP_PERIOD = 1.0


@dataclass
class _PodState:
    pod: Object
    deadline: float | None = None  # when an assumed pod expires (set by finish_binding)
    binding_finished: bool = False


def _node_name(obj: Object) -> str:
    return str((obj.get("spec") or {}).get("nodeName") or "")


def _name(node: Object) -> str:
    return str((node.get("metadata") or {}).get("name") or "")


class Cache:
    """Nodes and placed pods, assumed ones included; the source of every cycle's snapshot."""

    def __init__(self, *, clock: Clock, ttl: float = 30.0) -> None:
        self._clock = clock
        self._ttl = ttl
        self._nodes: dict[str, NodeInfo] = {}  # by node name; NodeInfo.node is None for a ghost
        self._changed: OrderedDict[str, int] = OrderedDict()  # name -> generation, oldest first
        self._generation = 0
        self._node_count = 0  # nodes with a Node object
        self._pods: dict[str, _PodState] = {}
        self._assumed: set[str] = set()
        self._closed = False

    # -- nodes -----------------------------------------------------------------------------

    def add_node(self, node: Object) -> None:
        name = _name(node)
        info = self._nodes.setdefault(name, NodeInfo())
        if info.node is None:
            self._node_count += 1
        info.set_node(node)
        self._touch(name)

    def update_node(self, old: Object, new: Object) -> None:
        self.add_node(new)

    def remove_node(self, node: Object) -> None:
        """Forget the node; its NodeInfo lingers, out of snapshots, while pods remain on it."""
        name = _name(node)
        info = self._nodes.get(name)
        if info is None or info.node is None:
            log.debug("node %s is not in the cache, so cannot be removed", name)
            return
        self._node_count -= 1
        info.node = None
        if not info.pods:
            del self._nodes[name]
        self._touch(name)

    def node_count(self) -> int:
        """Nodes with a Node object (ghosts of removed nodes with pods left do not count)."""
        return self._node_count

    # -- pods ------------------------------------------------------------------------------

    def assume_pod(self, pod: Object) -> None:
        """Count ``pod`` (with ``spec.nodeName`` chosen by the scheduler) on its node now."""
        key = pod_key(pod)
        if key in self._pods:
            raise ValueError(f"pod {key} is in the cache, so can't be assumed")
        self._add(pod, assumed=True)

    def finish_binding(self, pod: Object) -> None:
        """The bind call returned: start the assumed pod's ``ttl``."""
        key = pod_key(pod)
        state = self._pods.get(key)
        if state is None or key not in self._assumed:
            return
        state.binding_finished = True
        state.deadline = self._clock.now() + self._ttl if self._ttl > 0 else None

    def forget_pod(self, pod: Object) -> None:
        """Binding failed: take the assumed pod off its node."""
        key = pod_key(pod)
        state = self._pods.get(key)
        if state is None or key not in self._assumed:
            log.debug("pod %s wasn't assumed so cannot be forgotten", key)
            return
        if _node_name(state.pod) != _node_name(pod):
            log.error(
                "pod %s was assumed on %s but assigned to %s", key, _node_name(state.pod), _node_name(pod)
            )
            return
        self._remove(state.pod)

    def is_assumed(self, pod: Object) -> bool:
        return pod_key(pod) in self._assumed

    def add_pod(self, pod: Object) -> None:
        """A bound pod seen by the informer: confirms an assumed pod (even on another node), or
        adds it (again, if its assumption had expired)."""
        key = pod_key(pod)
        state = self._pods.get(key)
        if state is None:
            self._add(pod, assumed=False)
            return
        if key in self._assumed and _node_name(state.pod) != _node_name(pod):
            log.info(
                "pod %s was added to %s, not %s where it was assumed",
                key,
                _node_name(pod),
                _node_name(state.pod),
            )
        elif key not in self._assumed:
            log.debug("pod %s was already added; updating it", key)
        self._remove(state.pod)
        self._add(pod, assumed=False)

    def update_pod(self, old: Object, new: Object) -> None:
        """A bound pod changed (possibly to another node)."""
        self.add_pod(new)

    def remove_pod(self, pod: Object) -> None:
        key = pod_key(pod)
        state = self._pods.get(key)
        if state is None:
            log.debug("pod %s is not found in the cache, so cannot be removed from it", key)
            return
        if _node_name(state.pod) != _node_name(pod):
            log.error(
                "pod %s was on %s in the cache but is removed from %s",
                key,
                _node_name(state.pod),
                _node_name(pod),
            )
        self._remove(state.pod)

    def cleanup_expired_assumed_pods(self) -> None:
        """Drop assumed pods whose binding finished more than ``ttl`` ago without confirmation."""
        now = self._clock.now()
        for key in list(self._assumed):
            state = self._pods[key]
            if state.binding_finished and state.deadline is not None and now > state.deadline:
                log.warning("assumed pod %s expired without being confirmed", key)
                self._remove(state.pod)

    async def run(self) -> None:
        """Expire assumed pods every second, until cancelled (or the tick after ``close``)."""
        while not self._closed:
            await self._clock.sleep(CLEANUP_PERIOD)
            self.cleanup_expired_assumed_pods()

    def close(self) -> None:
        self._closed = True

    def _add(self, pod: Object, *, assumed: bool) -> None:
        key, name = pod_key(pod), _node_name(pod)
        self._nodes.setdefault(name, NodeInfo()).add_pod(PodInfo.of(pod))
        self._touch(name)
        self._pods[key] = _PodState(pod)
        if assumed:
            self._assumed.add(key)

    def _remove(self, pod: Object) -> None:
        key, name = pod_key(pod), _node_name(pod)
        info = self._nodes.get(name)
        if info is not None:
            info.remove_pod(key)
            if not info.pods and info.node is None:
                del self._nodes[name]
            self._touch(name)
        del self._pods[key]
        self._assumed.discard(key)

    # -- snapshots -------------------------------------------------------------------------

    def _touch(self, name: str) -> None:
        self._generation += 1
        info = self._nodes.get(name)
        if info is not None:
            info.generation = self._generation
        self._changed[name] = self._generation
        self._changed.move_to_end(name)

    def update_snapshot(self, snapshot: Snapshot) -> None:
        """Bring ``snapshot`` up to date, copying only nodes changed since its generation."""
        added = False
        for name in reversed(self._changed):
            if self._changed[name] <= snapshot.generation:
                break
            info = self._nodes.get(name)
            if info is None or info.node is None:
                snapshot.remove_node_info(name)
            else:
                added = snapshot.set_node_info(name, info.clone()) or added
        if added:
            snapshot.reorder(self._nodes)
        snapshot.generation = self._generation

    def dump(self) -> tuple[dict[str, NodeInfo], set[str]]:
        """Copies of every NodeInfo (ghosts included) and the assumed pod keys, for debugging."""
        return {name: info.clone() for name, info in self._nodes.items()}, set(self._assumed)
