"""Guard: the default profile is upstream's (for the Kubernetes version served) minus the volume
plugins not built here, and every in-tree plugin implements, with the right shape, exactly the
extension points its class declares (its Protocol bases), so the default profile's multiPoint
expansion puts it at those points and no other."""

from __future__ import annotations

import pytest

from apiserver.version import KUBERNETES_MINOR
from scheduler.framework.extensionpoints import POINTS, FilterPlugin, Method, bound_method, implements
from scheduler.framework.profile import MULTI_POINT, PluginSet, default_plugins, default_profile
from scheduler.framework.registry import Registry
from scheduler.framework.runtime import Framework
from scheduler.plugins.registry import in_tree_registry
from tests.scheduler.builders import make_handle

# upstream pkg/scheduler/apis/config/v1 getDefaultPlugins (1.32, no feature gates beyond the
# defaults): name and multiPoint weight (0: unset)
UPSTREAM_DEFAULT = [
    ("SchedulingGates", 0),
    ("PrioritySort", 0),
    ("NodeUnschedulable", 0),
    ("NodeName", 0),
    ("TaintToleration", 3),
    ("NodeAffinity", 2),
    ("NodePorts", 0),
    ("NodeResourcesFit", 1),
    ("VolumeRestrictions", 0),
    ("EBSLimits", 0),
    ("GCEPDLimits", 0),
    ("NodeVolumeLimits", 0),
    ("AzureDiskLimits", 0),
    ("VolumeBinding", 0),
    ("VolumeZone", 0),
    ("PodTopologySpread", 2),
    ("InterPodAffinity", 2),
    ("DefaultPreemption", 0),
    ("NodeResourcesBalancedAllocation", 1),
    ("ImageLocality", 1),
    ("DefaultBinder", 0),
]
# volume plugins that need PV/CSI objects this cluster does not model (documented in profile.py)
NOT_BUILT = {
    "VolumeRestrictions",
    "EBSLimits",
    "GCEPDLimits",
    "NodeVolumeLimits",
    "AzureDiskLimits",
    "VolumeZone",
}


def declared_methods(cls: type) -> list[Method]:
    """Every method of every extension-point Protocol ``cls`` names as a base."""
    methods = []
    for spec in POINTS.values():
        for method in (spec.method, *spec.optional):
            if method.protocol in cls.__mro__:
                methods.append(method)
    return methods


def declared_points(cls: type) -> set[str]:
    return {point for point, spec in POINTS.items() if spec.method.protocol in cls.__mro__}


def test_the_default_profile_is_upstreams_for_the_served_version() -> None:
    assert KUBERNETES_MINOR == 32, "a new version: compare UPSTREAM_DEFAULT with its getDefaultPlugins"
    expected = [entry for entry in UPSTREAM_DEFAULT if entry[0] not in NOT_BUILT]
    assert default_plugins() == {MULTI_POINT: PluginSet(expected)}
    assert set(in_tree_registry()) == {name for name, _ in expected}


@pytest.mark.parametrize("name", sorted(in_tree_registry()))
def test_each_in_tree_plugin_implements_what_it_declares(name: str) -> None:
    factory = in_tree_registry()[name]
    assert isinstance(factory, type)
    plugin = factory({}, make_handle())
    declared = declared_points(factory)
    assert declared, f"{name} declares no extension point"
    assert {point for point in POINTS if implements(plugin, point)} == declared
    for method in declared_methods(factory):
        assert bound_method(plugin, method) is not None, f"{name} declares {method.shape()} but lacks it"


def test_the_default_profile_puts_each_plugin_at_its_declared_points() -> None:
    registry = in_tree_registry()
    fw = Framework(default_profile(), Registry(registry), make_handle())
    by_point = fw.list_plugins()
    for point in POINTS:
        expected = [
            name
            for name, _ in default_plugins()[MULTI_POINT].enabled
            if point in declared_points(registry[name])
        ]
        assert by_point.get(point, []) == expected, point


def test_a_declared_but_unwritten_method_is_caught() -> None:
    """A class that names FilterPlugin but misspells ``filter`` only has the Protocol's
    placeholder: it does not implement Filter, and the guard above would fail for it."""

    class Misspelt(FilterPlugin):
        name = "Misspelt"

        def filtre(self) -> None: ...

    plugin = Misspelt()
    assert not implements(plugin, "filter")
    assert bound_method(plugin, POINTS["filter"].method) is None
    assert declared_points(Misspelt) == {"filter"}
