"""ReplicaSet arithmetic and ordering for Deployments (upstream's deployment_util.go)."""

from __future__ import annotations

import copy
import functools
from collections.abc import Iterable, Sequence
from typing import Any

from minikube_py.api.timestamps import parse_rfc3339 as parse_time
from minikube_py.api.unstructured import Object

POD_TEMPLATE_HASH_LABEL = "pod-template-hash"


def replicas(rs: Object) -> int:
    return int((rs.get("spec") or {}).get("replicas", 1))


def _status(rs: Object, field: str) -> int:
    return int((rs.get("status") or {}).get(field) or 0)


def replica_count(rss: Iterable[Object | None]) -> int:
    """Sum of ``spec.replicas`` (upstream's ``GetReplicaCountForReplicaSets``)."""
    return sum(replicas(rs) for rs in rss if rs is not None)


def actual_replica_count(rss: Iterable[Object | None]) -> int:
    return sum(_status(rs, "replicas") for rs in rss if rs is not None)


def ready_replica_count(rss: Iterable[Object | None]) -> int:
    return sum(_status(rs, "readyReplicas") for rs in rss if rs is not None)


def available_replica_count(rss: Iterable[Object | None]) -> int:
    return sum(_status(rs, "availableReplicas") for rs in rss if rs is not None)


def filter_active(rss: Iterable[Object | None]) -> list[Object]:
    """ReplicaSets with ``spec.replicas > 0``."""
    return [rs for rs in rss if rs is not None and replicas(rs) > 0]


def _created(rs: Object) -> float:
    return parse_time(rs["metadata"].get("creationTimestamp")) or 0.0


def _by_creation(a: Object, b: Object) -> int:
    ta, tb = _created(a), _created(b)
    if ta != tb:
        return -1 if ta < tb else 1
    na, nb = str(a["metadata"]["name"]), str(b["metadata"]["name"])
    return int(na > nb) - int(na < nb)


def sort_by_creation(rss: Iterable[Object]) -> list[Object]:
    """Oldest first; equal times by name."""
    return sorted(rss, key=functools.cmp_to_key(_by_creation))


def sort_by_revision(rss: Iterable[Object]) -> list[Object]:
    """Lowest revision first; unparsable or equal revisions by creation time."""

    def compare(a: Object, b: Object) -> int:
        ra, rb = revision(a), revision(b)
        if ra is None or rb is None or ra == rb:
            return _by_creation(a, b)
        return -1 if ra < rb else 1

    return sorted(rss, key=functools.cmp_to_key(compare))


def sort_by_size(rss: Iterable[Object], *, newer_first: bool) -> list[Object]:
    """Largest first; equal sizes newer first (scaling up) or older first (scaling down)."""

    def compare(a: Object, b: Object) -> int:
        if replicas(a) != replicas(b):
            return -1 if replicas(a) > replicas(b) else 1
        return -_by_creation(a, b) if newer_first else _by_creation(a, b)

    return sorted(rss, key=functools.cmp_to_key(compare))


REVISION_ANNOTATION = "deployment.kubernetes.io/revision"


def revision(rs: Object) -> int | None:
    value = (rs["metadata"].get("annotations") or {}).get(REVISION_ANNOTATION)
    try:
        return int(value) if value is not None else None
    except ValueError:
        return None


def max_revision(rss: Iterable[Object | None]) -> int:
    return max((r for rs in rss if rs is not None if (r := revision(rs)) is not None), default=0)


def _strip_empty(value: Any) -> Any:
    if isinstance(value, dict):
        out = {k: _strip_empty(v) for k, v in value.items()}
        return {k: v for k, v in out.items() if v not in (None, {}, [])}
    if isinstance(value, list):
        return [_strip_empty(v) for v in value]
    return value


def equal_ignore_hash(t1: Object, t2: Object) -> bool:
    """Whether two pod templates are equal once the pod-template-hash label is ignored
    (empty and absent fields count as equal, as they do after a JSON round trip)."""
    a, b = copy.deepcopy(t1), copy.deepcopy(t2)
    for t in (a, b):
        (t.get("metadata") or {}).get("labels", {}).pop(POD_TEMPLATE_HASH_LABEL, None)
    return bool(_strip_empty(a) == _strip_empty(b))


def find_new_replica_set(deployment: Object, rss: Sequence[Object]) -> Object | None:
    """The oldest ReplicaSet whose template equals the deployment's (ignoring the hash label)."""
    template = deployment["spec"]["template"]
    for rs in sort_by_creation(rss):
        if equal_ignore_hash(rs["spec"]["template"], template):
            return rs
    return None


def find_old_replica_sets(deployment: Object, rss: Sequence[Object]) -> tuple[list[Object], list[Object]]:
    """(old ReplicaSets with replicas, all old ReplicaSets)."""
    new_rs = find_new_replica_set(deployment, rss)
    new_uid = new_rs["metadata"]["uid"] if new_rs is not None else None
    all_old = [rs for rs in rss if rs["metadata"]["uid"] != new_uid]
    return [rs for rs in all_old if replicas(rs) != 0], all_old
