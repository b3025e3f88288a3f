"""The scheduling framework (upstream ``pkg/scheduler/framework``): the Status, the per-cycle
state, NodeInfo, the plugin interfaces (one method each, per extension point), the plugin
registry and the runtime that runs a profile's plugins."""
