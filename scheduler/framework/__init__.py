"""The scheduling framework (upstream ``pkg/scheduler/framework``): the Status, the per-cycle
state, NodeInfo, one Protocol per extension point (``extensionpoints``), the typed Handle, the
plugin registry (in-tree, plus the out-of-tree plugins a configuration names), the building
of a profile's plugins and the runtime that runs them."""
