"""Node conditions (upstream ``pkg/kubelet/nodestatus/setters.go``): MemoryPressure,
DiskPressure, PIDPressure and Ready, in upstream's order, with its reasons and messages.

Inputs come from a ``SignalSource``, a callable returning ``NodeSignals``: the eviction manager
will answer the pressure questions; until then the default source reports no pressure and ready.

Times, as upstream: ``lastHeartbeatTime`` is when the status was computed (it is written on every
report); ``lastTransitionTime`` is when the condition's status last changed, so it is carried
over from the previous conditions (those last reported, or those found on the Node after an agent
restart) while the status stays the same.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from minikube_py.api.timestamps import format_rfc3339

Condition = dict[str, Any]


@dataclass(frozen=True)
class NodeSignals:
    """What the node's health looks like now. ``not_ready``: the errors that keep the node from
    being Ready (``container runtime is down``); empty means Ready."""

    memory_pressure: bool = False
    disk_pressure: bool = False
    pid_pressure: bool = False
    not_ready: tuple[str, ...] = ()


SignalSource = Callable[[], NodeSignals]


def healthy() -> NodeSignals:
    """The default ``SignalSource``: ready, without pressure."""
    return NodeSignals()


# type: (True reason, True message, False reason, False message)
_PRESSURE = (
    (
        "MemoryPressure",
        ("KubeletHasInsufficientMemory", "kubelet has insufficient memory available"),
        ("KubeletHasSufficientMemory", "kubelet has sufficient memory available"),
    ),
    (
        "DiskPressure",
        ("KubeletHasDiskPressure", "kubelet has disk pressure"),
        ("KubeletHasNoDiskPressure", "kubelet has no disk pressure"),
    ),
    (
        "PIDPressure",
        ("KubeletHasInsufficientPID", "kubelet has insufficient PID available"),
        ("KubeletHasSufficientPID", "kubelet has sufficient PID available"),
    ),
)


def node_conditions(signals: NodeSignals, previous: Sequence[Condition], now: float) -> list[Condition]:
    """The four conditions at ``now``, carrying ``lastTransitionTime`` over from ``previous``
    for every condition whose status did not change."""
    pressed = (signals.memory_pressure, signals.disk_pressure, signals.pid_pressure)
    wanted: list[tuple[str, str, str, str]] = []
    for (kind, on, off), pressure in zip(_PRESSURE, pressed, strict=True):
        reason, message = on if pressure else off
        wanted.append((kind, "True" if pressure else "False", reason, message))
    wanted.append(_ready(signals.not_ready))
    before = {str(c.get("type")): c for c in previous}
    stamp = format_rfc3339(now)
    conditions = []
    for kind, status, reason, message in wanted:
        old = before.get(kind)
        unchanged = old is not None and old.get("status") == status and old.get("lastTransitionTime")
        conditions.append(
            {
                "type": kind,
                "status": status,
                "lastHeartbeatTime": stamp,
                "lastTransitionTime": old["lastTransitionTime"] if unchanged and old else stamp,
                "reason": reason,
                "message": message,
            }
        )
    return conditions


def _ready(errors: tuple[str, ...]) -> tuple[str, str, str, str]:
    if not errors:
        return ("Ready", "True", "KubeletReady", "kubelet is posting ready status")
    # upstream's errors.NewAggregate(errs).Error(): one error as is, several as [a, b]
    message = errors[0] if len(errors) == 1 else "[" + ", ".join(errors) + "]"
    return ("Ready", "False", "KubeletNotReady", message)


def without_heartbeats(conditions: Sequence[Condition]) -> list[Condition]:
    """The conditions with ``lastHeartbeatTime`` left out: what "the status changed" compares."""
    return [{k: v for k, v in c.items() if k != "lastHeartbeatTime"} for c in conditions]
