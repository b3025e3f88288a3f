"""One Protocol per extension point (upstream ``framework/interface.go``'s plugin interfaces) and
the check that a plugin implements the points a profile enables it at.

A plugin is any object with the methods of the points it implements: in-tree plugins name
their Protocols as base classes (so mypy checks their signatures, like upstream's
``var _ framework.FilterPlugin = &X{}``), an out-of-tree plugin may simply have the methods.
The framework decides by ``implements(plugin, point)``: the method is present, is not a
Protocol's placeholder, takes the point's positional arguments, and is a plain function where
the framework does not await it. A method that is present with the wrong shape is an error,
not silently "not a Filter" (``conformance_error``).

| point | Protocol | method | returns |
|---|---|---|---|
| preEnqueue | PreEnqueuePlugin | ``pre_enqueue(pod)`` | Status (not Success: the pod waits) |
| queueSort | QueueSortPlugin | ``less(a: QueuedPodInfo, b: QueuedPodInfo)`` | bool |
| preFilter | PreFilterPlugin | ``pre_filter(state, pod, nodes)`` | (PreFilterResult or None, Status) |
| (preFilter) | PreFilterExtensionsProvider | ``pre_filter_extensions()`` | PreFilterExtensions or None |
| (preFilter) | PreFilterExtensions | ``add_pod``/``remove_pod(state, pod, info, node_info)`` | Status |
| filter | FilterPlugin | ``filter(state, pod, node_info)`` | Status |
| postFilter | PostFilterPlugin | ``async post_filter(state, pod, statuses)`` | (PostFilterResult, Status) |
| preScore | PreScorePlugin | ``pre_score(state, pod, nodes)`` | Status |
| score | ScorePlugin | ``score(state, pod, node_info)`` | (int, Status) |
| (score) | ScoreExtensions | ``normalize_score(state, pod, scores: list[NodeScore])`` | (list, Status) |
| (score) | BatchScorePlugin | ``score_nodes(state, pod, nodes)`` | (list[int], Status) |
| (score) | BatchNormalizeScorePlugin | ``normalize_scores(state, pod, scores: list[int])`` | (list, Status) |
| reserve | ReservePlugin | ``reserve(state, pod, node_name)`` | Status |
| (reserve) | UnreservePlugin | ``unreserve(state, pod, node_name)`` | None |
| permit | PermitPlugin | ``permit(state, pod, node_name)`` | (Status, timeout seconds) |
| preBind | PreBindPlugin | ``async pre_bind(state, pod, node_name)`` | Status |
| bind | BindPlugin | ``async bind(state, pod, node_name)`` | Status (Skip: the next binder) |
| postBind | PostBindPlugin | ``post_bind(state, pod, node_name)`` | None (or a coroutine: runs apart) |
| (any) | EnqueueExtensions | ``events_to_register()`` | list[ClusterEvent] |

Filter and Score run once per node and are synchronous and pure; the points that talk to the
apiserver (PostFilter, PreBind, Bind, PostBind) may be coroutines. The batched and
normalizing methods are optional: when present the runtime prefers them (one call per cycle
instead of one per node), and they must give the same numbers.
"""

from __future__ import annotations

import difflib
import inspect
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from minikube_py.api.unstructured import Object
from scheduler.framework.cyclestate import CycleState
from scheduler.framework.interface import PostFilterResult, PreFilterResult
from scheduler.framework.status import Status
from scheduler.framework.types import ClusterEvent, NodeInfo, NodeScore, PodInfo, QueuedPodInfo


@runtime_checkable
class PreEnqueuePlugin(Protocol):
    def pre_enqueue(self, pod: Object) -> Status: ...


@runtime_checkable
class QueueSortPlugin(Protocol):
    def less(self, a: QueuedPodInfo, b: QueuedPodInfo) -> bool: ...


@runtime_checkable
class PreFilterExtensions(Protocol):
    """Keeps a PreFilter plugin's cycle state true while preemption adds or removes pods."""

    def add_pod(self, state: CycleState, pod: Object, pod_info: PodInfo, node_info: NodeInfo) -> Status: ...

    def remove_pod(
        self, state: CycleState, pod: Object, pod_info: PodInfo, node_info: NodeInfo
    ) -> Status: ...


@runtime_checkable
class PreFilterPlugin(Protocol):
    def pre_filter(
        self, state: CycleState, pod: Object, nodes: Sequence[NodeInfo]
    ) -> tuple[PreFilterResult | None, Status]: ...


@runtime_checkable
class PreFilterExtensionsProvider(Protocol):
    """A PreFilter plugin with extensions (optional: without the method it has none)."""

    def pre_filter_extensions(self) -> PreFilterExtensions | None: ...


@runtime_checkable
class FilterPlugin(Protocol):
    def filter(self, state: CycleState, pod: Object, node_info: NodeInfo) -> Status: ...


@runtime_checkable
class PostFilterPlugin(Protocol):
    async def post_filter(
        self, state: CycleState, pod: Object, statuses: dict[str, Status]
    ) -> tuple[PostFilterResult | None, Status]: ...


@runtime_checkable
class PreScorePlugin(Protocol):
    def pre_score(self, state: CycleState, pod: Object, nodes: Sequence[NodeInfo]) -> Status: ...


@runtime_checkable
class ScorePlugin(Protocol):
    def score(self, state: CycleState, pod: Object, node_info: NodeInfo) -> tuple[int, Status]: ...


@runtime_checkable
class ScoreExtensions(Protocol):
    """A Score plugin that normalizes its scores of all nodes (upstream ``NormalizeScore``)."""

    def normalize_score(
        self, state: CycleState, pod: Object, scores: list[NodeScore]
    ) -> tuple[list[NodeScore], Status]: ...


@runtime_checkable
class BatchScorePlugin(Protocol):
    """``score`` of each node in one call (optional; the runtime prefers it)."""

    def score_nodes(
        self, state: CycleState, pod: Object, nodes: Sequence[NodeInfo]
    ) -> tuple[list[int], Status]: ...


@runtime_checkable
class BatchNormalizeScorePlugin(Protocol):
    """``normalize_score`` over bare scores in ``nodes``' order (optional; preferred)."""

    def normalize_scores(
        self, state: CycleState, pod: Object, scores: list[int]
    ) -> tuple[list[int], Status]: ...


@runtime_checkable
class ReservePlugin(Protocol):
    def reserve(self, state: CycleState, pod: Object, node_name: str) -> Status: ...


@runtime_checkable
class UnreservePlugin(Protocol):
    """Undo ``reserve`` (optional; runs in the reverse order of Reserve)."""

    def unreserve(self, state: CycleState, pod: Object, node_name: str) -> None: ...


@runtime_checkable
class PermitPlugin(Protocol):
    def permit(self, state: CycleState, pod: Object, node_name: str) -> tuple[Status, float]: ...


@runtime_checkable
class PreBindPlugin(Protocol):
    async def pre_bind(self, state: CycleState, pod: Object, node_name: str) -> Status: ...


@runtime_checkable
class BindPlugin(Protocol):
    async def bind(self, state: CycleState, pod: Object, node_name: str) -> Status: ...


@runtime_checkable
class PostBindPlugin(Protocol):
    def post_bind(self, state: CycleState, pod: Object, node_name: str) -> Any: ...


@runtime_checkable
class EnqueueExtensions(Protocol):
    """The cluster events that may make a pod this plugin rejected schedulable (none: all)."""

    def events_to_register(self) -> list[ClusterEvent]: ...


@dataclass(frozen=True)
class Method:
    """One method a Protocol asks for: its name, its positional parameters (after ``self``),
    and whether the framework awaits what it returns."""

    protocol: type[Any]
    name: str
    params: tuple[str, ...]
    awaited: bool = False

    def shape(self) -> str:
        return f"{self.name}({', '.join(self.params)})"


@dataclass(frozen=True)
class ExtensionPoint:
    """A KubeSchedulerConfiguration extension point (``filter``), upstream's interface name
    (``FilterPlugin``, the one error messages use), its method and its optional companions."""

    name: str
    interface: str
    method: Method
    optional: tuple[Method, ...] = ()


_STATE_POD_NODE = ("state", "pod", "node_info")
_STATE_POD_NODES = ("state", "pod", "nodes")
_STATE_POD_NAME = ("state", "pod", "node_name")

POINTS: dict[str, ExtensionPoint] = {
    point.name: point
    for point in (
        ExtensionPoint("preEnqueue", "PreEnqueuePlugin", Method(PreEnqueuePlugin, "pre_enqueue", ("pod",))),
        ExtensionPoint("queueSort", "QueueSortPlugin", Method(QueueSortPlugin, "less", ("a", "b"))),
        ExtensionPoint(
            "preFilter",
            "PreFilterPlugin",
            Method(PreFilterPlugin, "pre_filter", _STATE_POD_NODES),
            (Method(PreFilterExtensionsProvider, "pre_filter_extensions", ()),),
        ),
        ExtensionPoint("filter", "FilterPlugin", Method(FilterPlugin, "filter", _STATE_POD_NODE)),
        ExtensionPoint(
            "postFilter",
            "PostFilterPlugin",
            Method(PostFilterPlugin, "post_filter", ("state", "pod", "statuses"), awaited=True),
        ),
        ExtensionPoint("preScore", "PreScorePlugin", Method(PreScorePlugin, "pre_score", _STATE_POD_NODES)),
        ExtensionPoint(
            "score",
            "ScorePlugin",
            Method(ScorePlugin, "score", _STATE_POD_NODE),
            (
                Method(ScoreExtensions, "normalize_score", ("state", "pod", "scores")),
                Method(BatchScorePlugin, "score_nodes", _STATE_POD_NODES),
                Method(BatchNormalizeScorePlugin, "normalize_scores", ("state", "pod", "scores")),
            ),
        ),
        ExtensionPoint(
            "reserve",
            "ReservePlugin",
            Method(ReservePlugin, "reserve", _STATE_POD_NAME),
            (Method(UnreservePlugin, "unreserve", _STATE_POD_NAME),),
        ),
        ExtensionPoint("permit", "PermitPlugin", Method(PermitPlugin, "permit", _STATE_POD_NAME)),
        ExtensionPoint("preBind", "PreBindPlugin", Method(PreBindPlugin, "pre_bind", _STATE_POD_NAME, True)),
        ExtensionPoint("bind", "BindPlugin", Method(BindPlugin, "bind", _STATE_POD_NAME, True)),
        ExtensionPoint(
            "postBind", "PostBindPlugin", Method(PostBindPlugin, "post_bind", _STATE_POD_NAME, True)
        ),
    )
}
ENQUEUE_EXTENSIONS = Method(EnqueueExtensions, "events_to_register", ())
PRE_FILTER_EXTENSIONS = (
    Method(PreFilterExtensions, "add_pod", ("state", "pod", "pod_info", "node_info")),
    Method(PreFilterExtensions, "remove_pod", ("state", "pod", "pod_info", "node_info")),
)
# every method name the framework calls: a near miss of one of them is probably a typo
_ALL_METHODS = (
    [m.name for p in POINTS.values() for m in (p.method, *p.optional)]
    + [ENQUEUE_EXTENSIONS.name]
    + [m.name for m in PRE_FILTER_EXTENSIONS]
)


class ConformanceError(TypeError):
    """A method of an extension point is present with the wrong shape."""


def bound_method(plugin: object, method: Method) -> Any:
    """``plugin``'s ``method`` when it really implements it; None when it has no such method
    (or only a Protocol's placeholder); ConformanceError when it has one of the wrong shape."""
    fn = getattr(plugin, method.name, None)
    if fn is None:
        return None
    if getattr(fn, "__func__", None) is method.protocol.__dict__.get(method.name):
        return None  # inherited from the Protocol, never written
    if not callable(fn):
        raise ConformanceError(f"{method.name} is a {type(fn).__name__}, not a method {method.shape()}")
    try:
        signature = inspect.signature(fn)
    except (TypeError, ValueError):  # a builtin without a signature: trust it
        return fn
    try:
        signature.bind(*method.params)
    except TypeError:
        raise ConformanceError(
            f"{method.name}{_plain(signature)} does not take the arguments {method.shape()}"
        ) from None
    if not method.awaited and inspect.iscoroutinefunction(fn):
        raise ConformanceError(f"{method.name} must be a plain function: the framework does not await it")
    return fn


def implements(plugin: object, point: str) -> bool:
    """Whether ``plugin`` implements extension point ``point`` (ConformanceError: its method,
    or an optional companion, has the wrong shape)."""
    spec = POINTS[point]
    if bound_method(plugin, spec.method) is None:
        return False
    for companion in spec.optional:
        bound_method(plugin, companion)
    return True


def implemented_points(plugin: object) -> list[str]:
    """The extension points ``plugin`` implements, in the framework's order."""
    return [point for point in POINTS if implements(plugin, point)]


def near_misses(plugin: object) -> list[str]:
    """Public methods of ``plugin`` that look like a misspelt extension-point method, as
    ``"filtre" (filter?)``: a hint for "does not extend" errors."""
    names = [name for name in dir(plugin) if not name.startswith("_") and name not in _ALL_METHODS]
    hints = []
    for name in names:
        close = difflib.get_close_matches(name.lower(), _ALL_METHODS, n=1, cutoff=0.75)
        if close and callable(getattr(plugin, name, None)):
            hints.append(f'"{name}" ({close[0]}?)')
    return hints


def _plain(signature: inspect.Signature) -> str:
    return "(" + ", ".join(p.name for p in signature.parameters.values()) + ")"
