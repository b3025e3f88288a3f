"""The ``KubeSchedulerConfiguration`` v1 file (upstream ``apis/config/v1``: decoding, defaults,
validation) and its profiles (``profile``: the types, upstream's default plugins, merging).

A plugin name is an in-tree plugin, or an out-of-tree one (``outoftree``): ``module:Factory``,
``path/to/plugin.py:Factory`` (relative to this file) or an installed entry point's name.
Given a registry (``known_plugins``), loading also builds every profile offline, so a plugin
enabled at a point it does not implement, bad args or a factory that returns no plugin are
refused here, before the scheduler connects.

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

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import yaml

from scheduler.framework import outoftree
from scheduler.framework.build import check_profile
from scheduler.framework.interface import PluginFactory
from scheduler.framework.profile import (
    DEFAULT_SCHEDULER_NAME,
    EXTENSION_POINTS,
    MULTI_POINT,
    ConfigError,
    PluginSet,
    Profile,
    SchedulerConfiguration,
    default_plugins,
    default_profile,
    merge_plugin_set,
    merge_plugins,
)

__all__ = [
    "API_VERSION",
    "DEFAULT_SCHEDULER_NAME",
    "EXTENSION_POINTS",
    "KIND",
    "MULTI_POINT",
    "ConfigError",
    "PluginSet",
    "Profile",
    "SchedulerConfiguration",
    "default_plugins",
    "default_profile",
    "load_config",
    "load_configuration",
    "merge_plugin_set",
    "merge_plugins",
    "parse_config",
]

API_VERSION = "kubescheduler.config.k8s.io/v1"
KIND = "KubeSchedulerConfiguration"
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


def load_config(
    path: str | Path, *, known_plugins: Iterable[str] | None = None
) -> tuple[list[Profile], int | None]:
    """The profiles and the global ``percentageOfNodesToScore`` of a KubeSchedulerConfiguration
    file. ``known_plugins``: a registry (name -> factory) makes every problem of a profile a
    ConfigError here (an unknown plugin, one that does not extend a point it is enabled at,
    bad args...); bare names only check that each plugin exists."""
    loaded = load_configuration(path, known_plugins=known_plugins)
    return loaded.profiles, loaded.percentage_of_nodes_to_score


def load_configuration(
    path: str | Path, *, known_plugins: Iterable[str] | None = None
) -> SchedulerConfiguration:
    try:
        text = Path(path).read_text()
    except OSError as err:
        raise ConfigError(f"{path}: cannot read: {err.strerror or err}") from err
    return parse_config(text, source=str(path), known_plugins=known_plugins, base_dir=Path(path).parent)


def parse_config(
    text: str,
    *,
    source: str = "config",
    known_plugins: Iterable[str] | None = None,
    base_dir: Path | None = None,
) -> SchedulerConfiguration:
    """``base_dir``: where ``path/to/plugin.py:Factory`` references are relative to (None: the
    working directory)."""
    try:
        doc = yaml.safe_load(text)
    except yaml.YAMLError as err:
        raise ConfigError(f"{source}: invalid YAML{_yaml_where(err)}") from err
    known = None if known_plugins is None else set(known_plugins)
    configuration = _Parser(source, known, base_dir).configuration(doc)
    if isinstance(known_plugins, Mapping):
        for i, profile in enumerate(configuration.profiles):
            try:
                check_profile(profile, known_plugins)
            except ConfigError as err:
                raise ConfigError(f"{source}: profiles[{i}]: {err}") from err
    return configuration


def _yaml_where(err: yaml.YAMLError) -> str:
    mark = getattr(err, "problem_mark", None)
    problem = getattr(err, "problem", None) or ""
    where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark is not None else ""
    return f"{where}: {problem}" if problem else where


class _Parser:
    def __init__(self, source: str, known: set[str] | None, base_dir: Path | None) -> None:
        self.source = source
        self.known = known
        self.base_dir = base_dir
        self.out_of_tree: dict[str, PluginFactory] = {}  # this profile's, by reference

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
        self.out_of_tree = {}
        custom = self.plugins(raw.get("plugins"), f"{where}.plugins")
        plugins = merge_plugins(default_plugins(), custom)
        plugin_config = self.plugin_config(raw.get("pluginConfig"), f"{where}.pluginConfig")
        return Profile(name, plugins, plugin_config, percentage, self.out_of_tree)

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
        if not (wildcard and name == "*"):
            self.check_exists(name, f"{where}.name")
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
            self.check_exists(name, f"{where}[{i}].name")
            args = dict(self.mapping(entry.get("args"), f"{where}[{i}].args"))
            args.pop("apiVersion", None)
            args.pop("kind", None)
            out[name] = args
        return out

    def check_exists(self, name: str, where: str) -> None:
        """An in-tree plugin, or an out-of-tree one resolved now (its factory kept for the
        profile); with no registry given, unknown bare names are left to the framework."""
        if (self.known is not None and name in self.known) or name in self.out_of_tree:
            return
        try:
            if outoftree.is_reference(name):
                self.out_of_tree[name] = outoftree.resolve(name, self.base_dir)
                return
            found = outoftree.entry_point(name)
        except outoftree.PluginLoadError as err:
            raise self.fail(where, f'plugin "{name}": {err}') from err
        if found is not None:
            self.out_of_tree[name] = found
        elif self.known is not None:
            raise self.fail(where, f'plugin "{name}" does not exist')
