"""Taints and tolerations: the shared ``minikube_py.scheduling.taints`` (the DaemonSet
controller decides eligibility with the same code, as upstream's share component-helpers)."""

from minikube_py.scheduling.taints import (
    DO_NOT_SCHEDULE_EFFECTS,
    NO_EXECUTE,
    NO_SCHEDULE,
    PREFER_NO_SCHEDULE,
    Taint,
    Toleration,
    find_untolerated_taint,
    node_taints,
    pod_tolerations,
    tolerated,
    tolerates,
)

__all__ = [
    "DO_NOT_SCHEDULE_EFFECTS",
    "NO_EXECUTE",
    "NO_SCHEDULE",
    "PREFER_NO_SCHEDULE",
    "Taint",
    "Toleration",
    "find_untolerated_taint",
    "node_taints",
    "pod_tolerations",
    "tolerated",
    "tolerates",
]
