"""KubeSchedulerConfiguration v1 files, upstream's default profile, and the plugin Registry."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from scheduler.framework.config import (
    ConfigError,
    PluginSet,
    Profile,
    default_profile,
    load_config,
    load_configuration,
    merge_plugin_set,
)
from scheduler.framework.registry import Registry
from scheduler.framework.runtime import Framework
from scheduler.framework.status import SUCCESS
from tests.scheduler.framework.stubs import Binder, Sort, make_handle, plugin

DEFAULT_MULTI_POINT = [
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
HEADER = "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"


def write(tmp_path: Path, body: str) -> Path:
    path = tmp_path / "scheduler.yaml"
    path.write_text(HEADER + body)
    return path


def test_default_profile_is_upstreams_multi_point_set() -> None:
    profile = default_profile()
    assert profile.scheduler_name == "default-scheduler"
    assert profile.plugins == {"multiPoint": PluginSet(DEFAULT_MULTI_POINT)}
    assert profile.plugin_config == {} and profile.percentage_of_nodes_to_score is None


def test_an_empty_configuration_is_the_default_profile(tmp_path: Path) -> None:
    profiles, percentage = load_config(write(tmp_path, ""))
    assert percentage is None
    [profile] = profiles
    assert profile.scheduler_name == "default-scheduler"
    assert profile.plugins["multiPoint"].enabled == DEFAULT_MULTI_POINT


def test_disable_reweigh_and_configure_plugins(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        """
percentageOfNodesToScore: 40
podMaxBackoffSeconds: 20
profiles:
- schedulerName: default-scheduler
  percentageOfNodesToScore: 70
  plugins:
    multiPoint:
      disabled: [{name: ImageLocality}]
      enabled: [{name: TaintToleration, weight: 9}]
    score:
      disabled: [{name: NodeResourcesBalancedAllocation}]
  pluginConfig:
  - name: NodeResourcesFit
    args:
      apiVersion: kubescheduler.config.k8s.io/v1
      kind: NodeResourcesFitArgs
      scoringStrategy: {type: MostAllocated}
""",
    )
    loaded = load_configuration(path)
    assert (loaded.percentage_of_nodes_to_score, loaded.pod_initial_backoff_seconds) == (40, 1)
    assert loaded.pod_max_backoff_seconds == 20
    [profile] = loaded.profiles
    multi = profile.plugins["multiPoint"]
    names = [name for name, _ in multi.enabled]
    assert "ImageLocality" not in names
    assert ("TaintToleration", 9) in multi.enabled
    assert names.index("TaintToleration") == 4  # replaced in place, order kept
    assert profile.plugins["score"] == PluginSet([], ["NodeResourcesBalancedAllocation"])
    assert profile.plugin_config == {"NodeResourcesFit": {"scoringStrategy": {"type": "MostAllocated"}}}
    assert profile.percentage_of_nodes_to_score == 70


def test_two_profiles_with_different_scheduler_names(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        """
profiles:
- schedulerName: default-scheduler
- schedulerName: no-scoring
  plugins:
    preScore: {disabled: [{name: '*'}]}
    score: {disabled: [{name: '*'}]}
""",
    )
    profiles, _ = load_config(path)
    assert [p.scheduler_name for p in profiles] == ["default-scheduler", "no-scoring"]
    assert profiles[1].plugins["score"] == PluginSet([], ["*"])
    assert profiles[0].plugins.keys() == {"multiPoint"}


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (
            "profiles: [{schedulerName: a}, {schedulerName: a}]",
            'profiles\\[1\\].schedulerName: Duplicate value: "a"',
        ),
        ("profiles: [{schedulerName: a}, {}]", "profiles\\[1\\].schedulerName: Required value"),
        ("percentageOfNodesToScore: 101", "percentageOfNodesToScore: 101 not in valid range \\[0-100\\]"),
        ("profiles: [{plugins: {filters: {}}}]", 'profiles\\[0\\].plugins: unknown field "filters"'),
        ("profiles: [{plugins: {score: {enabled: [{weight: 2}]}}}]", "enabled\\[0\\].name: Required value"),
        ("profiles: [{plugins: {score: {enabled: [{name: X, weight: -1}]}}}]", "-1 not in valid range"),
        ("bogus: 1", 'unknown field "bogus"'),
        ("extenders: [{urlPrefix: 'http://x'}]", "extenders are not supported"),
        (
            "profiles: [{pluginConfig: [{name: A, args: {}}, {name: A, args: {}}]}]",
            "repeated config for plugin A",
        ),
        (
            "podInitialBackoffSeconds: 5\npodMaxBackoffSeconds: 2",
            "podMaxBackoffSeconds: 2 not in valid range",
        ),
    ],
)
def test_invalid_configurations(tmp_path: Path, body: str, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        load_config(write(tmp_path, body))


def test_wrong_api_version(tmp_path: Path) -> None:
    path = tmp_path / "c.yaml"
    path.write_text("apiVersion: kubescheduler.config.k8s.io/v1beta3\nkind: KubeSchedulerConfiguration\n")
    with pytest.raises(ConfigError, match=r"apiVersion: must be kubescheduler\.config\.k8s\.io/v1,"):
        load_config(path)


def test_an_unknown_plugin_is_named(tmp_path: Path) -> None:
    path = write(tmp_path, "profiles: [{plugins: {filter: {enabled: [{name: NodeNmae}]}}}]")
    with pytest.raises(ConfigError, match=r'filter\.enabled\[0\]\.name: plugin "NodeNmae" does not exist'):
        load_config(path, known_plugins=[name for name, _ in DEFAULT_MULTI_POINT])
    profiles, _ = load_config(path)  # without a registry the framework catches it
    registry = Registry({name: (lambda a, h: plugin()) for name, _ in DEFAULT_MULTI_POINT})
    with pytest.raises(ConfigError, match='plugin "NodeNmae" does not exist'):
        Framework(profiles[0], registry, make_handle())


def test_bad_yaml_and_missing_files_are_one_line(tmp_path: Path) -> None:
    path = write(tmp_path, "profiles:\n  - schedulerName: [unclosed\n")
    with pytest.raises(ConfigError) as caught:
        load_config(path)
    assert "\n" not in str(caught.value)
    assert str(caught.value).startswith(f"{path}: invalid YAML at line")
    with pytest.raises(ConfigError, match="cannot read"):
        load_config(tmp_path / "missing.yaml")
    path.write_text("- just a list")
    with pytest.raises(ConfigError, match="expected a mapping"):
        load_config(path)


def test_merge_plugin_set() -> None:
    default = PluginSet([("A", 1), ("B", 2), ("C", 0)])
    assert merge_plugin_set(default, PluginSet([("B", 5), ("D", 1)], ["C"])) == PluginSet(
        [("A", 1), ("B", 5), ("D", 1)], ["C"]
    )
    assert merge_plugin_set(default, PluginSet([("C", 0)], ["*"])) == PluginSet([("C", 0)], ["*"])


def test_a_configured_profile_builds_with_multi_point_and_point_overrides(tmp_path: Path) -> None:
    """A config file's profile through the Framework: disabled plugins are gone from the points
    they implement, a score-only disable keeps the plugin's filter."""
    path = write(
        tmp_path,
        """
profiles:
- schedulerName: custom
  plugins:
    multiPoint:
      enabled: [{name: Sorter}, {name: Bind}, {name: Fit, weight: 3}, {name: Taints, weight: 1}]
    score:
      disabled: [{name: Taints}]
""",
    )
    registry = Registry()
    registry.register("Sorter", lambda a, h: Sort())
    registry.register("Bind", lambda a, h: Binder())
    both: dict[str, Any] = {"filter": lambda s, p, n: SUCCESS, "score": lambda s, p, n: (0, SUCCESS)}
    registry.register("Fit", lambda a, h: plugin(**both))
    registry.register("Taints", lambda a, h: plugin(**both))
    registry.register("DefaultBinder", lambda a, h: Binder())
    # the defaults are merged in too: register them as no-ops
    for name, _ in DEFAULT_MULTI_POINT:
        if name not in registry:
            registry.register(name, lambda a, h: plugin())
    [profile] = load_config(path, known_plugins=registry)[0]
    fw = Framework(profile, registry, make_handle())
    assert fw.list_plugins() == {
        "queueSort": ["Sorter"],
        "filter": ["Fit", "Taints"],
        "score": ["Fit"],
        "bind": ["DefaultBinder", "Bind"],
    }
    assert fw.score_weights == {"Fit": 3}


def test_profile_plugins_may_be_plain_lists() -> None:
    registry = Registry({"Sort": lambda a, h: Sort(), "Bind": lambda a, h: Binder()})
    fw = Framework(Profile("x", {"queueSort": ["Sort"], "bind": [("Bind", 0)]}), registry, make_handle())  # type: ignore[dict-item]
    assert fw.list_plugins() == {"queueSort": ["Sort"], "bind": ["Bind"]}


def test_registry_register_merge_and_duplicates() -> None:
    def factory(args: dict[str, Any], handle: Any) -> Any:
        return plugin()

    registry = Registry({"A": factory})
    registry.register("B", factory)
    with pytest.raises(ValueError, match="a plugin named A already exists"):
        registry.register("A", factory)
    with pytest.raises(ValueError, match="a plugin named B already exists"):
        registry.merge({"C": factory, "B": factory})
    assert "C" not in registry
    registry.merge(Registry({"C": factory}))
    assert sorted(registry) == ["A", "B", "C"]
    registry.unregister("C")
    with pytest.raises(ValueError):
        registry.unregister("C")
