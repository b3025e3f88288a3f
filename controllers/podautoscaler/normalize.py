"""From the metrics' proposal to the replicas to set (upstream's ``normalizeDesiredReplicas`` and
``normalizeDesiredReplicasWithBehaviors``), with the per-HPA history they read: the recent
recommendations (stabilization windows) and the recent scale events (rate policies).

Without a ``behavior``, scale-down is stabilized over the downscale window (the highest
recommendation of the last 300 s wins) and scale-up is capped at max(2 x current, 4). With one,
each direction has its stabilization window and its policies (``Pods``/``Percent`` per period,
``selectPolicy`` Max/Min/Disabled). Conditions: AbleToScale (``ScaleUpStabilized``,
``ScaleDownStabilized``, ``ReadyForNewScale``) and ScalingLimited (``TooManyReplicas``,
``TooFewReplicas``, ``ScaleUpLimit``, ``ScaleDownLimit``, ``DesiredWithinRange``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from controllers.podautoscaler.conditions import set_condition
from minikube_py.api.unstructured import Object

DOWNSCALE_STABILIZATION = 300.0  # --horizontal-pod-autoscaler-downscale-stabilization
SCALE_UP_LIMIT_FACTOR, SCALE_UP_LIMIT_MINIMUM = 2.0, 4.0
INT32_MAX, INT32_MIN = 2**31 - 1, -(2**31)
STABILIZED_UP = (
    "recent recommendations were lower than current one, applying the lowest recent recommendation"
)
STABILIZED_DOWN = (
    "recent recommendations were higher than current one, applying the highest recent recommendation"
)
WITHIN_RANGE = ("DesiredWithinRange", "the desired count is within the acceptable range")
SCALE_UP_LIMIT = (
    "ScaleUpLimit",
    "the desired replica count is increasing faster than the maximum scale rate",
)
SCALE_DOWN_LIMIT = (
    "ScaleDownLimit",
    "the desired replica count is decreasing faster than the maximum scale rate",
)
TOO_MANY = ("TooManyReplicas", "the desired replica count is more than the maximum replica count")
TOO_FEW = ("TooFewReplicas", "the desired replica count is less than the minimum replica count")


@dataclass
class History:
    """What one HPA's past syncs leave: (replicas, time) recommendations and scale events."""

    recommendations: list[tuple[int, float]] = field(default_factory=list)
    scale_ups: list[tuple[int, float]] = field(default_factory=list)
    scale_downs: list[tuple[int, float]] = field(default_factory=list)

    def record_scale(self, behavior: Any, previous: int, new: int, now: float) -> None:
        """Upstream's ``storeScaleEvent`` (only with a behavior), events older than the longest
        policy period of their direction dropped."""
        if not isinstance(behavior, dict):
            return
        up = new > previous
        events = self.scale_ups if up else self.scale_downs
        rules = behavior.get("scaleUp" if up else "scaleDown") or {}
        longest = max((int(p.get("periodSeconds") or 0) for p in rules.get("policies") or []), default=0)
        events[:] = [(change, at) for change, at in events if at > now - longest]
        events.append((abs(new - previous), now))


def _record(history: History, desired: int, now: float, stale: float) -> None:
    """Replace one recommendation older than ``stale`` (or append) with ``desired``."""
    for i, (_, at) in enumerate(history.recommendations):
        if at < stale:
            history.recommendations[i] = (desired, now)
            return
    history.recommendations.append((desired, now))


def normalize(hpa: Object, history: History, current: int, desired: int, minimum: int, now: float) -> int:
    """Upstream's ``normalizeDesiredReplicas`` (no behavior)."""
    cutoff = now - DOWNSCALE_STABILIZATION
    stabilized = max([desired, *(r for r, at in history.recommendations if at >= cutoff)])
    _record(history, desired, now, cutoff)
    if stabilized != desired:
        set_condition(hpa, "AbleToScale", "True", "ScaleDownStabilized", STABILIZED_DOWN, now)
    else:
        set_condition(
            hpa, "AbleToScale", "True", "ReadyForNewScale", "recommended size matches current size", now
        )
    maximum = hpa["spec"]["maxReplicas"]
    limit = int(max(SCALE_UP_LIMIT_FACTOR * current, SCALE_UP_LIMIT_MINIMUM))
    if maximum > limit:
        allowed, reason = limit, SCALE_UP_LIMIT
    else:
        allowed, reason = maximum, TOO_MANY
    if stabilized < minimum:
        result, reason = (
            minimum,
            ("TooFewReplicas", "the desired replica count is less than the minimum replica count"),
        )
    elif stabilized > allowed:
        result = allowed
    else:
        result, reason = stabilized, WITHIN_RANGE
    set_condition(hpa, "ScalingLimited", "False" if result == stabilized else "True", *reason, now)
    return result


def _changed_within(period: int, events: list[tuple[int, float]], now: float) -> int:
    return sum(change for change, at in events if at > now - period)


def _period_start(current: int, period: int, history: History, now: float) -> int:
    """The replicas at the start of the last ``period`` seconds."""
    return (
        current
        - _changed_within(period, history.scale_ups, now)
        + _changed_within(period, history.scale_downs, now)
    )


def scale_up_limit(current: int, history: History, rules: Object, now: float) -> int:
    """Upstream's ``calculateScaleUpLimitWithScalingRules``."""
    select = rules.get("selectPolicy") or "Max"
    if select == "Disabled":
        return current
    pick, result = (min, INT32_MAX) if select == "Min" else (max, INT32_MIN)
    for policy in rules.get("policies") or []:
        period = int(policy.get("periodSeconds") or 0)
        start = _period_start(current, period, history, now)
        value = int(policy.get("value") or 0)
        proposed = start + value if policy.get("type") == "Pods" else math.ceil(start * (1 + value / 100))
        result = pick(result, proposed)
    return result


def scale_down_limit(current: int, history: History, rules: Object, now: float) -> int:
    """Upstream's ``calculateScaleDownLimitWithBehaviors``."""
    select = rules.get("selectPolicy") or "Max"
    if select == "Disabled":
        return current
    pick, result = (max, INT32_MIN) if select == "Min" else (min, INT32_MAX)
    for policy in rules.get("policies") or []:
        period = int(policy.get("periodSeconds") or 0)
        start = _period_start(current, period, history, now)
        value = int(policy.get("value") or 0)
        proposed = start - value if policy.get("type") == "Pods" else int(start * (1 - value / 100))
        result = pick(result, proposed)
    return result


def normalize_with_behavior(
    hpa: Object, history: History, current: int, desired: int, minimum: int, now: float
) -> int:
    """Upstream's ``normalizeDesiredReplicasWithBehaviors``; the scale-down window defaults to
    the controller's downscale stabilization when the behavior leaves it unset."""
    behavior = hpa["spec"]["behavior"]
    up, down = behavior.get("scaleUp") or {}, behavior.get("scaleDown") or {}
    up_window = int(up.get("stabilizationWindowSeconds") or 0)
    down_window = down.get("stabilizationWindowSeconds")
    down_window = DOWNSCALE_STABILIZATION if down_window is None else float(down_window)
    up_cutoff, down_cutoff = now - up_window, now - down_window
    up_rec = min([desired, *(r for r, at in history.recommendations if at > up_cutoff)])
    down_rec = max([desired, *(r for r, at in history.recommendations if at > down_cutoff)])
    stabilized = min(max(current, up_rec), down_rec)
    _record(history, desired, now, min(up_cutoff, down_cutoff))
    if stabilized != desired:
        reason = (
            ("ScaleUpStabilized", STABILIZED_UP)
            if desired >= current
            else ("ScaleDownStabilized", STABILIZED_DOWN)
        )
        set_condition(hpa, "AbleToScale", "True", *reason, now)
    else:
        set_condition(
            hpa, "AbleToScale", "True", "ReadyForNewScale", "recommended size matches current size", now
        )
    result, limited = _rate_limited(hpa, history, current, stabilized, minimum, up, down, now)
    set_condition(hpa, "ScalingLimited", "False" if result == stabilized else "True", *limited, now)
    return result


def _rate_limited(
    hpa: Object,
    history: History,
    current: int,
    desired: int,
    minimum: int,
    up: Object,
    down: Object,
    now: float,
) -> tuple[int, tuple[str, str]]:
    """Upstream's ``convertDesiredReplicasWithBehaviorRate``."""
    if desired > current:
        limit = max(scale_up_limit(current, history, up, now), current)
        maximum = hpa["spec"]["maxReplicas"]
        if maximum > limit:
            maximum, reason = limit, SCALE_UP_LIMIT
        else:
            reason = TOO_MANY
        if desired > maximum:
            return maximum, reason
    elif desired < current:
        limit = min(scale_down_limit(current, history, down, now), current)
        if minimum < limit:
            minimum, reason = limit, SCALE_DOWN_LIMIT
        else:
            reason = TOO_FEW
        if desired < minimum:
            return minimum, reason
    return desired, WITHIN_RANGE
