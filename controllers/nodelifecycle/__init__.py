"""Node lifecycle: node health from heartbeats and Leases, condition and NoExecute taints
(``NodeLifecycleController``), and eviction of pods that do not tolerate NoExecute taints
(``TaintEvictionController``) — upstream's ``pkg/controller/nodelifecycle`` and
``pkg/controller/tainteviction``."""

from controllers.nodelifecycle.controller import NodeLifecycleController
from controllers.nodelifecycle.tainteviction import TaintEvictionController

__all__ = ["NodeLifecycleController", "TaintEvictionController"]
