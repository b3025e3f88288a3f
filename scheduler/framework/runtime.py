"""``Framework``: one profile's plugins, built from a registry, run extension point by extension
point (upstream ``framework/runtime/framework.go``, without the parallelizer).

Construction resolves everything once: each point's plugin list (explicit ones, then the
``multiPoint`` ones that implement the point), the bound methods, and the Score weights. A
point's rules are upstream's:

- PreFilter runs all plugins; Skip puts the plugin in ``state.skip_filter_plugins`` (its Filter
  does not run this cycle); UnschedulableAndUnresolvable stops at once, Unschedulable is kept
  while the rest run (preemption needs their state); PreFilterResults are intersected.
- Filter stops at the first plugin that does not return Success; a status other than a
  rejection becomes an Error.
- PostFilter stops at the first Success, UnschedulableAndUnresolvable or Error; otherwise the
  reasons of all plugins are joined.
- PreScore Skip puts the plugin in ``state.skip_score_plugins``. Score: each plugin scores each
  node, normalizes its list, every score must then be in [0, 100], and is multiplied by the
  plugin's weight.
- Reserve, Permit, PreBind stop at the first failure; Unreserve runs in reverse order; Bind
  runs binders until one does not return Skip.
A status that fails the pod carries the plugin's name (``Status.plugin``).
"""

from __future__ import annotations

import asyncio
import dataclasses
import inspect
from collections.abc import Callable, Sequence
from typing import Any

from scheduler.framework.config import MULTI_POINT, ConfigError, PluginSet, Profile
from scheduler.framework.cyclestate import CycleState
from scheduler.framework.interface import Handle, PostFilterResult, PreFilterResult
from scheduler.framework.registry import Registry
from scheduler.framework.status import SUCCESS, Code, Status
from scheduler.framework.types import (
    MAX_NODE_SCORE,
    MIN_NODE_SCORE,
    ActionType,
    ClusterEvent,
    NodeInfo,
    NodeScore,
    Object,
    PodInfo,
    QueuedPodInfo,
)

FilterFn = Callable[[CycleState, Object, NodeInfo], Status]
MAX_PERMIT_TIMEOUT = 15 * 60.0
# which method makes a plugin part of an extension point
POINT_METHODS = {
    "preEnqueue": "pre_enqueue",
    "queueSort": "less",
    "preFilter": "pre_filter",
    "filter": "filter",
    "postFilter": "post_filter",
    "preScore": "pre_score",
    "score": "score",
    "reserve": "reserve",
    "permit": "permit",
    "preBind": "pre_bind",
    "bind": "bind",
    "postBind": "post_bind",
}
# plugins at these points tell the queue which cluster events may make a rejected pod fit
_ENQUEUE_POINTS = ("preEnqueue", "preFilter", "filter", "reserve", "permit")
WILDCARD_EVENT = ClusterEvent("*", ActionType.ALL, "WildCardEvent")


class Framework:
    def __init__(self, profile: Profile, registry: Registry, handle: Handle) -> None:
        """Build the profile's plugins. ConfigError: an unknown plugin, a plugin at a point it
        does not implement, one registered twice at a point, bad plugin args, not exactly one
        QueueSort plugin or no Bind plugin. Plugins get a copy of ``handle`` whose
        ``extras["framework"]`` is this framework (preemption runs the filters again)."""
        self.profile_name = profile.scheduler_name
        self.percentage_of_nodes_to_score = profile.percentage_of_nodes_to_score
        self.handle = dataclasses.replace(handle, extras={**handle.extras, "framework": self})
        self.plugins: dict[str, Any] = {}
        self._points: dict[str, list[str]] = {point: [] for point in POINT_METHODS}
        self.score_weights: dict[str, int] = {}
        sets = {point: _as_plugin_set(value) for point, value in profile.plugins.items()}
        for point in sets:
            if point != MULTI_POINT and point not in POINT_METHODS:
                raise ConfigError(f'profile "{self.profile_name}": unknown extension point "{point}"')
        self._build_plugins(sets, profile, registry)
        for point in POINT_METHODS:
            self._points[point] = self._point_plugins(point, sets)
        if sets:
            self._check_required()
        self._weigh_scores(sets)
        self._bind_methods()
        self._events = self._collect_events()
        self._background: set[asyncio.Future[Any]] = set()

    # -- construction ----------------------------------------------------------------------

    def _build_plugins(self, sets: dict[str, PluginSet], profile: Profile, registry: Registry) -> None:
        for plugin_set in sets.values():
            for name, _weight in plugin_set.enabled:
                if name in self.plugins:
                    continue
                factory = registry.get(name)
                if factory is None:
                    raise ConfigError(f'profile "{self.profile_name}": plugin "{name}" does not exist')
                args = dict(profile.plugin_config.get(name) or {})
                try:
                    self.plugins[name] = factory(args, self.handle)
                except ConfigError:
                    raise
                except Exception as err:
                    raise ConfigError(
                        f'profile "{self.profile_name}": initializing plugin "{name}": {err}'
                    ) from err

    def _point_plugins(self, point: str, sets: dict[str, PluginSet]) -> list[str]:
        """Upstream ``updatePluginList`` then ``expandMultiPointPlugins``: explicitly enabled
        plugins that are also in multiPoint come first (in their explicit order), then the
        multiPoint ones, then the remaining explicit ones."""
        method = POINT_METHODS[point]
        own = sets.get(point, PluginSet())
        explicit: list[str] = []
        for name, _weight in own.enabled:
            if not hasattr(self.plugins[name], method):
                raise ConfigError(f'plugin "{name}" does not extend {_title(point)} plugin')
            if name in explicit:
                raise ConfigError(f'plugin "{name}" already registered as "{_title(point)}Plugin"')
            explicit.append(name)
        multi = sets.get(MULTI_POINT)
        if multi is None or "*" in own.disabled:
            return explicit
        overrides: list[str] = []
        expanded: list[str] = []
        for name, _weight in multi.enabled:
            if not hasattr(self.plugins[name], method) or name in own.disabled:
                continue
            if name in explicit:
                overrides.append(name)
                continue
            if name in expanded:
                raise ConfigError(f'plugin "{name}" already registered as "{_title(point)}Plugin"')
            expanded.append(name)
        return (
            [name for name in explicit if name in overrides]
            + expanded
            + [name for name in explicit if name not in overrides]
        )

    def _check_required(self) -> None:
        queue_sort = len(self._points["queueSort"])
        if queue_sort != 1:
            raise ConfigError(
                "only one queue sort plugin required for profile with scheduler name "
                f'"{self.profile_name}", but got {queue_sort}'
            )
        if not self._points["bind"]:
            raise ConfigError(
                f'at least one bind plugin is needed for profile with scheduler name "{self.profile_name}"'
            )

    def _weigh_scores(self, sets: dict[str, PluginSet]) -> None:
        """A Score plugin's weight comes from ``score`` first, else ``multiPoint``; 0 means 1."""
        scoring = set(self._points["score"])
        candidates = [*sets.get("score", PluginSet()).enabled, *sets.get(MULTI_POINT, PluginSet()).enabled]
        for name, weight in candidates:
            if name in scoring and name not in self.score_weights:
                self.score_weights[name] = weight or 1

    def _bind_methods(self) -> None:
        def bound(point: str) -> list[tuple[str, Any]]:
            method = POINT_METHODS[point]
            return [(name, getattr(self.plugins[name], method)) for name in self._points[point]]

        self._pre_enqueue = bound("preEnqueue")
        self._pre_filter = bound("preFilter")
        self._filter: list[tuple[str, FilterFn]] = bound("filter")
        self._post_filter = bound("postFilter")
        self._pre_score = bound("preScore")
        self._score = [
            (
                name,
                fn,
                getattr(self.plugins[name], "score_nodes", None),
                getattr(self.plugins[name], "normalize_scores", None),
                getattr(self.plugins[name], "normalize_score", None),
                self.score_weights[name],
            )
            for name, fn in bound("score")
        ]
        self._reserve = bound("reserve")
        self._unreserve = [
            (name, getattr(self.plugins[name], "unreserve", None))
            for name in reversed(self._points["reserve"])
        ]
        self._permit = bound("permit")
        self._pre_bind = bound("preBind")
        self._bind = bound("bind")
        self._post_bind = bound("postBind")

    def _collect_events(self) -> dict[str, list[ClusterEvent]]:
        """Plugin name -> the cluster events it registered (all events when it registers none)."""
        out: dict[str, list[ClusterEvent]] = {}
        for point in _ENQUEUE_POINTS:
            for name in self._points[point]:
                if name in out:
                    continue
                register = getattr(self.plugins[name], "events_to_register", None)
                out[name] = list(register()) if register is not None else [WILDCARD_EVENT]
        return out

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
        less: Callable[[QueuedPodInfo, QueuedPodInfo], bool] = self.plugins[self._points["queueSort"][0]].less
        return less

    # -- the scheduling cycle --------------------------------------------------------------

    def run_pre_enqueue(self, pod: Object) -> Status:
        """The first plugin that does not admit the pod to the active queue (its status)."""
        for name, fn in self._pre_enqueue:
            status = fn(pod)
            if status.code != Code.SUCCESS:
                return _named(status, name)
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
                return None, _named(status, name), set()
            if status.code == Code.UNSCHEDULABLE:
                rejected = _named(status, name)
                continue
            if status.code != Code.SUCCESS:
                return (
                    None,
                    _error(f'running PreFilter plugin "{name}": {status.message()}', name, status),
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
        for name in self._points["preFilter"]:
            extensions_of = getattr(self.plugins[name], "pre_filter_extensions", None)
            extensions = extensions_of() if extensions_of is not None else None
            if extensions is None or name in state.skip_filter_plugins:
                continue
            status = getattr(extensions, operation)(state, pod, pod_info, node_info)
            if status.code != Code.SUCCESS:
                verb = "AddPod" if operation == "add_pod" else "RemovePod"
                return _error(
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
                return plugin_result, _named(status, name)
            if not status.is_rejected():
                return None, _error(status.message(), name, status)
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
                return _error(f'running PreScore plugin "{name}": {status.message()}', name, status)
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
        columns: dict[str, list[int]] = {}
        skip = state.skip_score_plugins
        for plugin, score, score_nodes, normalize_values, normalize, weight in self._score:
            if plugin in skip:
                continue
            if score_nodes is not None:
                raw, status = score_nodes(state, pod, nodes)
                if status.code:
                    message = f'running Score plugins: plugin "{plugin}" failed with: {status.message()}'
                    return {}, _error(message, plugin, status)
            else:
                raw = []
                append = raw.append
                for node in nodes:
                    value, status = score(state, pod, node)
                    if status.code:
                        message = f'running Score plugins: plugin "{plugin}" failed with: {status.message()}'
                        return {}, _error(message, plugin, status)
                    append(value)
            if normalize_values is not None or normalize is not None:
                if normalize_values is not None:
                    raw, status = normalize_values(state, pod, raw)
                elif normalize is not None:
                    names = [node.name for node in nodes]
                    normalized, status = normalize(state, pod, list(map(NodeScore, names, raw)))
                    raw = [entry.score for entry in normalized]
                if status.code:
                    message = f'running Normalize on Score plugins: plugin "{plugin}" failed with: '
                    message += status.message()
                    return {}, _error(message, plugin, status)
            if raw and (max(raw) > MAX_NODE_SCORE or min(raw) < MIN_NODE_SCORE):
                value = next(v for v in raw if v > MAX_NODE_SCORE or v < MIN_NODE_SCORE)
                message = (
                    f'applying score defaultWeights on Score plugins: plugin "{plugin}" returns an '
                    f"invalid score {value}, it should in the range of [{MIN_NODE_SCORE}, "
                    f"{MAX_NODE_SCORE}] after normalizing"
                )
                return {}, _error(message, plugin, None)
            if weight != 1:
                raw = [value * weight for value in raw]
            columns[plugin] = raw
        return columns, SUCCESS

    def run_reserve(self, state: CycleState, pod: Object, node_name: str) -> Status:
        for name, fn in self._reserve:
            status = fn(state, pod, node_name)
            if status.code == Code.SUCCESS:
                continue
            if status.is_rejected():
                return _named(status, name)
            return _error(f'running Reserve plugin "{name}": {status.message()}', name, status)
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
                return _named(status, name), 0.0
            if status.code == Code.WAIT:
                waits.append(min(float(timeout), MAX_PERMIT_TIMEOUT))
                continue
            return _error(f'running Permit plugin "{name}": {status.message()}', name, status), 0.0
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
                return _named(status, name)
            return _error(f'running PreBind plugin "{name}": {status.message()}', name, status)
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
                return _named(status, name)
            return _error(f'running Bind plugin "{name}": {status.message()}', name, status)
        return status

    def run_post_bind(self, state: CycleState, pod: Object, node_name: str) -> None:
        """Informational; a coroutine a plugin returns runs in the background."""
        for _name, fn in self._post_bind:
            outcome = fn(state, pod, node_name)
            if inspect.isawaitable(outcome):
                task = asyncio.ensure_future(outcome)
                self._background.add(task)
                task.add_done_callback(self._background.discard)


def filter_failure(plugin: str, status: Status) -> Status:
    """A Filter plugin's non-success as the framework reports it: a rejection names the
    plugin; anything else becomes an Error."""
    if status.is_rejected():
        return _named(status, plugin)
    return _error(f'running "{plugin}" filter plugin: {status.message()}', plugin, status)


def _named(status: Status, plugin: str) -> Status:
    return status if status.plugin == plugin else Status(status.code, status.reasons, plugin, status.error)


def _error(message: str, plugin: str, cause: Status | None) -> Status:
    error = cause.error if cause is not None and cause.error is not None else RuntimeError(message)
    return Status(Code.ERROR, (message,), plugin, error)


def _merge_pre_filter_results(a: PreFilterResult | None, b: PreFilterResult) -> PreFilterResult:
    if a is None or a.node_names is None:
        return b
    if b.node_names is None:
        return a
    return PreFilterResult(a.node_names & b.node_names)


async def _maybe_await(value: Any) -> Any:
    return await value if inspect.isawaitable(value) else value


def _as_plugin_set(value: PluginSet | Sequence[tuple[str, int] | str]) -> PluginSet:
    """A PluginSet, or (as the contract's shorthand) a list of (name, weight) or names."""
    if isinstance(value, PluginSet):
        return value
    return PluginSet([(entry, 0) if isinstance(entry, str) else (entry[0], entry[1]) for entry in value])


def _title(point: str) -> str:
    return point[0].upper() + point[1:]
