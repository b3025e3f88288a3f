"""Taints and tolerations (upstream ``v1helper.TolerationsTolerateTaint``)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

Taint = dict[str, Any]
Toleration = dict[str, Any]

NO_SCHEDULE, PREFER_NO_SCHEDULE, NO_EXECUTE = "NoSchedule", "PreferNoSchedule", "NoExecute"
DO_NOT_SCHEDULE_EFFECTS = frozenset({NO_SCHEDULE, NO_EXECUTE})


def tolerates(toleration: Toleration, taint: Taint) -> bool:
    """An empty effect tolerates every effect; an empty key with ``Exists`` every key."""
    effect = toleration.get("effect") or ""
    if effect and effect != taint.get("effect"):
        return False
    key = toleration.get("key") or ""
    if key and key != taint.get("key"):
        return False
    operator = toleration.get("operator") or "Equal"
    if operator == "Exists":
        return True
    if operator == "Equal":
        return (toleration.get("value") or "") == (taint.get("value") or "")
    return False


def tolerated(taint: Taint, tolerations: Iterable[Toleration]) -> bool:
    return any(tolerates(t, taint) for t in tolerations)


def find_untolerated_taint(
    taints: Sequence[Taint], tolerations: Sequence[Toleration], effects: frozenset[str]
) -> Taint | None:
    """The first taint with one of ``effects`` that no toleration tolerates."""
    for taint in taints:
        if taint.get("effect") in effects and not tolerated(taint, tolerations):
            return taint
    return None


def node_taints(node: dict[str, Any] | None) -> list[Taint]:
    taints: list[Taint] = ((node or {}).get("spec") or {}).get("taints") or []
    return taints


def pod_tolerations(pod: dict[str, Any]) -> list[Toleration]:
    tolerations: list[Toleration] = (pod.get("spec") or {}).get("tolerations") or []
    return tolerations
