"""volumeClaimTemplates and persistentVolumeClaimRetentionPolicy in one update pass: claims
``<template>-<set>-<ordinal>`` made before their pod, owner references per policy, stale
claims of an earlier pod waited for."""

from __future__ import annotations

from typing import Any

import pytest

from controllers.statefulset.retention import claim_owner_matches, update_claim_owner_refs
from controllers.statefulset.statefulpods import StatefulPodControl
from controllers.statefulset.update import SetUpdate, UpdateContext
from minikube_py.api.errors import ApiError
from minikube_py.api.unstructured import Object
from minikube_py.client.resourcetypes import PERSISTENTVOLUMECLAIMS, PODS
from tests.controllers.apps.harness import Harness
from tests.controllers.apps.statefulset_builders import (
    claim,
    claim_template,
    member,
    revision,
    revisions,
    stateful_set,
)


def claimed_set(when_deleted: str = "Retain", when_scaled: str = "Retain", **spec: Any) -> Object:
    return stateful_set(
        volumeClaimTemplates=[claim_template("www"), claim_template("logs")],
        persistentVolumeClaimRetentionPolicy={"whenDeleted": when_deleted, "whenScaled": when_scaled},
        **spec,
    )


async def run_pass(h: Harness, sts: Object, pods: list[Object], claims: list[Object] = ()) -> None:  # type: ignore[assignment]
    for p in pods:
        h.seed(PODS, p)
    for c in claims:
        h.seed(PERSISTENTVOLUMECLAIMS, c)
    control = StatefulPodControl(h.fake, h.recorder, h.factory.informer(PERSISTENTVOLUMECLAIMS).indexer)
    rev = revision(sts, 1)
    await SetUpdate(UpdateContext(control, h.clock.now()), sts, revisions(rev), pods).run()


def order(h: Harness) -> list[str]:
    return [
        f"{a.verb} {a.resource} {a.body['metadata']['name']}"
        for a in h.fake.filter_actions("create")
        if a.resource in ("pods", "persistentvolumeclaims")
    ]


async def test_claims_are_created_before_the_pod_with_upstream_events() -> None:
    h = Harness()
    sts = claimed_set()
    await run_pass(h, sts, [])
    assert order(h) == [
        "create persistentvolumeclaims www-web-0",
        "create persistentvolumeclaims logs-web-0",
        "create pods web-0",
    ]
    assert h.recorder.events == [
        "Normal SuccessfulCreate create Claim www-web-0 Pod web-0 in StatefulSet web success",
        "Normal SuccessfulCreate create Claim logs-web-0 Pod web-0 in StatefulSet web success",
        "Normal SuccessfulCreate create Pod web-0 in StatefulSet web successful",
    ]
    pvc = h.stored(PERSISTENTVOLUMECLAIMS, "www-web-0")
    assert pvc["metadata"]["labels"] == {"app": "web"}
    assert pvc["spec"]["resources"]["requests"]["storage"] == "1Gi"
    assert "ownerReferences" not in pvc["metadata"]  # Retain/Retain: nobody owns it
    pod = h.stored(PODS, "web-0")
    assert pod["spec"]["volumes"] == [
        {"name": "www", "persistentVolumeClaim": {"claimName": "www-web-0"}},
        {"name": "logs", "persistentVolumeClaim": {"claimName": "logs-web-0"}},
    ]


async def test_existing_claim_is_reused() -> None:
    h = Harness()
    sts = claimed_set()
    await run_pass(h, sts, [], [claim(sts, "www", 0), claim(sts, "logs", 0)])
    assert order(h) == ["create pods web-0"]


async def test_failed_claim_create_blocks_the_pod() -> None:
    h = Harness()
    sts = claimed_set()
    h.fake.fail("create", "persistentvolumeclaims", ApiError(422, "Invalid", "bad claim"))
    with pytest.raises(ApiError):
        await run_pass(h, sts, [])
    assert not h.fake.filter_actions("create", "pods")
    assert h.recorder.events[0].startswith(
        "Warning FailedCreate create Claim www-web-0 for Pod web-0 in StatefulSet web failed error:"
    )
    assert h.recorder.events[-1].startswith(
        "Warning FailedCreate create Pod web-0 in StatefulSet web failed error:"
    )


async def test_when_deleted_delete_claims_are_owned_by_the_set() -> None:
    h = Harness()
    sts = claimed_set("Delete")
    await run_pass(h, sts, [])
    refs = h.stored(PERSISTENTVOLUMECLAIMS, "www-web-0")["metadata"]["ownerReferences"]
    assert refs == [{"apiVersion": "apps/v1", "kind": "StatefulSet", "name": "web", "uid": "uid-web"}]


async def test_when_scaled_delete_gives_a_condemned_members_claims_to_its_pod() -> None:
    h = Harness()
    sts = claimed_set("Retain", "Delete", replicas=1)
    rev = revision(sts, 1)
    pods = [member(sts, 0, rev), member(sts, 1, rev)]
    claims = [claim(sts, t, o) for t in ("www", "logs") for o in (0, 1)]
    await run_pass(h, sts, pods, claims)
    patched = {
        a.body["metadata"]["name"]: a.body for a in h.fake.filter_actions("update", "persistentvolumeclaims")
    }
    assert set(patched) == {"www-web-1", "logs-web-1"}
    assert patched["www-web-1"]["metadata"]["ownerReferences"] == [
        {"apiVersion": "v1", "kind": "Pod", "name": "web-1", "uid": "uid-web-1"}
    ]
    assert [a.name for a in h.fake.filter_actions("delete", "pods")] == ["web-1"]


async def test_stale_claim_of_an_earlier_pod_holds_the_create() -> None:
    h = Harness()
    sts = claimed_set("Retain", "Delete")
    old_pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "web-0", "uid": "uid-old"}}
    await run_pass(h, sts, [], [claim(sts, "www", 0, [old_pod])])
    assert order(h) == []


RETENTION_TABLE = [
    # whenDeleted, whenScaled, condemned, (owned by set, owned by pod)
    ("Retain", "Retain", False, (False, False)),
    ("Retain", "Retain", True, (False, False)),
    ("Delete", "Retain", False, (True, False)),
    ("Delete", "Retain", True, (True, False)),
    ("Retain", "Delete", False, (False, False)),
    ("Retain", "Delete", True, (False, True)),
    ("Delete", "Delete", False, (True, False)),
    ("Delete", "Delete", True, (False, True)),
]


@pytest.mark.parametrize(("when_deleted", "when_scaled", "condemned", "want"), RETENTION_TABLE)
def test_retention_owner_table(
    when_deleted: str, when_scaled: str, condemned: bool, want: tuple[bool, bool]
) -> None:
    sts = claimed_set(when_deleted, when_scaled, replicas=1)
    pod = member(sts, 1 if condemned else 0, revision(sts, 1))
    pvc = claim(sts, "www", 1 if condemned else 0, [sts, pod])  # start owned by both
    assert claim_owner_matches(pvc, sts, pod) == (want == (True, True))
    update_claim_owner_refs(pvc, sts, pod)
    uids = {r["uid"] for r in pvc["metadata"].get("ownerReferences") or []}
    assert ("uid-web" in uids, pod["metadata"]["uid"] in uids) == want
    assert claim_owner_matches(pvc, sts, pod)
