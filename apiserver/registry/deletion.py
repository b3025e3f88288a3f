"""What a DELETE does to an object before (or instead of) removing it.

Upstream spreads these rules over ``rest.BeforeDelete`` (graceful deletion), the meta/v1
``ValidateDeleteOptions`` and the garbage-collector half of the generic store
(``deletionFinalizersForGarbageCollection``, ``markAsDeleting``). ``GenericStore.delete`` runs
them; this module holds them as plain functions over ``metadata``, with what a DELETE
answers (``Deletion``; upstream's ``finalizeDelete`` is ``finalized``).

The contract of a DELETE: the object is removed at once, or it is kept with
``deletionTimestamp`` set while a grace period runs (pods) or while ``metadata.finalizers`` is
not empty. Two finalizers belong to the garbage collector and record how the owner's dependents
go: ``orphan`` (they stay, their ownerReferences are dropped) and ``foregroundDeletion`` (they go
first). With neither, dependents go in the background after the owner. The GC controller
removes these finalizers when it is done; an update that empties the finalizers of a marked
object removes it.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any, Protocol, runtime_checkable

from apiserver.storage.interface import Preconditions
from minikube_py.api import errors
from minikube_py.api.field_errors import FieldError, aggregate_message, invalid, not_supported
from minikube_py.api.scheme import ResourceType
from minikube_py.api.unstructured import Object

ORPHAN_FINALIZER = "orphan"  # metav1.FinalizerOrphanDependents
FOREGROUND_FINALIZER = "foregroundDeletion"  # metav1.FinalizerDeleteDependents
GC_FINALIZERS = (ORPHAN_FINALIZER, FOREGROUND_FINALIZER)

FOREGROUND, BACKGROUND, ORPHAN = "Foreground", "Background", "Orphan"
PROPAGATION_POLICIES = (FOREGROUND, BACKGROUND, ORPHAN)

# rest.GarbageCollectionPolicy: what happens to dependents when a DELETE names no policy.
DELETE_DEPENDENTS, ORPHAN_DEPENDENTS, UNSUPPORTED = "DeleteDependents", "OrphanDependents", "Unsupported"
# Each strategy says which is its kind's (``Strategy.gc_policy``).

_TIME_FORMAT = "%Y-%m-%dT%H:%M:%SZ"


@dataclass(slots=True)
class DeleteOptions:
    """``metav1.DeleteOptions``. ``propagation_policy`` "" and ``orphan_dependents`` None mean
    unset (``orphanDependents`` is the deprecated spelling of Orphan/Background)."""

    grace_period_seconds: int | None = None
    propagation_policy: str = ""
    preconditions: Preconditions | None = None
    dry_run: bool = False
    orphan_dependents: bool | None = None


def options_object(options: DeleteOptions) -> dict[str, Any]:
    """``options`` as ``meta.k8s.io/v1`` JSON (what admission webhooks receive)."""
    out: dict[str, Any] = {"kind": "DeleteOptions", "apiVersion": "meta.k8s.io/v1"}
    if options.grace_period_seconds is not None:
        out["gracePeriodSeconds"] = options.grace_period_seconds
    if options.propagation_policy:
        out["propagationPolicy"] = options.propagation_policy
    if options.orphan_dependents is not None:
        out["orphanDependents"] = options.orphan_dependents
    if options.dry_run:
        out["dryRun"] = ["All"]
    return out


def validate_options(options: DeleteOptions) -> None:
    """Upstream's ``ValidateDeleteOptions``: 422 when both spellings of the policy are given or
    the policy is unknown. Runs after the object was found, as upstream's ``BeforeDelete``."""
    found: list[FieldError] = []
    policy = options.propagation_policy
    if options.orphan_dependents is not None and policy:
        found.append(
            invalid(
                "propagationPolicy", policy, "orphanDependents and deletionPropagation cannot be both set"
            )
        )
    if policy and policy not in PROPAGATION_POLICIES:
        found.append(not_supported("propagationPolicy", policy, [*PROPAGATION_POLICIES, "nil"]))
    if found:
        causes = [errors.Cause(e.reason, e.body(), e.field) for e in found]
        message = f'DeleteOptions.meta.k8s.io "" is invalid: {aggregate_message(found)}'
        raise errors.ApiError(422, "Invalid", message, "", "meta.k8s.io", "DeleteOptions", causes)


def _should_orphan(finalizers: list[str], options: DeleteOptions, default: str) -> bool:
    """Highest first: the options, a GC finalizer already on the object, the kind's default."""
    if default == UNSUPPORTED:
        return False
    if options.orphan_dependents is not None:
        return options.orphan_dependents
    if options.propagation_policy:
        return options.propagation_policy == ORPHAN
    for finalizer in finalizers:
        if finalizer in GC_FINALIZERS:
            return finalizer == ORPHAN_FINALIZER
    return default == ORPHAN_DEPENDENTS


def _should_delete_dependents(finalizers: list[str], options: DeleteOptions, default: str) -> bool:
    """Foreground only when asked for (or already asked for): ``orphanDependents`` never is."""
    if default == UNSUPPORTED or options.orphan_dependents is not None:
        return False
    if options.propagation_policy:
        return options.propagation_policy == FOREGROUND
    for finalizer in finalizers:
        if finalizer in GC_FINALIZERS:
            return finalizer == FOREGROUND_FINALIZER
    return False


def gc_finalizers(finalizers: list[str], options: DeleteOptions, default: str) -> list[str] | None:
    """``finalizers`` after a DELETE with ``options`` (upstream's
    ``deletionFinalizersForGarbageCollection``): other finalizers kept in order, the GC ones
    re-added as decided. None when the set does not change."""
    kept = [f for f in finalizers if f not in GC_FINALIZERS]
    if _should_orphan(finalizers, options, default):
        kept.append(ORPHAN_FINALIZER)
    if _should_delete_dependents(finalizers, options, default):
        kept.append(FOREGROUND_FINALIZER)
    return None if set(kept) == set(finalizers) else kept


def set_finalizers(meta: Object, finalizers: list[str]) -> None:
    """An empty list is no list (``omitempty``)."""
    if finalizers:
        meta["finalizers"] = finalizers
    else:
        meta.pop("finalizers", None)


def before_delete(meta: Object, default_grace: int, options: DeleteOptions) -> tuple[bool, bool]:
    """Upstream's ``rest.BeforeDelete`` on ``meta``: ``(graceful, pending)``.

    ``default_grace`` is the strategy's period for this object (0: not deleted gracefully). A
    graceful deletion sets ``deletionTimestamp`` to now plus the period and
    ``deletionGracePeriodSeconds``; a later DELETE may only shorten the period. ``pending``: a
    graceful deletion already runs and this request changes nothing, not even the finalizers."""
    requested = options.grace_period_seconds
    if requested is not None and requested < 0:
        requested = 1  # upstream: a negative period counts as 1s on the delete path
    if meta.get("deletionTimestamp"):
        period = meta.get("deletionGracePeriodSeconds") or 0
        if period == 0:
            return False, False  # finalizers only (or a delete that failed half-way): go on
        period = max(int(period), 1)
        if requested is None or requested >= period:
            return False, True
        started = _parse(meta["deletionTimestamp"]) - timedelta(seconds=period)
        meta["deletionTimestamp"] = _format(started + timedelta(seconds=requested))
        meta["deletionGracePeriodSeconds"] = requested
        return True, False
    if default_grace <= 0:
        return False, False
    period = default_grace if requested is None else requested
    meta["deletionTimestamp"] = _format(_now() + timedelta(seconds=period))
    meta["deletionGracePeriodSeconds"] = period
    _bump_generation(meta)
    return True, False


def mark_as_deleting(meta: Object) -> None:
    """Upstream's ``markAsDeleting`` for an object that finalizers hold: ``deletionTimestamp``
    now (unless an earlier one is set) and a grace period of 0."""
    if not meta.get("deletionTimestamp"):
        _bump_generation(meta)
    now = _now()
    existing = meta.get("deletionTimestamp")
    if not existing or _parse(existing) > now:
        meta["deletionTimestamp"] = _format(now)
    meta["deletionGracePeriodSeconds"] = 0


def deletes_during_update(new: Object, old: Object) -> bool:
    """Upstream's ``ShouldDeleteDuringUpdate``: an update that leaves a marked object (and not one
    in a grace period) without finalizers removes it."""
    old_meta = old.get("metadata", {})
    if new.get("metadata", {}).get("finalizers") or not old_meta.get("deletionTimestamp"):
        return False
    return not old_meta.get("deletionGracePeriodSeconds")


@runtime_checkable
class TerminationStrategy(Protocol):
    """A kind deleted in two steps, like namespaces (upstream's namespace REST ``Delete``): the
    first DELETE only starts termination; the object is removed by a later DELETE or update once
    ``terminated`` holds and no finalizer is left."""

    def start_termination(self, obj: Object, options: DeleteOptions) -> None:
        """Mark ``obj`` (its ``deletionTimestamp`` already set) as terminating."""

    def terminated(self, obj: Object) -> bool:
        """Whether the kind's own work on ``obj`` is done."""


@dataclass(frozen=True, slots=True)
class Deletion:
    """What a DELETE did: ``deleted`` when the object is gone (``object`` is its last state),
    else ``object`` is the object kept, marked with ``deletionTimestamp``.

    ``status`` is what upstream answers instead of ``object`` once the store finished the
    deletion (its ``finalizeDelete``: the object removed, or a graceful deletion already
    running): a ``Status`` naming the object, unless the strategy returns deleted objects. None:
    the answer is ``object``."""

    object: Object
    deleted: bool
    status: Object | None = None


def finalized(rt: ResourceType, obj: Object, deleted: bool, return_deleted_object: bool) -> Deletion:
    """Upstream's ``finalizeDelete``: the answer names ``obj`` in a ``Status`` (whose
    ``details.kind`` is the resource, as upstream's), or is ``obj`` itself."""
    if return_deleted_object:
        return Deletion(obj, deleted)
    meta = obj.get("metadata", {})
    details = {
        "name": meta.get("name", ""),
        "group": rt.group,
        "kind": rt.resource,
        "uid": meta.get("uid", ""),
    }
    status = {
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Success",
        "details": {field: value for field, value in details.items() if value},  # omitempty
    }
    return Deletion(obj, deleted, status)


def _bump_generation(meta: Object) -> None:
    if meta.get("generation", 0) > 0:
        meta["generation"] += 1


def _now() -> datetime:
    return datetime.now(UTC).replace(microsecond=0)


def _format(moment: datetime) -> str:
    return moment.strftime(_TIME_FORMAT)


def _parse(timestamp: str) -> datetime:
    try:
        return datetime.fromisoformat(timestamp.replace("Z", "+00:00"))
    except ValueError:
        return _now()
