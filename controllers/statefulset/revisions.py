"""A StatefulSet's ControllerRevisions (upstream's ``getStatefulSetRevisions``,
``truncateHistory``, ``newRevision``, ``ApplyRevision``).

A revision's name (``<set>-<hash>``) is the value of the pods' ``controller-revision-hash``
label; its data is ``revisiondata.patch_of`` the set. The
ControllerRevision reads and writes are ``controllers.history``'s (upstream's
pkg/controller/history); this module only decides which revision is current and which is the
update target.
"""

from __future__ import annotations

from collections.abc import Sequence

from controllers.history import (
    History,
    equal_revision,
    find_equal_revisions,
    new_controller_revision,
    next_revision,
    sort_controller_revisions,
)
from controllers.podcontrol.refmanager import CanAdopt
from controllers.statefulset.identity import API_VERSION, KIND, pod_revision
from controllers.statefulset.revisiondata import Revisions, patch_of
from minikube_py.api.labels import label_selector_as_selector
from minikube_py.api.unstructured import Object


def new_revision(sts: Object, revision: int, collision_count: int) -> Object:
    template_labels = ((sts["spec"].get("template") or {}).get("metadata") or {}).get("labels") or {}
    rev = new_controller_revision(
        sts, API_VERSION, KIND, template_labels, patch_of(sts), revision, collision_count
    )
    annotations = sts["metadata"].get("annotations") or {}
    if annotations:
        rev["metadata"].setdefault("annotations", {}).update(annotations)
    return rev


def list_revisions(hist: History, sts: Object) -> list[Object]:
    selector = label_selector_as_selector(sts["spec"].get("selector"))
    return sort_controller_revisions(hist.list_controller_revisions(sts, selector))


async def adopt_orphan_revisions(
    hist: History, sts: Object, revisions: Sequence[Object], can_adopt: CanAdopt
) -> None:
    """Adopt the revisions nothing controls, after a fresh read shows the set still exists."""
    orphans = [
        r
        for r in revisions
        if not any(o.get("controller") for o in r["metadata"].get("ownerReferences") or [])
    ]
    if not orphans:
        return
    await can_adopt()
    for rev in orphans:
        await hist.adopt_controller_revision(sts, API_VERSION, KIND, rev)


async def stateful_set_revisions(hist: History, sts: Object, revisions: list[Object]) -> Revisions:
    """The current and update revisions, creating the update revision when the template is new
    and renumbering an equal older one when the template went back to it (a rollback)."""
    collision_count = int((sts.get("status") or {}).get("collisionCount") or 0)
    candidate = new_revision(sts, next_revision(revisions), collision_count)
    equal = find_equal_revisions(revisions, candidate)
    if equal and equal_revision(revisions[-1], equal[-1]):
        update = revisions[-1]
    elif equal:
        update = await hist.update_controller_revision(equal[-1], int(candidate["revision"]))
    else:
        created = await hist.create_controller_revision(sts, candidate, collision_count)
        update, collision_count = created.revision, created.collision_count
    current_name = (sts.get("status") or {}).get("currentRevision")
    current = next((r for r in revisions if r["metadata"]["name"] == current_name), update)
    return Revisions(current, update, collision_count)


async def truncate_history(
    hist: History,
    sts: Object,
    pods: Sequence[Object],
    revisions: Sequence[Object],
    live_revisions: Sequence[Object | None],
) -> None:
    """Delete the oldest revisions no pod and neither status revision uses, keeping
    ``revisionHistoryLimit`` of them."""
    live = {r["metadata"]["name"] for r in live_revisions if r is not None}
    live |= {pod_revision(p) for p in pods}
    old = [r for r in revisions if r["metadata"]["name"] not in live]
    limit = int(sts["spec"].get("revisionHistoryLimit", 10))
    if limit < 0 or len(old) <= limit:
        return
    for rev in old[: len(old) - limit]:
        await hist.delete_controller_revision(rev)
