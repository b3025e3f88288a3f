"""The in-tree registry: every plugin by its upstream name, constructible from ``({}, handle)``,
declaring its events."""

from __future__ import annotations

from scheduler.framework.types import ClusterEvent
from scheduler.plugins.registry import in_tree_registry
from tests.scheduler.builders import make_handle

EXPECTED = {
    "PrioritySort",
    "SchedulingGates",
    "NodeName",
    "NodeUnschedulable",
    "NodeResourcesFit",
    "NodeResourcesBalancedAllocation",
    "NodePorts",
    "NodeAffinity",
    "TaintToleration",
    "PodTopologySpread",
    "InterPodAffinity",
    "ImageLocality",
    "VolumeBinding",
    "DefaultBinder",
}


def test_registry_names_and_factories() -> None:
    registry = in_tree_registry()
    assert set(registry) >= EXPECTED
    for name, factory in registry.items():
        if name == "DefaultPreemption":
            continue
        plugin = factory({}, make_handle())
        assert plugin.name == name
        events = plugin.events_to_register()
        assert all(isinstance(e, ClusterEvent) for e in events)
