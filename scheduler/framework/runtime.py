"""``Framework``: one profile's plugins, built from a registry (``build``), run extension point
by extension point (upstream ``framework/runtime/framework.go``, without the parallelizer).

Construction resolves everything once: each point's plugin list, the bound methods, and the
Score weights. A point's rules are upstream's:

- PreFilter runs all plugins; Skip puts the plugin in ``state.skip_filter_plugins`` (its Filter
  does not run this cycle); UnschedulableAndUnresolvable stops at once, Unschedulable is kept
  while the rest run (preemption needs their state); PreFilterResults are intersected.
- Filter stops at the first plugin that does not return Success; a status other than a
  rejection becomes an Error.
- PostFilter stops at the first Success, UnschedulableAndUnresolvable or Error; otherwise the
  reasons of all plugins are joined.
- PreScore Skip puts the plugin in ``state.skip_score_plugins``. Score: see ``scoring``.
- Reserve, Permit, PreBind stop at the first failure; Unreserve runs in reverse order; Bind
  runs binders until one does not return Skip.
A status that fails the pod carries the plugin's name (``Status.plugin``).
"""

from __future__ import annotations

import asyncio
import dataclasses
import inspect
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from minikube_py.api.unstructured import Object
from scheduler.framework.build import WILDCARD_EVENT, build_plugins
from scheduler.framework.cyclestate import CycleState
from scheduler.framework.extensionpoints import POINTS, PRE_FILTER_EXTENSIONS, Method, bound_method
from scheduler.framework.interface import Handle, PluginFactory, PostFilterResult, PreFilterResult
from scheduler.framework.profile import Profile
from scheduler.framework.scoring import ScoreEntry, run_score_plugins_by_plugin
from scheduler.framework.status import SUCCESS, Code, Status, filter_failure, named, plugin_error
from scheduler.framework.types import ClusterEvent, NodeInfo, PodInfo, QueuedPodInfo

__all__ = ["MAX_PERMIT_TIMEOUT", "WILDCARD_EVENT", "FilterFn", "Framework"]

FilterFn = Callable[[CycleState, Object, NodeInfo], Status]
MAX_PERMIT_TIMEOUT = 15 * 60.0


class Framework:
    def __init__(self, profile: Profile, registry: Mapping[str, PluginFactory], handle: Handle) -> None:
        """Build the profile's plugins (ConfigError: see ``build``). Plugins get a copy of
        ``handle`` whose ``framework`` is this framework (preemption runs the filters again)."""
        self.profile_name = profile.scheduler_name
        self.percentage_of_nodes_to_score = profile.percentage_of_nodes_to_score
        self.handle = dataclasses.replace(handle, framework=self)
        built = build_plugins(profile, registry, self.handle)
        self.plugins: dict[str, Any] = built.plugins
        self._points = built.points
        self.score_weights = built.score_weights
        self._events = built.events
        self._bind_methods()
        self._background: set[asyncio.Future[Any]] = set()

    def _bound(self, point: str, method: Method | None = None) -> list[tuple[str, Any]]:
        """(plugin, its bound method) for each plugin of ``point``, in the order they run."""
        method = method or POINTS[point].method
        return [(name, bound_method(self.plugins[name], method)) for name in self._points[point]]

    def _bind_methods(self) -> None:
        self._pre_enqueue = self._bound("preEnqueue")
        self._pre_filter = self._bound("preFilter")
        self._pre_filter_extensions = self._bound("preFilter", POINTS["preFilter"].optional[0])
        self._filter: list[tuple[str, FilterFn]] = self._bound("filter")
        self._post_filter = self._bound("postFilter")
        self._pre_score = self._bound("preScore")
        normalize_score, score_nodes, normalize_scores = POINTS["score"].optional
        self._score = [
            ScoreEntry(
                name,
                fn,
                bound_method(self.plugins[name], score_nodes),
                bound_method(self.plugins[name], normalize_scores),
                bound_method(self.plugins[name], normalize_score),
                self.score_weights[name],
            )
            for name, fn in self._bound("score")
        ]
        self._reserve = self._bound("reserve")
        self._unreserve = list(reversed(self._bound("reserve", POINTS["reserve"].optional[0])))
        self._permit = self._bound("permit")
        self._pre_bind = self._bound("preBind")
        self._bind = self._bound("bind")
        self._post_bind = self._bound("postBind")

    # -- introspection ---------------------------------------------------------------------

    def list_plugins(self) -> dict[str, list[str]]:
        """Extension point -> plugin names in the order they run (upstream ``ListPlugins``)."""
        return {point: list(names) for point, names in self._points.items() if names}

    def has_filter_plugins(self) -> bool:
        return bool(self._filter)

    def has_post_filter_plugins(self) -> bool:
        return bool(self._post_filter)

    def has_score_plugins(self) -> bool:
        return bool(self._score)

    def events_to_register(self) -> dict[str, list[ClusterEvent]]:
        return self._events

    def queue_sort_less(self) -> Callable[[QueuedPodInfo, QueuedPodInfo], bool]:
        if not self._points["queueSort"]:
            return lambda _a, _b: False
        [(_name, less)] = self._bound("queueSort")
        return less  # type: ignore[no-any-return]

    # -- the scheduling cycle --------------------------------------------------------------

    def run_pre_enqueue(self, pod: Object) -> Status:
        """The first plugin that does not admit the pod to the active queue (its status)."""
        for name, fn in self._pre_enqueue:
            status = fn(pod)
            if status.code != Code.SUCCESS:
                return named(status, name)
        return SUCCESS

    def run_pre_filter(self, state: CycleState, pod: Object) -> tuple[PreFilterResult | None, Status]:
        result, status, _plugins = self.run_pre_filter_plugins(state, pod)
        return result, status

    def run_pre_filter_plugins(
        self, state: CycleState, pod: Object
    ) -> tuple[PreFilterResult | None, Status, set[str]]:
        """Also returns the plugins whose PreFilterResult narrowed the nodes."""
        nodes = self.handle.snapshot.list()
        skip = state.skip_filter_plugins
        skip.clear()
        result: PreFilterResult | None = None
        narrowing: set[str] = set()
        rejected: Status = SUCCESS
        for name, fn in self._pre_filter:
            plugin_result, status = fn(state, pod, nodes)
            if status.code == Code.SKIP:
                skip.add(name)
                continue
            if status.code == Code.UNSCHEDULABLE_AND_UNRESOLVABLE:
                return None, named(status, name), set()
            if status.code == Code.UNSCHEDULABLE:
                rejected = named(status, name)
                continue
            if status.code != Code.SUCCESS:
                return (
                    None,
                    plugin_error(f'running PreFilter plugin "{name}": {status.message()}', name, status),
                    set(),
                )
            if plugin_result is None or plugin_result.node_names is None:
                continue
            narrowing.add(name)
            result = _merge_pre_filter_results(result, plugin_result)
            if result.node_names is not None and not result.node_names:
                plugins = sorted(narrowing)
                if len(plugins) == 1:
                    message = f"node(s) didn't satisfy plugin {plugins[0]}"
                else:
                    message = f"node(s) didn't satisfy plugin(s) [{' '.join(plugins)}] simultaneously"
                return result, Status.unresolvable(message), narrowing
        return result, rejected, narrowing

    def run_pre_filter_extension_add_pod(
        self, state: CycleState, pod: Object, pod_info_to_add: PodInfo, node_info: NodeInfo
    ) -> Status:
        """Tell each PreFilter plugin's extensions (``pre_filter_extensions()``) that a pod was
        added to ``node_info`` (preemption, nominated pods)."""
        return self._run_extensions("add_pod", state, pod, pod_info_to_add, node_info)

    def run_pre_filter_extension_remove_pod(
        self, state: CycleState, pod: Object, pod_info_to_remove: PodInfo, node_info: NodeInfo
    ) -> Status:
        return self._run_extensions("remove_pod", state, pod, pod_info_to_remove, node_info)

    def _run_extensions(
        self, operation: str, state: CycleState, pod: Object, pod_info: PodInfo, node_info: NodeInfo
    ) -> Status:
        method = PRE_FILTER_EXTENSIONS[0] if operation == "add_pod" else PRE_FILTER_EXTENSIONS[1]
        for name, extensions_of in self._pre_filter_extensions:
            extensions = extensions_of() if extensions_of is not None else None
            if extensions is None or name in state.skip_filter_plugins:
                continue
            status = bound_method(extensions, method)(state, pod, pod_info, node_info)
            if status.code != Code.SUCCESS:
                verb = "AddPod" if operation == "add_pod" else "RemovePod"
                return plugin_error(
                    f'running {verb} on PreFilter plugin "{name}": {status.message()}', name, status
                )
        return SUCCESS

    def filters_for(self, state: CycleState) -> list[tuple[str, FilterFn]]:
        """This cycle's Filter plugins (bound methods), without those PreFilter skipped."""
        skip = state.skip_filter_plugins
        return [entry for entry in self._filter if entry[0] not in skip] if skip else self._filter

    def run_filter_plugins(self, state: CycleState, pod: Object, node_info: NodeInfo) -> Status:
        """Success, or the first failing plugin's status (with ``.plugin`` set)."""
        skip = state.skip_filter_plugins
        for name, fn in self._filter:
            if skip and name in skip:
                continue
            status = fn(state, pod, node_info)
            if status.code:
                return filter_failure(name, status)
        return SUCCESS

    async def run_post_filter(
        self, state: CycleState, pod: Object, statuses: dict[str, Status]
    ) -> tuple[PostFilterResult | None, Status]:
        result: PostFilterResult | None = None
        reasons: list[str] = []
        rejector = ""
        for name, fn in self._post_filter:
            plugin_result, status = await _maybe_await(fn(state, pod, statuses))
            if status.code == Code.SUCCESS:
                return plugin_result, status
            if status.code == Code.UNSCHEDULABLE_AND_UNRESOLVABLE:
                return plugin_result, named(status, name)
            if not status.is_rejected():
                return None, plugin_error(status.message(), name, status)
            if plugin_result is not None and plugin_result.nominated_node_name:
                result = plugin_result
            reasons.extend(status.reasons)
            rejector = rejector or name
        return result, Status(Code.UNSCHEDULABLE, tuple(reasons), rejector)

    def run_pre_score(self, state: CycleState, pod: Object, nodes: Sequence[NodeInfo]) -> Status:
        skip = state.skip_score_plugins
        skip.clear()
        for name, fn in self._pre_score:
            status = fn(state, pod, nodes)
            if status.code == Code.SKIP:
                skip.add(name)
            elif status.code != Code.SUCCESS:
                return plugin_error(f'running PreScore plugin "{name}": {status.message()}', name, status)
        return SUCCESS

    def run_score_plugins(
        self, state: CycleState, pod: Object, nodes: Sequence[NodeInfo]
    ) -> tuple[list[tuple[str, dict[str, int]]], Status]:
        """Per node (in ``nodes``' order): plugin -> normalized score times the plugin's weight."""
        columns, status = self.run_score_plugins_by_plugin(state, pod, nodes)
        names = [node.name for node in nodes]
        by_node: list[dict[str, int]] = [{} for _ in names]
        for plugin, column in columns.items():
            for scores, value in zip(by_node, column, strict=True):
                scores[plugin] = value
        return (list(zip(names, by_node, strict=True)) if status.is_success() else []), status

    def run_score_plugins_by_plugin(
        self, state: CycleState, pod: Object, nodes: Sequence[NodeInfo]
    ) -> tuple[dict[str, list[int]], Status]:
        """Plugin -> its normalized, weighted score of each node (in ``nodes``' order): the
        same numbers as ``run_score_plugins``, kept by plugin (the scheduler's hot path; a
        plugin's ``score_nodes`` scores the whole list in one call)."""
        return run_score_plugins_by_plugin(self._score, state, pod, nodes)

    def run_reserve(self, state: CycleState, pod: Object, node_name: str) -> Status:
        for name, fn in self._reserve:
            status = fn(state, pod, node_name)
            if status.code == Code.SUCCESS:
                continue
            if status.is_rejected():
                return named(status, name)
            return plugin_error(f'running Reserve plugin "{name}": {status.message()}', name, status)
        return SUCCESS

    def run_unreserve(self, state: CycleState, pod: Object, node_name: str) -> None:
        """Every Reserve plugin's ``unreserve``, in the reverse order of Reserve."""
        for _name, fn in self._unreserve:
            if fn is not None:
                fn(state, pod, node_name)

    def run_permit(self, state: CycleState, pod: Object, node_name: str) -> tuple[Status, float]:
        """Success; a rejection or Error from the first plugin that did not allow; or Wait with
        the shortest wait asked (capped at 15 minutes)."""
        waits: list[float] = []
        for name, fn in self._permit:
            status, timeout = fn(state, pod, node_name)
            if status.code == Code.SUCCESS:
                continue
            if status.is_rejected():
                return named(status, name), 0.0
            if status.code == Code.WAIT:
                waits.append(min(float(timeout), MAX_PERMIT_TIMEOUT))
                continue
            return plugin_error(f'running Permit plugin "{name}": {status.message()}', name, status), 0.0
        if waits:
            pod_name = (pod.get("metadata") or {}).get("name", "")
            message = f'one or more plugins asked to wait and no plugin rejected pod "{pod_name}"'
            return Status(Code.WAIT, (message,)), min(waits)
        return SUCCESS, 0.0

    async def run_pre_bind(self, state: CycleState, pod: Object, node_name: str) -> Status:
        for name, fn in self._pre_bind:
            status = await _maybe_await(fn(state, pod, node_name))
            if status.code == Code.SUCCESS:
                continue
            if status.is_rejected():
                return named(status, name)
            return plugin_error(f'running PreBind plugin "{name}": {status.message()}', name, status)
        return SUCCESS

    async def run_bind(self, state: CycleState, pod: Object, node_name: str) -> Status:
        """The first binder that does not Skip decides; Skip when there is none."""
        status = Status.skip()
        for name, fn in self._bind:
            status = await _maybe_await(fn(state, pod, node_name))
            assert isinstance(status, Status)
            if status.code == Code.SKIP:
                continue
            if status.code == Code.SUCCESS:
                return status
            if status.is_rejected():
                return named(status, name)
            return plugin_error(f'running Bind plugin "{name}": {status.message()}', name, status)
        return status

    def run_post_bind(self, state: CycleState, pod: Object, node_name: str) -> None:
        """Informational; a coroutine a plugin returns runs in the background."""
        for _name, fn in self._post_bind:
            outcome = fn(state, pod, node_name)
            if inspect.isawaitable(outcome):
                task = asyncio.ensure_future(outcome)
                self._background.add(task)
                task.add_done_callback(self._background.discard)


def _merge_pre_filter_results(a: PreFilterResult | None, b: PreFilterResult) -> PreFilterResult:
    if a is None or a.node_names is None:
        return b
    if b.node_names is None:
        return a
    return PreFilterResult(a.node_names & b.node_names)


async def _maybe_await(value: Any) -> Any:
    return await value if inspect.isawaitable(value) else value
