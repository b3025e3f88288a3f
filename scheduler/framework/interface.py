"""The plugin interfaces, one per extension point (upstream ``framework/interface.go``).

A plugin is a class with a ``name`` and the methods of the extension points it implements;
the runtime discovers them by checking for the method (``hasattr(plugin, "filter")``).
Filter and Score run once per node and are synchronous and pure (they read the pod, the
NodeInfo and the CycleState); the points that talk to the apiserver (PostFilter, PreBind,
Bind, PostBind) are coroutines.

| point | method | returns |
|---|---|---|
| PreEnqueue | ``pre_enqueue(pod)`` | Status (not Success: the pod waits, unscheduled) |
| QueueSort | ``less(a: QueuedPodInfo, b: QueuedPodInfo)`` | bool |
| PreFilter | ``pre_filter(state, pod, nodes)`` | (PreFilterResult or None, Status) |
| PreFilterExtensions | ``pre_filter_extensions()`` | None, or what has ``add_pod``/``remove_pod`` |
| Filter | ``filter(state, pod, node_info)`` | Status |
| PostFilter | ``async post_filter(state, pod, statuses)`` | (PostFilterResult or None, Status) |
| PreScore | ``pre_score(state, pod, nodes)`` | Status |
| Score | ``score(state, pod, node_info)`` | (int, Status) |
| Score, batched (optional) | ``score_nodes(state, pod, nodes)``: ``score`` of each | (list[int], Status) |
| NormalizeScore | ``normalize_score(state, pod, scores: list[NodeScore])`` | (list[NodeScore], Status) |
| NormalizeScore, batched | ``normalize_scores(state, pod, scores: list[int])`` | (list[int], Status) |
| Reserve | ``reserve(state, pod, node_name)`` / ``unreserve(...)`` | Status / None |
| Permit | ``permit(state, pod, node_name)`` | (Status, timeout seconds) |
| PreBind | ``async pre_bind(state, pod, node_name)`` | Status |
| Bind | ``async bind(state, pod, node_name)`` | Status (SKIP: the next binder) |
| PostBind | ``post_bind(state, pod, node_name)`` | None |
| EnqueueExtensions | ``events_to_register()`` | list[ClusterEvent] |

``add_pod``/``remove_pod(state, pod, pod_info, node_info)`` update the PreFilter state when
preemption removes a victim or a nominated pod is counted (PodTopologySpread, InterPodAffinity).
The batched forms are optional and, when present, preferred by the runtime: they must give
the same numbers as ``score``/``normalize_score`` (they save a call and a tuple per node).
``pod`` is the pod's JSON dict; ``nodes``/``node_info`` are ``NodeInfo``s of the cycle's
snapshot. Plugins are built by ``factory(args: dict, handle: Handle)`` from a registry.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from minikube_py.client.interfaces import Client
from minikube_py.clock import Clock
from minikube_py.events import Recorder
from scheduler.framework.types import NodeInfo


@dataclass(frozen=True, slots=True)
class PreFilterResult:
    """The nodes a PreFilter plugin already knows are the only candidates (None: all)."""

    node_names: frozenset[str] | None = None


@dataclass(frozen=True, slots=True)
class PostFilterResult:
    """Preemption's answer: the node the pod is nominated to once victims are gone."""

    nominated_node_name: str = ""


class SnapshotLister(Protocol):
    """The cycle's snapshot of nodes (with their assumed pods)."""

    def list(self) -> Sequence[NodeInfo]: ...

    def get(self, node_name: str) -> NodeInfo | None: ...

    def have_pods_with_affinity_list(self) -> Sequence[NodeInfo]: ...

    def have_pods_with_required_anti_affinity_list(self) -> Sequence[NodeInfo]: ...

    def num_nodes_with_image(self, image: str) -> int:
        """How many of the snapshot's nodes report ``image`` (upstream ImageStateSummary.NumNodes)."""
        ...


@dataclass
class Handle:
    """What plugins may use besides their arguments: the API client, the current snapshot,
    the event recorder, the clock, and (for preemption) a way to run the filters again."""

    client: Client
    snapshot: SnapshotLister
    recorder: Recorder
    clock: Clock
    extras: dict[str, Any] = field(default_factory=dict)


PluginFactory = Callable[[dict[str, Any], Handle], Any]
