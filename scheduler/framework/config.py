"""Scheduler profiles and the ``KubeSchedulerConfiguration`` v1 file that defines them (upstream
``apis/config/v1``: defaults, plugin-set merging, validation).

A profile names its plugins per extension point. Upstream's default profile enables every
default plugin through ``multiPoint``: the framework adds each one to every point it
implements. A configured profile is merged into the default one point by point: ``disabled``
removes default plugins (``"*"``: all of them at that point), an ``enabled`` plugin that is
already a default replaces it in place (new weight), others are appended.

```yaml
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
percentageOfNodesToScore: 50
profiles:
- schedulerName: default-scheduler
  plugins:
    score:
      disabled: [{name: ImageLocality}]
      enabled: [{name: NodeResourcesFit, weight: 5}]
  pluginConfig:
  - name: NodeResourcesFit
    args: {scoringStrategy: {type: MostAllocated}}
```
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

API_VERSION = "kubescheduler.config.k8s.io/v1"
KIND = "KubeSchedulerConfiguration"
DEFAULT_SCHEDULER_NAME = "default-scheduler"
MULTI_POINT = "multiPoint"
EXTENSION_POINTS = (
    "preEnqueue",
    "queueSort",
    "preFilter",
    "filter",
    "postFilter",
    "preScore",
    "score",
    "reserve",
    "permit",
    "preBind",
    "bind",
    "postBind",
)
# fields of the file that are accepted but mean nothing here (one process, no extenders)
_IGNORED_FIELDS = {
    "parallelism",
    "leaderElection",
    "clientConnection",
    "healthzBindAddress",
    "metricsBindAddress",
    "enableProfiling",
    "enableContentionProfiling",
    "delayCacheUntilActive",
}


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


def load_config(
    path: str | Path, *, known_plugins: Iterable[str] | None = None
) -> tuple[list[Profile], int | None]:
    """The profiles and the global ``percentageOfNodesToScore`` of a KubeSchedulerConfiguration
    file. ``known_plugins`` (a registry's names) makes an unknown plugin name a ConfigError here
    rather than when the framework is built."""
    loaded = load_configuration(path, known_plugins=known_plugins)
    return loaded.profiles, loaded.percentage_of_nodes_to_score


def load_configuration(
    path: str | Path, *, known_plugins: Iterable[str] | None = None
) -> SchedulerConfiguration:
    try:
        text = Path(path).read_text()
    except OSError as err:
        raise ConfigError(f"{path}: cannot read: {err.strerror or err}") from err
    return parse_config(text, source=str(path), known_plugins=known_plugins)


def parse_config(
    text: str, *, source: str = "config", known_plugins: Iterable[str] | None = None
) -> SchedulerConfiguration:
    try:
        doc = yaml.safe_load(text)
    except yaml.YAMLError as err:
        raise ConfigError(f"{source}: invalid YAML{_yaml_where(err)}") from err
    return _Parser(source, None if known_plugins is None else set(known_plugins)).configuration(doc)


def _yaml_where(err: yaml.YAMLError) -> str:
    mark = getattr(err, "problem_mark", None)
    problem = getattr(err, "problem", None) or ""
    where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark is not None else ""
    return f"{where}: {problem}" if problem else where


class _Parser:
    def __init__(self, source: str, known: set[str] | None) -> None:
        self.source = source
        self.known = known

    def fail(self, where: str, message: str) -> ConfigError:
        return ConfigError(f"{self.source}: {where}: {message}" if where else f"{self.source}: {message}")

    def mapping(self, value: Any, where: str) -> dict[str, Any]:
        if value is None:
            return {}
        if not isinstance(value, dict):
            raise self.fail(where, f"expected a mapping, got {type(value).__name__}")
        return value

    def sequence(self, value: Any, where: str) -> list[Any]:
        if value is None:
            return []
        if not isinstance(value, list):
            raise self.fail(where, f"expected a list, got {type(value).__name__}")
        return value

    def integer(self, value: Any, where: str, low: int, high: int | None = None) -> int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise self.fail(where, f"expected an integer, got {value!r}")
        if value < low or (high is not None and value > high):
            bounds = f"[{low}-{high}]" if high is not None else f">= {low}"
            raise self.fail(where, f"{value} not in valid range {bounds}")
        return value

    def configuration(self, doc: Any) -> SchedulerConfiguration:
        doc = self.mapping(doc, "")
        if doc.get("apiVersion") != API_VERSION:
            raise self.fail("apiVersion", f"must be {API_VERSION}, got {doc.get('apiVersion')!r}")
        if doc.get("kind") != KIND:
            raise self.fail("kind", f"must be {KIND}, got {doc.get('kind')!r}")
        known_fields = {
            "apiVersion",
            "kind",
            "profiles",
            "percentageOfNodesToScore",
            "podInitialBackoffSeconds",
            "podMaxBackoffSeconds",
            "extenders",
        } | _IGNORED_FIELDS
        self.no_unknown_fields(doc, known_fields, "")
        if doc.get("extenders"):
            raise self.fail("extenders", "scheduler extenders are not supported")
        percentage = doc.get("percentageOfNodesToScore")
        if percentage is not None:
            percentage = self.integer(percentage, "percentageOfNodesToScore", 0, 100)
        initial = self.integer(doc.get("podInitialBackoffSeconds", 1), "podInitialBackoffSeconds", 1)
        maximum = self.integer(doc.get("podMaxBackoffSeconds", 10), "podMaxBackoffSeconds", initial)
        raw_profiles = self.sequence(doc.get("profiles"), "profiles") or [{}]
        profiles = [
            self.profile(raw, f"profiles[{i}]", single=len(raw_profiles) == 1)
            for i, raw in enumerate(raw_profiles)
        ]
        seen: set[str] = set()
        for i, profile in enumerate(profiles):
            if profile.scheduler_name in seen:
                raise self.fail(
                    f"profiles[{i}].schedulerName", f'Duplicate value: "{profile.scheduler_name}"'
                )
            seen.add(profile.scheduler_name)
        return SchedulerConfiguration(profiles, percentage, initial, maximum)

    def no_unknown_fields(self, value: dict[str, Any], known: set[str], where: str) -> None:
        for key in value:
            if key not in known:
                raise self.fail(where, f'unknown field "{key}"')

    def profile(self, raw: Any, where: str, *, single: bool) -> Profile:
        raw = self.mapping(raw, where)
        self.no_unknown_fields(
            raw, {"schedulerName", "plugins", "pluginConfig", "percentageOfNodesToScore"}, where
        )
        name = raw.get("schedulerName")
        if name is None and single:
            name = DEFAULT_SCHEDULER_NAME
        if not isinstance(name, str) or not name:
            raise self.fail(f"{where}.schedulerName", "Required value")
        percentage = raw.get("percentageOfNodesToScore")
        if percentage is not None:
            percentage = self.integer(percentage, f"{where}.percentageOfNodesToScore", 0, 100)
        custom = self.plugins(raw.get("plugins"), f"{where}.plugins")
        plugins = merge_plugins(default_plugins(), custom)
        plugin_config = self.plugin_config(raw.get("pluginConfig"), f"{where}.pluginConfig")
        return Profile(name, plugins, plugin_config, percentage)

    def plugins(self, raw: Any, where: str) -> dict[str, PluginSet]:
        raw = self.mapping(raw, where)
        self.no_unknown_fields(raw, {MULTI_POINT, *EXTENSION_POINTS}, where)
        return {point: self.plugin_set(value, f"{where}.{point}") for point, value in raw.items()}

    def plugin_set(self, raw: Any, where: str) -> PluginSet:
        raw = self.mapping(raw, where)
        self.no_unknown_fields(raw, {"enabled", "disabled"}, where)
        enabled = []
        for i, entry in enumerate(self.sequence(raw.get("enabled"), f"{where}.enabled")):
            name, weight = self.plugin(entry, f"{where}.enabled[{i}]")
            enabled.append((name, weight))
        disabled = [
            self.plugin(entry, f"{where}.disabled[{i}]", wildcard=True)[0]
            for i, entry in enumerate(self.sequence(raw.get("disabled"), f"{where}.disabled"))
        ]
        return PluginSet(enabled, disabled)

    def plugin(self, raw: Any, where: str, *, wildcard: bool = False) -> tuple[str, int]:
        raw = self.mapping(raw, where)
        self.no_unknown_fields(raw, {"name", "weight"}, where)
        name = raw.get("name")
        if not isinstance(name, str) or not name:
            raise self.fail(f"{where}.name", "Required value")
        if self.known is not None and name not in self.known and not (wildcard and name == "*"):
            raise self.fail(f"{where}.name", f'plugin "{name}" does not exist')
        weight = raw.get("weight")
        return name, 0 if weight is None else self.integer(weight, f"{where}.weight", 0)

    def plugin_config(self, raw: Any, where: str) -> dict[str, dict[str, Any]]:
        out: dict[str, dict[str, Any]] = {}
        for i, entry in enumerate(self.sequence(raw, where)):
            entry = self.mapping(entry, f"{where}[{i}]")
            self.no_unknown_fields(entry, {"name", "args"}, f"{where}[{i}]")
            name = entry.get("name")
            if not isinstance(name, str) or not name:
                raise self.fail(f"{where}[{i}].name", "Required value")
            if name in out:
                raise self.fail(f"{where}[{i}]", f"repeated config for plugin {name}")
            if self.known is not None and name not in self.known:
                raise self.fail(f"{where}[{i}].name", f'plugin "{name}" does not exist')
            args = dict(self.mapping(entry.get("args"), f"{where}[{i}].args"))
            args.pop("apiVersion", None)
            args.pop("kind", None)
            out[name] = args
        return out
