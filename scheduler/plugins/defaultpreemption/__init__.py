"""DefaultPreemption (upstream ``plugins/defaultpreemption`` with ``framework/preemption``) and the
nominator it and the scheduling loop share."""

from scheduler.plugins.defaultpreemption.nominator import Nominator
from scheduler.plugins.defaultpreemption.plugin import DefaultPreemption

__all__ = ["DefaultPreemption", "Nominator"]
