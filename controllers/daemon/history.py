"""A DaemonSet's ControllerRevisions, kept through ``controllers.history`` (upstream's
``constructHistory``, ``snapshot``, ``dedupCurHistories`` and ``cleanupHistory`` in update.go).

A revision's ``data`` is the strategic merge patch that restores the DaemonSet's pod template
(``{"spec": {"template": {..., "$patch": "replace"}}}``): what ``kubectl rollout undo ds``
applies. The revision matching the current template is the current one (created as
``<ds>-<hash>`` at the next revision number when missing; duplicates are merged into the
newest); its ``controller-revision-hash`` label is the hash every new pod carries. Old
revisions beyond ``revisionHistoryLimit`` are deleted oldest first, except those a live pod
still comes from."""

from __future__ import annotations

import copy
import json
from typing import Any

from controllers.daemon.context import API_VERSION, KIND, DaemonContext, PodsByNode
from controllers.daemon.util import REVISION_HASH_LABEL
from controllers.history import next_revision, sort_controller_revisions
from controllers.podcontrol.hash import compute_hash
from controllers.podcontrol.ownerrefs import new_controller_ref
from controllers.podcontrol.refmanager import ControllerRefManager, recheck_owner
from minikube_py.api.errors import ApiError
from minikube_py.api.labels import label_selector_as_selector
from minikube_py.api.unstructured import Object
from minikube_py.client.interfaces import MERGE_PATCH
from minikube_py.client.resourcetypes import CONTROLLERREVISIONS, DAEMONSETS, PODS


def restore_patch(ds: Object) -> dict[str, Any]:
    """The patch that puts ``ds``'s pod template back (upstream's ``getPatch``)."""
    template = copy.deepcopy(ds["spec"].get("template") or {})
    template["$patch"] = "replace"
    return {"spec": {"template": template}}


def _canonical(data: Any) -> str:
    return json.dumps(data, sort_keys=True, separators=(",", ":"))


def matches(ds: Object, revision: Object) -> bool:
    """The revision stores ``ds``'s current template (upstream's ``Match``)."""
    return _canonical(restore_patch(ds)) == _canonical(revision.get("data"))


async def controlled_revisions(ctx: DaemonContext, ds: Object, revisions: list[Object]) -> list[Object]:
    """The namespace's revisions ``ds`` controls, after adopting matching orphans and releasing
    ones it no longer selects."""
    selector = label_selector_as_selector(ds["spec"].get("selector"))
    manager = ControllerRefManager(
        ctx.client,
        ds,
        API_VERSION,
        KIND,
        selector,
        CONTROLLERREVISIONS,
        recheck_owner(ctx.client, DAEMONSETS, ds),
    )
    return await manager.claim(revisions)


async def construct_history(
    ctx: DaemonContext, ds: Object, revisions: list[Object], pods: list[Object]
) -> tuple[Object, list[Object]]:
    """(the current revision, the old ones); ``pods`` are the DaemonSet's claimed pods."""
    current: list[Object] = []
    old: list[Object] = []
    for revision in await controlled_revisions(ctx, ds, revisions):
        labels = revision["metadata"].get("labels") or {}
        if REVISION_HASH_LABEL not in labels:  # the name stands in for the hash: no collision worry
            relabeled = copy.deepcopy(revision)
            relabeled["metadata"].setdefault("labels", {})[REVISION_HASH_LABEL] = revision["metadata"]["name"]
            revision = await ctx.client.resource(CONTROLLERREVISIONS, ds["metadata"]["namespace"]).update(
                relabeled
            )
        (current if matches(ds, revision) else old).append(revision)
    next_number = next_revision(old)
    if not current:
        return await snapshot(ctx, ds, next_number), old
    cur = await dedup_current(ctx, current, pods)
    if int(cur.get("revision") or 0) < next_number:
        cur = await ctx.history.update_controller_revision(cur, next_number)
    return cur, old


async def snapshot(ctx: DaemonContext, ds: Object, number: int) -> Object:
    """Create the revision of ``ds``'s template; on a name collision with another template,
    bump ``status.collisionCount`` (the next sync hashes anew) and fail this sync."""
    collision_count = (ds.get("status") or {}).get("collisionCount")
    hash_ = compute_hash(ds["spec"].get("template") or {}, collision_count)
    meta = ds["metadata"]
    labels = dict(((ds["spec"].get("template") or {}).get("metadata") or {}).get("labels") or {})
    labels[REVISION_HASH_LABEL] = hash_
    revision: Object = {
        "apiVersion": "apps/v1",
        "kind": "ControllerRevision",
        "metadata": {
            "name": f"{meta['name']}-{hash_}",
            "namespace": meta["namespace"],
            "labels": labels,
            "ownerReferences": [new_controller_ref(ds, API_VERSION, KIND)],
        },
        "data": restore_patch(ds),
        "revision": number,
    }
    if meta.get("annotations"):
        revision["metadata"]["annotations"] = dict(meta["annotations"])
    try:
        return await ctx.client.resource(CONTROLLERREVISIONS, meta["namespace"]).create(revision)
    except ApiError as err:
        if err.code != 409 or err.reason != "AlreadyExists":
            raise
        existing = await ctx.client.resource(CONTROLLERREVISIONS, meta["namespace"]).get(
            revision["metadata"]["name"]
        )
        if matches(ds, existing):
            return existing
        fresh = await ctx.client.resource(DAEMONSETS, meta["namespace"]).get(meta["name"])
        fresh_count = (fresh.get("status") or {}).get("collisionCount")
        if fresh_count != collision_count:
            raise ApiError(
                409,
                "Conflict",
                f"found a stale collision count ({collision_count}, expected {fresh_count}) of DaemonSet "
                f"{meta['name']!r} while processing; will retry until it is updated",
            ) from err
        fresh.setdefault("status", {})["collisionCount"] = int(fresh_count or 0) + 1
        await ctx.client.resource(DAEMONSETS, meta["namespace"]).update_status(fresh)
        raise


async def dedup_current(ctx: DaemonContext, current: list[Object], pods: list[Object]) -> Object:
    """Keep the newest of several revisions of the current template; relabel pods of the
    others to its hash, then delete those."""
    keep = max(current, key=lambda r: int(r.get("revision") or 0))
    keep_hash = (keep["metadata"].get("labels") or {}).get(REVISION_HASH_LABEL)
    for revision in current:
        if revision["metadata"]["name"] == keep["metadata"]["name"]:
            continue
        await relabel_pods(ctx, pods, keep_hash or "")
        await ctx.history.delete_controller_revision(revision)
    return keep


async def relabel_pods(ctx: DaemonContext, pods: list[Object], hash_: str) -> None:
    for pod in pods:
        if (pod["metadata"].get("labels") or {}).get(REVISION_HASH_LABEL) == hash_:
            continue
        body = {"metadata": {"labels": {REVISION_HASH_LABEL: hash_}}}
        await ctx.client.resource(PODS, pod["metadata"]["namespace"]).patch(
            pod["metadata"]["name"], body, patch_type=MERGE_PATCH
        )


async def cleanup_history(ctx: DaemonContext, ds: Object, old: list[Object], by_node: PodsByNode) -> None:
    limit = ds["spec"].get("revisionHistoryLimit")
    to_kill = len(old) - int(10 if limit is None else limit)
    if to_kill <= 0:
        return
    live = {
        h
        for pods in by_node.values()
        for p in pods
        if (h := (p["metadata"].get("labels") or {}).get(REVISION_HASH_LABEL))
    }
    for revision in sort_controller_revisions(old):
        if to_kill <= 0:
            break
        if (revision["metadata"].get("labels") or {}).get(REVISION_HASH_LABEL) in live:
            continue
        await ctx.history.delete_controller_revision(revision)
        to_kill -= 1
