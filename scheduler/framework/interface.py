"""What plugins are given (upstream ``framework/interface.go``'s ``Handle`` and results): the
results of PreFilter and PostFilter, and the ``Handle`` through which a plugin reaches the
cluster, the cycle's snapshot, the event recorder, the clock and the scheduler's shared
state. The extension points themselves are Protocols in ``extensionpoints``.

Plugins are built by ``factory(args: dict, handle: Handle)`` from a registry. ``pod`` is the
pod's JSON dict; ``nodes``/``node_info`` are ``NodeInfo``s of the cycle's snapshot.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from minikube_py.api.unstructured import Object
from minikube_py.client.interfaces import Client
from minikube_py.clock import Clock
from minikube_py.events import Recorder
from scheduler.framework.cyclestate import CycleState
from scheduler.framework.status import Status
from scheduler.framework.types import NodeInfo, PodInfo


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


NamespaceLabels = Callable[[str], Mapping[str, str]]
"""namespace -> its labels (pod affinity's ``namespaceSelector``)."""
PVCLister = Callable[[str, str], Object | None]
"""(namespace, name) -> the PersistentVolumeClaim, None when there is none."""
PVLister = Callable[[], Sequence[Object]]
"""() -> every PersistentVolume."""
StorageClassLister = Callable[[str], Object | None]
"""name -> the StorageClass, None when there is none."""


class PodNominator(Protocol):
    """Pods preemption nominated to a node and not bound yet (upstream ``PodNominator``)."""

    def nominated_pods_for_node(self, node_name: str) -> list[PodInfo]: ...

    def pods_to_count(self, pod: Object) -> Mapping[str, list[PodInfo]]:
        """Node -> the nominated pods ``pod`` must leave room for (at least its priority)."""
        ...


class PluginsRunner(Protocol):
    """The framework's Filter and PreFilter extensions, run again by preemption on a copy of
    a node without its victims (upstream ``PluginsRunner``)."""

    def run_filter_plugins(self, state: CycleState, pod: Object, node_info: NodeInfo) -> Status: ...

    def run_pre_filter_extension_add_pod(
        self, state: CycleState, pod: Object, pod_info_to_add: PodInfo, node_info: NodeInfo
    ) -> Status: ...

    def run_pre_filter_extension_remove_pod(
        self, state: CycleState, pod: Object, pod_info_to_remove: PodInfo, node_info: NodeInfo
    ) -> Status: ...


@dataclass
class Handle:
    """What plugins may use besides their arguments: the API client, the current snapshot,
    the event recorder and the clock; then what the scheduler shares once it is built (read
    these at each use, not in the factory):

    - ``framework``: the framework the plugin belongs to (set by ``Framework``; preemption
      runs the filters again through it);
    - ``nominator``: the pods preemption nominated (set by the ``Scheduler``);
    - ``namespace_labels``: namespace -> labels, from the scheduler's namespace informer;
    - ``pvc_lister``, ``pv_lister``, ``storage_class_lister``: the scheduler's claim, volume
      and class informers (None in a handle built without a scheduler: every claim then
      counts as unbound)."""

    client: Client
    snapshot: SnapshotLister
    recorder: Recorder
    clock: Clock
    framework: PluginsRunner | None = None
    nominator: PodNominator | None = None
    namespace_labels: NamespaceLabels | None = None
    pvc_lister: PVCLister | None = None
    pv_lister: PVLister | None = None
    storage_class_lister: StorageClassLister | None = None


PluginFactory = Callable[[dict[str, Any], Handle], Any]
"""``factory(args, handle)`` -> a plugin: an object with the methods of the extension points it
implements (``extensionpoints``); the in-tree plugins' classes are their own factories."""
