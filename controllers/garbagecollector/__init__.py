"""The garbage collector: deletes objects whose owners are gone, in the background, in the
foreground (owners wait for blocking dependents) or orphaning dependents (upstream's
``pkg/controller/garbagecollector``)."""

from controllers.garbagecollector.garbagecollector import GarbageCollector, deletable_resources
from controllers.garbagecollector.graph import Node, ObjectReference
from controllers.garbagecollector.graph_builder import GraphBuilder, GraphEvent

GarbageCollectorController = GarbageCollector

__all__ = [
    "GarbageCollector",
    "GarbageCollectorController",
    "GraphBuilder",
    "GraphEvent",
    "Node",
    "ObjectReference",
    "deletable_resources",
]
