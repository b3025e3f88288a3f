"""Building a profile's plugins (upstream ``NewFramework``): each plugin once from its factory,
then each extension point's list (explicit entries, then the ``multiPoint`` plugins that
implement the point), the Score weights and the cluster events each plugin registered.

Every check happens here, so a configuration is refused before the scheduler connects
(``check_profile`` builds with an offline handle): an unknown plugin, a plugin enabled at a
point it does not implement (``plugin "X" does not extend FilterPlugin plugin``), a method
of the wrong shape, one registered twice at a point, bad plugin args, not exactly one
QueueSort plugin or no Bind plugin.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from minikube_py.api.scheme import ResourceType
from minikube_py.api.unstructured import Object
from minikube_py.client.interfaces import ResourceClient
from minikube_py.clock import RealClock
from scheduler.framework.extensionpoints import (
    ENQUEUE_EXTENSIONS,
    POINTS,
    ConformanceError,
    bound_method,
    implemented_points,
    implements,
    near_misses,
)
from scheduler.framework.interface import Handle, PluginFactory
from scheduler.framework.profile import MULTI_POINT, ConfigError, PluginSet, Profile
from scheduler.framework.types import ActionType, ClusterEvent, NodeInfo

# plugins at these points tell the queue which cluster events may make a rejected pod fit
_ENQUEUE_POINTS = ("preEnqueue", "preFilter", "filter", "reserve", "permit")
WILDCARD_EVENT = ClusterEvent("*", ActionType.ALL, "WildCardEvent")


@dataclass
class ProfilePlugins:
    """A built profile: plugin name -> plugin; point -> plugin names in the order they run;
    Score plugin -> weight; plugin -> the cluster events it registered."""

    plugins: dict[str, Any] = field(default_factory=dict)
    points: dict[str, list[str]] = field(default_factory=dict)
    score_weights: dict[str, int] = field(default_factory=dict)
    events: dict[str, list[ClusterEvent]] = field(default_factory=dict)


def build_plugins(profile: Profile, registry: Mapping[str, PluginFactory], handle: Handle) -> ProfilePlugins:
    """ConfigError names the plugin and what is wrong with it."""
    name = profile.scheduler_name
    sets = {point: as_plugin_set(value) for point, value in profile.plugins.items()}
    for point in sets:
        if point != MULTI_POINT and point not in POINTS:
            raise ConfigError(f'profile "{name}": unknown extension point "{point}"')
    built = ProfilePlugins()
    _instantiate(built, sets, profile, registry, handle)
    for point in POINTS:
        built.points[point] = _point_plugins(built.plugins, point, sets)
    for plugin_name, plugin in built.plugins.items():
        if plugin_name not in registry:
            _check_out_of_tree(plugin_name, plugin)
    if sets:
        _check_required(built.points, name)
    _weigh_scores(built, sets)
    built.events = _collect_events(built)
    return built


def check_profile(profile: Profile, registry: Mapping[str, PluginFactory]) -> None:
    """Build ``profile`` once, offline, only to find its ConfigErrors (factories get a handle
    whose client refuses every call: they must not talk to the cluster)."""
    build_plugins(profile, registry, offline_handle())


def _instantiate(
    built: ProfilePlugins,
    sets: dict[str, PluginSet],
    profile: Profile,
    registry: Mapping[str, PluginFactory],
    handle: Handle,
) -> None:
    for plugin_set in sets.values():
        for name, _weight in plugin_set.enabled:
            if name in built.plugins:
                continue
            factory = registry.get(name) or profile.out_of_tree.get(name)
            if factory is None:
                raise ConfigError(f'profile "{profile.scheduler_name}": plugin "{name}" does not exist')
            args = dict(profile.plugin_config.get(name) or {})
            try:
                built.plugins[name] = factory(args, handle)
            except ConfigError:
                raise
            except Exception as err:
                raise ConfigError(
                    f'profile "{profile.scheduler_name}": initializing plugin "{name}": {err}'
                ) from err


def _check_out_of_tree(name: str, plugin: object) -> None:
    """An out-of-tree plugin must implement some point: otherwise its factory returned
    something else, or every method is misspelt (both silently inert under multiPoint)."""
    try:
        points = implemented_points(plugin)
    except ConformanceError as err:
        raise ConfigError(f'plugin "{name}": {err}') from err
    if not points:
        hints = near_misses(plugin)
        hint = f"; did you mean: {', '.join(hints)}" if hints else ""
        raise ConfigError(
            f'plugin "{name}": its factory returned a {type(plugin).__name__}, which implements '
            f"no extension point{hint}"
        )


def _extends(plugins: dict[str, Any], name: str, point: str) -> bool:
    try:
        return implements(plugins[name], point)
    except ConformanceError as err:
        raise ConfigError(f'plugin "{name}" does not extend {POINTS[point].interface} plugin: {err}') from err


def _point_plugins(plugins: dict[str, Any], point: str, sets: dict[str, PluginSet]) -> list[str]:
    """Upstream ``updatePluginList`` then ``expandMultiPointPlugins``: explicitly enabled
    plugins that are also in multiPoint come first (in their explicit order), then the
    multiPoint ones, then the remaining explicit ones."""
    interface = POINTS[point].interface
    own = sets.get(point, PluginSet())
    explicit: list[str] = []
    for name, _weight in own.enabled:
        if not _extends(plugins, name, point):
            hints = near_misses(plugins[name])
            hint = f" (did you mean: {', '.join(hints)})" if hints else ""
            raise ConfigError(f'plugin "{name}" does not extend {interface} plugin{hint}')
        if name in explicit:
            raise ConfigError(f'plugin "{name}" already registered as "{interface}"')
        explicit.append(name)
    multi = sets.get(MULTI_POINT)
    if multi is None or "*" in own.disabled:
        return explicit
    overrides: list[str] = []
    expanded: list[str] = []
    for name, _weight in multi.enabled:
        if not _extends(plugins, name, point) or name in own.disabled:
            continue
        if name in explicit:
            overrides.append(name)
            continue
        if name in expanded:
            raise ConfigError(f'plugin "{name}" already registered as "{interface}"')
        expanded.append(name)
    return (
        [name for name in explicit if name in overrides]
        + expanded
        + [name for name in explicit if name not in overrides]
    )


def _check_required(points: dict[str, list[str]], profile_name: str) -> None:
    queue_sort = len(points["queueSort"])
    if queue_sort != 1:
        raise ConfigError(
            "only one queue sort plugin required for profile with scheduler name "
            f'"{profile_name}", but got {queue_sort}'
        )
    if not points["bind"]:
        raise ConfigError(
            f'at least one bind plugin is needed for profile with scheduler name "{profile_name}"'
        )


def _weigh_scores(built: ProfilePlugins, sets: dict[str, PluginSet]) -> None:
    """A Score plugin's weight comes from ``score`` first, else ``multiPoint``; 0 means 1."""
    scoring = set(built.points["score"])
    candidates = [*sets.get("score", PluginSet()).enabled, *sets.get(MULTI_POINT, PluginSet()).enabled]
    for name, weight in candidates:
        if name in scoring and name not in built.score_weights:
            built.score_weights[name] = weight or 1


def _collect_events(built: ProfilePlugins) -> dict[str, list[ClusterEvent]]:
    """Plugin name -> the cluster events it registered (all events when it registers none)."""
    out: dict[str, list[ClusterEvent]] = {}
    for point in _ENQUEUE_POINTS:
        for name in built.points[point]:
            if name in out:
                continue
            try:
                register = bound_method(built.plugins[name], ENQUEUE_EXTENSIONS)
            except ConformanceError as err:
                raise ConfigError(f'plugin "{name}": {err}') from err
            out[name] = list(register()) if register is not None else [WILDCARD_EVENT]
    return out


def as_plugin_set(value: PluginSet | Sequence[tuple[str, int] | str]) -> PluginSet:
    """A PluginSet, or (as the contract's shorthand) a list of (name, weight) or names."""
    if isinstance(value, PluginSet):
        return value
    return PluginSet([(entry, 0) if isinstance(entry, str) else (entry[0], entry[1]) for entry in value])


class _OfflineClient:
    """The client of ``check_profile``'s handle: there is no cluster yet."""

    def resource(self, resource_type: ResourceType, namespace: str | None = None) -> ResourceClient:
        raise RuntimeError(
            "a plugin factory must not call the API server (the configuration is being checked)"
        )

    async def close(self) -> None:
        return None


class _NoSnapshot:
    def list(self) -> Sequence[NodeInfo]:
        return ()

    def get(self, node_name: str) -> NodeInfo | None:
        return None

    def have_pods_with_affinity_list(self) -> Sequence[NodeInfo]:
        return ()

    def have_pods_with_required_anti_affinity_list(self) -> Sequence[NodeInfo]:
        return ()

    def num_nodes_with_image(self, image: str) -> int:
        return 0


class _NoRecorder:
    def event(self, obj: Object, event_type: str, reason: str, message: str) -> None:
        return None


def offline_handle() -> Handle:
    return Handle(_OfflineClient(), _NoSnapshot(), _NoRecorder(), RealClock())
