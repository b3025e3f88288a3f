"""Deployment strategy arithmetic and annotations (upstream's deployment_util.go)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from controllers.deployment.util.replicasets import (
    REVISION_ANNOTATION,
    replica_count,
    replicas,
)
from minikube_py.api.unstructured import Object

REVISION_HISTORY_ANNOTATION = "deployment.kubernetes.io/revision-history"
DESIRED_REPLICAS_ANNOTATION = "deployment.kubernetes.io/desired-replicas"
MAX_REPLICAS_ANNOTATION = "deployment.kubernetes.io/max-replicas"
LAST_APPLIED_ANNOTATION = "kubectl.kubernetes.io/last-applied-configuration"
ROLLBACK_TO_ANNOTATION = "deprecated.deployment.rollback.to"
MAX_REV_HISTORY_LENGTH = 2000
RECREATE = "Recreate"
ROLLING_UPDATE = "RollingUpdate"
DEFAULT_PROGRESS_DEADLINE = 600
DEFAULT_REVISION_HISTORY_LIMIT = 10
MAX_INT32 = 2**31 - 1

_SKIPPED = {
    LAST_APPLIED_ANNOTATION,
    REVISION_ANNOTATION,
    REVISION_HISTORY_ANNOTATION,
    DESIRED_REPLICAS_ANNOTATION,
    MAX_REPLICAS_ANNOTATION,
    ROLLBACK_TO_ANNOTATION,
}


def strategy_type(d: Object) -> str:
    return str((d["spec"].get("strategy") or {}).get("type") or ROLLING_UPDATE)


def scaled_value(value: Any, total: int, round_up: bool) -> int:
    """An int-or-percent (``3``, ``"25%"``) resolved against ``total``."""
    if isinstance(value, str):
        if not value.endswith("%"):
            return int(value)
        scaled = int(value[:-1]) * total / 100
        return math.ceil(scaled) if round_up else math.floor(scaled)
    return int(value)


def resolve_fenceposts(d: Object) -> tuple[int, int]:
    """(max surge, max unavailable); both zero becomes unavailable 1."""
    rolling = (d["spec"].get("strategy") or {}).get("rollingUpdate") or {}
    desired = replicas(d)
    surge = scaled_value(rolling.get("maxSurge", "25%"), desired, True)
    unavailable = scaled_value(rolling.get("maxUnavailable", "25%"), desired, False)
    if surge == 0 and unavailable == 0:
        unavailable = 1
    return surge, unavailable


def max_surge(d: Object) -> int:
    return resolve_fenceposts(d)[0] if strategy_type(d) == ROLLING_UPDATE else 0


def max_unavailable(d: Object) -> int:
    if strategy_type(d) != ROLLING_UPDATE or replicas(d) == 0:
        return 0
    return min(resolve_fenceposts(d)[1], replicas(d))


def new_rs_new_replicas(d: Object, all_rss: Sequence[Object | None], new_rs: Object) -> int:
    """How many replicas the new ReplicaSet may have now."""
    if strategy_type(d) != ROLLING_UPDATE:
        return replicas(d)
    max_total = replicas(d) + max_surge(d)
    current = replica_count(all_rss)
    if current >= max_total:
        return replicas(new_rs)
    scale_up = min(max_total - current, replicas(d) - replicas(new_rs))
    return replicas(new_rs) + scale_up


def progress_deadline(d: Object) -> int | None:
    """``spec.progressDeadlineSeconds`` (default 600); None when it is MaxInt32 (no deadline)."""
    value = d["spec"].get("progressDeadlineSeconds", DEFAULT_PROGRESS_DEADLINE)
    if value is None or int(value) == MAX_INT32:
        return None
    return int(value)


def revision_history_limit(d: Object) -> int | None:
    value = d["spec"].get("revisionHistoryLimit", DEFAULT_REVISION_HISTORY_LIMIT)
    if value is None or int(value) == MAX_INT32:
        return None
    return int(value)


def annotation_int(rs: Object, name: str) -> int | None:
    value = (rs["metadata"].get("annotations") or {}).get(name)
    try:
        return int(value) if value is not None else None
    except ValueError:
        return None


def set_replicas_annotations(rs: Object, desired: int, maximum: int) -> bool:
    annotations = rs["metadata"].setdefault("annotations", {})
    changed = False
    for name, value in ((DESIRED_REPLICAS_ANNOTATION, desired), (MAX_REPLICAS_ANNOTATION, maximum)):
        if annotations.get(name) != str(value):
            annotations[name] = str(value)
            changed = True
    return changed


def replicas_annotations_need_update(rs: Object, desired: int, maximum: int) -> bool:
    annotations = rs["metadata"].get("annotations") or {}
    return annotations.get(DESIRED_REPLICAS_ANNOTATION) != str(desired) or annotations.get(
        MAX_REPLICAS_ANNOTATION
    ) != str(maximum)


def copy_deployment_annotations(d: Object, rs: Object) -> bool:
    """Copy the deployment's annotations (but the controller's own) onto the ReplicaSet."""
    annotations = rs["metadata"].setdefault("annotations", {})
    changed = False
    for name, value in (d["metadata"].get("annotations") or {}).items():
        if name in _SKIPPED or annotations.get(name) == value:
            continue
        annotations[name] = value
        changed = True
    return changed


def set_new_replica_set_annotations(d: Object, rs: Object, new_revision: int, exists: bool) -> bool:
    """Annotations of the new ReplicaSet: copied ones, the revision (with the history of the
    revisions it had when an old ReplicaSet becomes new again), and replica annotations when
    it is about to be created. Returns whether anything changed."""
    changed = copy_deployment_annotations(d, rs)
    annotations = rs["metadata"]["annotations"]
    old_text = annotations.get(REVISION_ANNOTATION, "")
    try:
        old_revision = int(old_text) if old_text else 0
    except ValueError:
        return False
    if old_revision < new_revision:
        annotations[REVISION_ANNOTATION] = str(new_revision)
        changed = True
        if old_text:
            _append_revision_history(annotations, old_text)
    if not exists and set_replicas_annotations(rs, replicas(d), replicas(d) + max_surge(d)):
        changed = True
    return changed


def _append_revision_history(annotations: dict[str, str], old_revision: str) -> None:
    history = annotations.get(REVISION_HISTORY_ANNOTATION, "")
    if not history:
        annotations[REVISION_HISTORY_ANNOTATION] = old_revision
        return
    revisions = history.split(",")
    total = len(history) + len(old_revision) + 1
    start = 0
    while total > MAX_REV_HISTORY_LENGTH and start < len(revisions):
        total -= len(revisions[start]) + 1
        start += 1
    if total <= MAX_REV_HISTORY_LENGTH:
        annotations[REVISION_HISTORY_ANNOTATION] = ",".join([*revisions[start:], old_revision])


def set_deployment_revision(d: Object, revision: str) -> bool:
    annotations = d["metadata"].setdefault("annotations", {})
    if annotations.get(REVISION_ANNOTATION) == revision:
        return False
    annotations[REVISION_ANNOTATION] = revision
    return True


def is_saturated(d: Object, rs: Object | None) -> bool:
    """The ReplicaSet runs the whole deployment, all available."""
    if rs is None:
        return False
    desired = annotation_int(rs, DESIRED_REPLICAS_ANNOTATION)
    available = int((rs.get("status") or {}).get("availableReplicas") or 0)
    return desired is not None and replicas(rs) == replicas(d) == desired == available


def get_proportion(rs: Object | None, d: Object, to_add: int, added: int) -> int:
    """The share of ``to_add`` replicas (positive or negative) ``rs`` gets."""
    if rs is None or replicas(rs) == 0 or to_add == 0 or to_add == added:
        return 0
    fraction = _replica_set_fraction(rs, d)
    allowed = to_add - added
    return min(fraction, allowed) if to_add > 0 else max(fraction, allowed)


def _replica_set_fraction(rs: Object, d: Object) -> int:
    if replicas(d) == 0:
        return -replicas(rs)
    deployment_replicas = replicas(d) + max_surge(d)
    annotated = annotation_int(rs, MAX_REPLICAS_ANNOTATION)
    if not annotated:
        annotated = int((d.get("status") or {}).get("replicas") or 0)
    if not annotated:
        return 0
    size = replicas(rs) * deployment_replicas / annotated
    return _round_half_away(size) - replicas(rs)


def _round_half_away(value: float) -> int:
    return int(value - 0.5) if value < 0 else int(value + 0.5)
