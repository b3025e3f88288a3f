"""Scheduler profiles (upstream ``apis/config``): a profile names its plugins per extension
point; upstream's default profile enables every default plugin through ``multiPoint`` (the
framework adds each one to every point it implements). A configured profile is merged into
the default one point by point: ``disabled`` removes default plugins (``"*"``: all of them at
that point), an ``enabled`` plugin that is already a default replaces it in place (new
weight), others are appended. ``config`` reads them from a KubeSchedulerConfiguration file."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from scheduler.framework.extensionpoints import POINTS
from scheduler.framework.interface import PluginFactory

DEFAULT_SCHEDULER_NAME = "default-scheduler"
MULTI_POINT = "multiPoint"
EXTENSION_POINTS = tuple(POINTS)  # the points a profile may name, in the order they run


class ConfigError(ValueError):
    """The scheduler configuration cannot be used. One line, naming the file and the field."""


@dataclass
class PluginSet:
    """One extension point's (or ``multiPoint``'s) plugins: ``enabled`` as (name, weight), the
    weight 0 meaning unset (a Score plugin then weighs 1); ``disabled`` names, ``"*"`` all."""

    enabled: list[tuple[str, int]] = field(default_factory=list)
    disabled: list[str] = field(default_factory=list)


@dataclass
class Profile:
    """``plugins`` maps ``multiPoint`` and the extension points (``filter``, ``score``...) to
    their plugin sets; ``plugin_config`` maps a plugin name to its args."""

    scheduler_name: str = DEFAULT_SCHEDULER_NAME
    plugins: dict[str, PluginSet] = field(default_factory=dict)
    plugin_config: dict[str, dict[str, Any]] = field(default_factory=dict)
    percentage_of_nodes_to_score: int | None = None
    out_of_tree: dict[str, PluginFactory] = field(default_factory=dict, compare=False)
    """Factories of the out-of-tree plugins the profile names (import paths, files, entry
    points), resolved when the configuration was loaded; the framework looks a plugin up in
    its registry first, then here (upstream: ``app.WithPlugin`` at build time)."""


@dataclass
class SchedulerConfiguration:
    profiles: list[Profile]
    percentage_of_nodes_to_score: int | None = None
    pod_initial_backoff_seconds: int = 1
    pod_max_backoff_seconds: int = 10


def default_plugins() -> dict[str, PluginSet]:
    """Upstream v1 ``getDefaultPlugins`` minus the volume plugins not built here (VolumeRestrictions,
    the *Limits plugins, VolumeZone)."""
    return {
        MULTI_POINT: PluginSet(
            enabled=[
                ("SchedulingGates", 0),
                ("PrioritySort", 0),
                ("NodeUnschedulable", 0),
                ("NodeName", 0),
                ("TaintToleration", 3),
                ("NodeAffinity", 2),
                ("NodePorts", 0),
                ("NodeResourcesFit", 1),
                ("VolumeBinding", 0),
                ("PodTopologySpread", 2),
                ("InterPodAffinity", 2),
                ("DefaultPreemption", 0),
                ("NodeResourcesBalancedAllocation", 1),
                ("ImageLocality", 1),
                ("DefaultBinder", 0),
            ]
        )
    }


def default_profile(scheduler_name: str = DEFAULT_SCHEDULER_NAME) -> Profile:
    """The profile a scheduler without ``--config`` runs. Plugin args are left empty: each plugin
    applies upstream's defaults for the args it is not given."""
    return Profile(scheduler_name, default_plugins())


def merge_plugin_set(default: PluginSet, custom: PluginSet) -> PluginSet:
    """Upstream ``mergePluginSet``: drop disabled defaults, replace re-enabled ones in place,
    append the other custom plugins. Disabled names are kept for the framework's ``multiPoint``
    expansion."""
    disabled = [*custom.disabled, *default.disabled]
    custom_by_name = {name: (i, weight) for i, (name, weight) in enumerate(custom.enabled)}
    replaced: set[int] = set()
    enabled: list[tuple[str, int]] = []
    if "*" not in disabled:
        for name, weight in default.enabled:
            if name in disabled:
                continue
            if name in custom_by_name:
                index, weight = custom_by_name[name]
                replaced.add(index)
            enabled.append((name, weight))
    enabled.extend(plugin for i, plugin in enumerate(custom.enabled) if i not in replaced)
    return PluginSet(enabled, disabled)


def merge_plugins(default: dict[str, PluginSet], custom: dict[str, PluginSet]) -> dict[str, PluginSet]:
    out: dict[str, PluginSet] = {}
    for point in (MULTI_POINT, *EXTENSION_POINTS):
        if point in default or point in custom:
            out[point] = merge_plugin_set(default.get(point, PluginSet()), custom.get(point, PluginSet()))
    return out
