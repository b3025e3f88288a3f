"""The in-tree plugins by name (upstream ``plugins/registry.go``)."""

from __future__ import annotations

from scheduler.framework.interface import PluginFactory
from scheduler.plugins.defaultbinder import DefaultBinder
from scheduler.plugins.defaultpreemption import DefaultPreemption
from scheduler.plugins.imagelocality import ImageLocality
from scheduler.plugins.interpodaffinity.plugin import InterPodAffinity
from scheduler.plugins.nodeaffinity import NodeAffinity
from scheduler.plugins.nodename import NodeName
from scheduler.plugins.nodeports import NodePorts
from scheduler.plugins.noderesources.balancedallocation import NodeResourcesBalancedAllocation
from scheduler.plugins.noderesources.fit import NodeResourcesFit
from scheduler.plugins.nodeunschedulable import NodeUnschedulable
from scheduler.plugins.podtopologyspread.plugin import PodTopologySpread
from scheduler.plugins.prioritysort import PrioritySort
from scheduler.plugins.schedulinggates import SchedulingGates
from scheduler.plugins.tainttoleration import TaintToleration
from scheduler.plugins.volumebinding import VolumeBinding


def in_tree_registry() -> dict[str, PluginFactory]:
    """Plugin name -> factory ``(args, handle)`` (the plugin classes themselves)."""
    return {
        plugin.name: plugin
        for plugin in (
            PrioritySort,
            SchedulingGates,
            NodeName,
            NodeUnschedulable,
            NodeResourcesFit,
            NodeResourcesBalancedAllocation,
            NodePorts,
            NodeAffinity,
            TaintToleration,
            PodTopologySpread,
            InterPodAffinity,
            ImageLocality,
            VolumeBinding,
            DefaultBinder,
            DefaultPreemption,
        )
    }
