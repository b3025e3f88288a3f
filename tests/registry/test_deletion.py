"""Deletion semantics: the rule functions of ``deletion`` and ``GenericStore.delete`` over memory
storage (the garbage collector's finalizers, graceful deletion, finalizers emptied by an update,
namespaces deleted in two steps)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from typing import Any

import pytest

from apiserver.registry import deletion
from apiserver.registry.catalog import strategy_for
from apiserver.registry.deletion import (
    BACKGROUND,
    DELETE_DEPENDENTS,
    FOREGROUND,
    FOREGROUND_FINALIZER,
    ORPHAN,
    ORPHAN_DEPENDENTS,
    ORPHAN_FINALIZER,
    UNSUPPORTED,
    DeleteOptions,
)
from apiserver.registry.resources.namespace import NamespaceFinalizeStrategy
from apiserver.registry.store import GenericStore
from apiserver.storage.interface import DELETED, ListOptions, Preconditions
from apiserver.storage.memory import MemoryKV
from apiserver.storage.objects import KVObjectStorage
from minikube_py.api.builtin import builtin_scheme
from minikube_py.api.errors import ApiError

# rule functions


@pytest.mark.parametrize(
    ("finalizers", "options", "default", "expected"),
    [
        # an explicit policy wins over what is on the object
        ([], DeleteOptions(propagation_policy=ORPHAN), DELETE_DEPENDENTS, ["orphan"]),
        ([], DeleteOptions(propagation_policy=FOREGROUND), DELETE_DEPENDENTS, ["foregroundDeletion"]),
        (["a/b", "orphan"], DeleteOptions(propagation_policy=BACKGROUND), DELETE_DEPENDENTS, ["a/b"]),
        (["orphan"], DeleteOptions(propagation_policy=FOREGROUND), DELETE_DEPENDENTS, ["foregroundDeletion"]),
        # the deprecated spelling: true orphans, false is background (never foreground)
        ([], DeleteOptions(orphan_dependents=True), DELETE_DEPENDENTS, ["orphan"]),
        (["foregroundDeletion"], DeleteOptions(orphan_dependents=False), DELETE_DEPENDENTS, []),
        # no option: a GC finalizer already there stays, else the kind's default
        (["foregroundDeletion"], DeleteOptions(), ORPHAN_DEPENDENTS, None),
        ([], DeleteOptions(), ORPHAN_DEPENDENTS, ["orphan"]),
        ([], DeleteOptions(), DELETE_DEPENDENTS, None),
        # kinds the collector never handles lose GC finalizers and never get one
        ([], DeleteOptions(propagation_policy=ORPHAN), UNSUPPORTED, None),
        (["orphan", "x/y"], DeleteOptions(propagation_policy=ORPHAN), UNSUPPORTED, ["x/y"]),
        # an unchanged set is no change
        (["orphan"], DeleteOptions(propagation_policy=ORPHAN), DELETE_DEPENDENTS, None),
    ],
)
def test_gc_finalizers(
    finalizers: list[str], options: DeleteOptions, default: str, expected: list[str] | None
) -> None:
    assert deletion.gc_finalizers(finalizers, options, default) == expected


def test_default_policies_of_the_kinds_we_serve() -> None:
    policies = {(rt.group, rt.kind): strategy_for(rt).gc_policy for rt in builtin_scheme()}
    assert policies[("batch", "Job")] == ORPHAN_DEPENDENTS
    assert policies[("", "Event")] == policies[("events.k8s.io", "Event")] == UNSUPPORTED
    assert policies[("apps", "Deployment")] == policies[("", "ConfigMap")] == DELETE_DEPENDENTS


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (
            DeleteOptions(propagation_policy=FOREGROUND, orphan_dependents=True),
            'DeleteOptions.meta.k8s.io "" is invalid: propagationPolicy: Invalid value: "Foreground": '
            "orphanDependents and deletionPropagation cannot be both set",
        ),
        (
            DeleteOptions(propagation_policy="Sideways"),
            'DeleteOptions.meta.k8s.io "" is invalid: propagationPolicy: Unsupported value: "Sideways": '
            'supported values: "Foreground", "Background", "Orphan", "nil"',
        ),
    ],
)
def test_invalid_options_are_422(options: DeleteOptions, message: str) -> None:
    with pytest.raises(ApiError) as caught:
        deletion.validate_options(options)
    assert (caught.value.code, caught.value.message) == (422, message)
    assert caught.value.kind == "DeleteOptions" and caught.value.group == "meta.k8s.io"


def test_valid_options_pass() -> None:
    deletion.validate_options(DeleteOptions(orphan_dependents=False))
    deletion.validate_options(DeleteOptions(propagation_policy=BACKGROUND))


def _ts(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def test_graceful_delete_sets_the_deadline_and_only_shortens_it() -> None:
    meta: dict[str, Any] = {"name": "p", "generation": 1}
    before = datetime.now(UTC).replace(microsecond=0)
    assert deletion.before_delete(meta, 30, DeleteOptions()) == (True, False)
    deadline = _ts(meta["deletionTimestamp"])
    assert 30 <= (deadline - before).total_seconds() <= 31
    assert meta["deletionGracePeriodSeconds"] == 30 and meta["generation"] == 2
    # the same or a longer period: pending, nothing changes
    assert deletion.before_delete(meta, 30, DeleteOptions(grace_period_seconds=60)) == (False, True)
    assert deletion.before_delete(meta, 30, DeleteOptions()) == (False, True)
    # a shorter one moves the deadline back by the difference
    assert deletion.before_delete(meta, 30, DeleteOptions(grace_period_seconds=10)) == (True, False)
    assert (deadline - _ts(meta["deletionTimestamp"])).total_seconds() == 20
    assert meta["deletionGracePeriodSeconds"] == 10 and meta["generation"] == 2


def test_negative_grace_counts_as_one_second() -> None:
    meta: dict[str, Any] = {"name": "p"}
    assert deletion.before_delete(meta, 30, DeleteOptions(grace_period_seconds=-5)) == (True, False)
    assert meta["deletionGracePeriodSeconds"] == 1


def test_not_graceful_and_finalizer_only_marks_go_on() -> None:
    assert deletion.before_delete({"name": "c"}, 0, DeleteOptions()) == (False, False)
    marked = {"name": "c", "deletionTimestamp": "2024-05-01T12:00:00Z", "deletionGracePeriodSeconds": 0}
    assert deletion.before_delete(marked, 30, DeleteOptions()) == (False, False)


def test_mark_as_deleting_keeps_an_earlier_timestamp() -> None:
    meta: dict[str, Any] = {"generation": 3}
    deletion.mark_as_deleting(meta)
    assert meta["deletionGracePeriodSeconds"] == 0 and meta["generation"] == 4
    meta["deletionTimestamp"] = "2024-05-01T12:00:00Z"
    deletion.mark_as_deleting(meta)
    assert meta["deletionTimestamp"] == "2024-05-01T12:00:00Z" and meta["generation"] == 4
    meta["deletionTimestamp"] = "2999-01-01T00:00:00Z"  # a later one is pulled in to now
    deletion.mark_as_deleting(meta)
    assert _ts(meta["deletionTimestamp"]) <= datetime.now(UTC)


# the store


@pytest.fixture
async def kv() -> AsyncIterator[MemoryKV]:
    store = MemoryKV()
    yield store
    await store.close()


def store_for(kv: MemoryKV, group: str, resource: str) -> GenericStore:
    rt = next(rt for rt in builtin_scheme() if (rt.group, rt.resource) == (group, resource))
    return GenericStore(rt, strategy_for(rt), KVObjectStorage(kv))


POD_SPEC = {"containers": [{"name": "c", "image": "i"}]}
DEPLOYMENT = {
    "metadata": {"name": "web"},
    "spec": {
        "selector": {"matchLabels": {"app": "web"}},
        "template": {"metadata": {"labels": {"app": "web"}}, "spec": POD_SPEC},
    },
}


async def gone(store: GenericStore, namespace: str, name: str) -> bool:
    try:
        await store.get(namespace, name)
    except ApiError as err:
        return err.code == 404
    return False


@pytest.mark.parametrize(("policy", "finalizer"), [(FOREGROUND, "foregroundDeletion"), (ORPHAN, "orphan")])
async def test_policy_finalizer_keeps_the_object_marked(kv: MemoryKV, policy: str, finalizer: str) -> None:
    deployments = store_for(kv, "apps", "deployments")
    await deployments.create("default", DEPLOYMENT)
    done = await deployments.delete_reporting("default", "web", DeleteOptions(propagation_policy=policy))
    assert not done.deleted
    meta = (await deployments.get("default", "web"))["metadata"]
    assert meta["finalizers"] == [finalizer]
    assert meta["deletionTimestamp"] and meta["deletionGracePeriodSeconds"] == 0
    assert meta["generation"] == 2  # the first mark bumps it, as upstream's markAsDeleting
    assert done.object["metadata"] == meta


async def test_background_deletes_at_once(kv: MemoryKV) -> None:
    deployments = store_for(kv, "apps", "deployments")
    await deployments.create("default", DEPLOYMENT)
    done = await deployments.delete_reporting("default", "web", DeleteOptions(propagation_policy=BACKGROUND))
    assert done.deleted and done.object["metadata"]["name"] == "web"
    assert await gone(deployments, "default", "web")


async def test_second_delete_may_change_the_policy(kv: MemoryKV) -> None:
    deployments = store_for(kv, "apps", "deployments")
    await deployments.create("default", {**DEPLOYMENT, "metadata": {"name": "web", "finalizers": ["a/b"]}})
    first = await deployments.delete("default", "web", DeleteOptions(propagation_policy=ORPHAN))
    assert first["metadata"]["finalizers"] == ["a/b", "orphan"]
    second = await deployments.delete("default", "web", DeleteOptions(propagation_policy=FOREGROUND))
    assert second["metadata"]["finalizers"] == ["a/b", "foregroundDeletion"]
    assert second["metadata"]["deletionTimestamp"] == first["metadata"]["deletionTimestamp"]
    assert second["metadata"]["generation"] == 2  # bumped once, by the first mark
    # no policy: the finalizer already there stays; Background takes it away, a/b still holds
    third = await deployments.delete("default", "web", DeleteOptions())
    assert third["metadata"]["resourceVersion"] == second["metadata"]["resourceVersion"]
    fourth = await deployments.delete("default", "web", DeleteOptions(propagation_policy=BACKGROUND))
    assert fourth["metadata"]["finalizers"] == ["a/b"]
    assert not await gone(deployments, "default", "web")


async def test_background_on_an_object_held_only_by_gc_removes_it(kv: MemoryKV) -> None:
    configmaps = store_for(kv, "", "configmaps")
    await configmaps.create("default", {"metadata": {"name": "c"}})
    await configmaps.delete("default", "c", DeleteOptions(propagation_policy=ORPHAN))
    done = await configmaps.delete_reporting("default", "c", DeleteOptions(propagation_policy=BACKGROUND))
    assert done.deleted and await gone(configmaps, "default", "c")


async def test_job_orphans_by_default_and_events_never_get_gc_finalizers(kv: MemoryKV) -> None:
    jobs = store_for(kv, "batch", "jobs")
    job = {"metadata": {"name": "j"}, "spec": {"template": {"spec": {**POD_SPEC, "restartPolicy": "Never"}}}}
    await jobs.create("default", job)
    kept = await jobs.delete("default", "j", DeleteOptions())
    assert kept["metadata"]["finalizers"] == ["orphan"]
    events = store_for(kv, "", "events")
    await events.create("default", {"metadata": {"name": "e"}, "involvedObject": {}, "message": "m"})
    done = await events.delete_reporting("default", "e", DeleteOptions(propagation_policy=FOREGROUND))
    assert done.deleted and await gone(events, "default", "e")


async def test_dry_run_previews_the_mark_and_stores_nothing(kv: MemoryKV) -> None:
    deployments = store_for(kv, "apps", "deployments")
    created = await deployments.create("default", DEPLOYMENT)
    options = DeleteOptions(propagation_policy=FOREGROUND, dry_run=True)
    preview = await deployments.delete_reporting("default", "web", options)
    assert not preview.deleted and preview.object["metadata"]["finalizers"] == ["foregroundDeletion"]
    assert await deployments.get("default", "web") == created
    removed = await deployments.delete_reporting("default", "web", DeleteOptions(dry_run=True))
    assert removed.deleted and not await gone(deployments, "default", "web")


async def test_conflicting_options_are_checked_after_the_object_is_found(kv: MemoryKV) -> None:
    configmaps = store_for(kv, "", "configmaps")
    bad = DeleteOptions(propagation_policy=ORPHAN, orphan_dependents=True)
    with pytest.raises(ApiError) as missing:
        await configmaps.delete("default", "nope", bad)
    assert missing.value.code == 404
    await configmaps.create("default", {"metadata": {"name": "c"}})
    with pytest.raises(ApiError) as invalid:
        await configmaps.delete("default", "c", bad)
    assert invalid.value.code == 422 and not await gone(configmaps, "default", "c")


async def test_graceful_pod_keeps_its_finalizers_until_the_period_is_shortened(kv: MemoryKV) -> None:
    pods = store_for(kv, "", "pods")
    await pods.create("default", {"metadata": {"name": "p"}, "spec": {**POD_SPEC, "nodeName": "n1"}})
    marked = await pods.delete("default", "p", DeleteOptions(propagation_policy=FOREGROUND))
    assert marked["metadata"]["deletionGracePeriodSeconds"] == 30
    assert marked["metadata"]["finalizers"] == ["foregroundDeletion"]
    # while the period runs, a DELETE without a shorter one changes nothing
    again = await pods.delete_reporting("default", "p", DeleteOptions(propagation_policy=BACKGROUND))
    assert not again.deleted and again.object["metadata"]["finalizers"] == ["foregroundDeletion"]
    # grace 0 (the node agent's last word) with Background: nothing holds it any more
    done = await pods.delete_reporting(
        "default", "p", DeleteOptions(grace_period_seconds=0, propagation_policy=BACKGROUND)
    )
    assert done.deleted and await gone(pods, "default", "p")


async def test_update_that_empties_the_finalizers_removes_the_object(kv: MemoryKV) -> None:
    configmaps = store_for(kv, "", "configmaps")
    await configmaps.create("default", {"metadata": {"name": "c", "finalizers": ["a/b", "c/d"]}})
    marked = await configmaps.delete("default", "c", DeleteOptions())
    watch = configmaps.watch("default", ListOptions(resource_version=marked["metadata"]["resourceVersion"]))

    def drop(finalizer: str) -> Any:
        def mutate(obj: dict[str, Any]) -> dict[str, Any]:
            obj["metadata"]["finalizers"].remove(finalizer)
            return obj

        return mutate

    await configmaps.update("default", "c", drop("a/b"))
    assert not await gone(configmaps, "default", "c")
    answer = await configmaps.update("default", "c", drop("c/d"))
    assert answer["metadata"].get("finalizers") == [] and await gone(configmaps, "default", "c")
    events = []
    async with asyncio.timeout(5):
        async for event in watch:
            events.append(event.type)
            if event.type == DELETED:
                break
    await watch.close()
    assert events == ["MODIFIED", "DELETED"]  # the emptying update itself is never stored


async def test_update_of_an_unmarked_object_without_finalizers_keeps_it(kv: MemoryKV) -> None:
    configmaps = store_for(kv, "", "configmaps")
    await configmaps.create("default", {"metadata": {"name": "c", "finalizers": ["a/b"]}})

    def clear(obj: dict[str, Any]) -> dict[str, Any]:
        obj["metadata"]["finalizers"] = []
        return obj

    await configmaps.update("default", "c", clear)
    assert not await gone(configmaps, "default", "c")


# namespaces


async def test_namespace_terminates_then_waits_for_its_finalizers(kv: MemoryKV) -> None:
    namespaces = store_for(kv, "", "namespaces")
    created = await namespaces.create("", {"metadata": {"name": "team"}, "spec": {"finalizers": []}})
    assert created["spec"]["finalizers"] == ["kubernetes"]  # always added on create
    first = await namespaces.delete_reporting("", "team", DeleteOptions())
    assert not first.deleted and first.object["status"]["phase"] == "Terminating"
    assert first.object["metadata"]["deletionTimestamp"]
    assert "deletionGracePeriodSeconds" not in first.object["metadata"]
    second = await namespaces.delete_reporting("", "team", DeleteOptions(propagation_policy=ORPHAN))
    assert not second.deleted and second.object == await namespaces.get("", "team")
    assert second.object["metadata"]["resourceVersion"] == first.object["metadata"]["resourceVersion"]


async def test_namespace_first_delete_records_gc_finalizers_its_own_way(kv: MemoryKV) -> None:
    namespaces = store_for(kv, "", "namespaces")
    await namespaces.create("", {"metadata": {"name": "a"}})
    marked = await namespaces.delete("", "a", DeleteOptions(orphan_dependents=False))
    assert marked["metadata"]["finalizers"] == [FOREGROUND_FINALIZER]  # unlike other kinds
    await namespaces.create("", {"metadata": {"name": "b", "finalizers": ["orphan"]}})
    marked = await namespaces.delete("", "b", DeleteOptions())
    assert marked["metadata"]["finalizers"] == [ORPHAN_FINALIZER]


async def test_namespace_delete_checks_an_explicit_uid(kv: MemoryKV) -> None:
    namespaces = store_for(kv, "", "namespaces")
    await namespaces.create("", {"metadata": {"name": "a"}})
    with pytest.raises(ApiError) as caught:
        await namespaces.delete("", "a", DeleteOptions(preconditions=Preconditions(uid="other")))
    assert (
        caught.value.code == 409 and "Precondition failed: UID in precondition: other" in caught.value.message
    )


async def test_namespace_updates_keep_phase_and_spec_finalizers(kv: MemoryKV) -> None:
    namespaces = store_for(kv, "", "namespaces")
    await namespaces.create("", {"metadata": {"name": "a"}})
    await namespaces.delete("", "a", DeleteOptions())

    def revive(obj: dict[str, Any]) -> dict[str, Any]:
        obj["status"] = {"phase": "Active"}
        obj["spec"] = {"finalizers": []}
        obj["metadata"]["labels"] = {"k": "v"}
        return obj

    updated = await namespaces.update("", "a", revive)
    assert updated["status"]["phase"] == "Terminating" and updated["spec"]["finalizers"] == ["kubernetes"]
    assert updated["metadata"]["labels"] == {"k": "v", "kubernetes.io/metadata.name": "a"}
    with pytest.raises(ApiError) as caught:
        await namespaces.update("", "a", revive, subresource="status")
    assert caught.value.code == 422
    assert "status.Phase: Invalid value: \"Active\": may only be 'Terminating'" in caught.value.message


async def test_finalize_removes_a_terminating_namespace_once_nothing_holds_it(kv: MemoryKV) -> None:
    namespaces = store_for(kv, "", "namespaces")
    finalizing = namespaces.with_strategy(NamespaceFinalizeStrategy())
    await namespaces.create("", {"metadata": {"name": "a", "finalizers": ["x/y"]}})
    await namespaces.delete("", "a", DeleteOptions())

    def finalize(finalizers: list[str]) -> Any:
        def mutate(obj: dict[str, Any]) -> dict[str, Any]:
            obj["spec"]["finalizers"] = finalizers
            obj["status"] = {"phase": "Active"}  # the status is not finalize's to change
            return obj

        return mutate

    with pytest.raises(ApiError) as caught:
        await finalizing.update("", "a", finalize(["kubernetes", "nope"]), subresource="finalize")
    assert caught.value.message == (
        'Namespace "a" is invalid: spec.finalizers[1]: Invalid value: "nope": '
        "name is neither a standard finalizer name nor is it fully qualified"
    )
    kept = await finalizing.update("", "a", finalize([]), subresource="finalize")
    assert kept["status"]["phase"] == "Terminating" and kept["spec"]["finalizers"] == []
    assert not await gone(namespaces, "", "a")  # metadata.finalizers still hold it

    def drop_meta(obj: dict[str, Any]) -> dict[str, Any]:
        obj["metadata"]["finalizers"] = []
        return obj

    await namespaces.update("", "a", drop_meta)
    assert await gone(namespaces, "", "a")


async def test_finalize_of_an_active_namespace_only_updates_it(kv: MemoryKV) -> None:
    namespaces = store_for(kv, "", "namespaces")
    finalizing = namespaces.with_strategy(NamespaceFinalizeStrategy())
    await namespaces.create("", {"metadata": {"name": "a"}})

    def empty(obj: dict[str, Any]) -> dict[str, Any]:
        obj["spec"]["finalizers"] = []
        return obj

    updated = await finalizing.update("", "a", empty, subresource="finalize")
    assert updated["spec"]["finalizers"] == [] and updated["status"]["phase"] == "Active"
    # now nothing but the DELETE itself: the first one still only marks it, the second removes it
    assert not (await namespaces.delete_reporting("", "a", DeleteOptions())).deleted
    assert (await namespaces.delete_reporting("", "a", DeleteOptions())).deleted


def test_namespace_finalizer_names_are_validated_on_create() -> None:
    rt = next(rt for rt in builtin_scheme() if rt.resource == "namespaces")
    causes = strategy_for(rt).validate(
        {"metadata": {"name": "a"}, "spec": {"finalizers": ["bad name", "x/y"]}}
    )
    assert [(c.field, c.message) for c in causes] == [
        (
            "spec.finalizers",
            "Invalid value: \"bad name\": name part must consist of alphanumeric characters, '-', '_' or "
            "'.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or "
            "'123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
        ),
        (
            "spec.finalizers",
            'Invalid value: "bad name": name is neither a standard finalizer name nor is it fully qualified',
        ),
    ]
