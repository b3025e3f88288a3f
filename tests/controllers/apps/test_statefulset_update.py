"""One ``SetUpdate`` pass (upstream's ``updateStatefulSet``) against a FakeClient: ordering,
Parallel, ordinals, scale-down, rolling updates, OnDelete and failed pods. Table rows give
the set, the pods that exist, and the pod writes the pass must make."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pytest

from controllers.statefulset.statefulpods import StatefulPodControl
from controllers.statefulset.update import SetUpdate, UpdateContext, max_unavailable
from minikube_py.api.unstructured import Object
from minikube_py.client.resourcetypes import PERSISTENTVOLUMECLAIMS, PODS
from tests.controllers.apps.harness import Harness, time_at
from tests.controllers.apps.statefulset_builders import member, revision, revisions, stateful_set, with_image

WEB = stateful_set()
R1 = revision(WEB, 1)
WEB2 = with_image(WEB, "nginx:2")
R2 = revision(WEB2, 2)


async def run_pass(
    h: Harness, sts: Object, pods: list[Object], current: Object, update: Object
) -> dict[str, Any]:
    for p in pods:
        h.seed(PODS, p)
    control = StatefulPodControl(h.fake, h.recorder, h.factory.informer(PERSISTENTVOLUMECLAIMS).indexer)
    return await SetUpdate(UpdateContext(control, h.clock.now()), sts, revisions(current, update), pods).run()


def writes(h: Harness) -> list[str]:
    """``create web-0`` / ``delete web-2`` for each pod write, in order."""
    out = []
    for action in h.fake.filter_actions(resource="pods"):
        if action.verb == "create":
            out.append(f"create {action.body['metadata']['name']}")
        elif action.verb == "delete":
            out.append(f"delete {action.name}")
    return out


@dataclass
class Case:
    name: str
    sts: Object
    pods: list[Object]
    want: list[str]
    current: Object = field(default_factory=lambda: R1)
    update: Object = field(default_factory=lambda: R1)


def ready(*ordinals: int, rev: Object = R1, sts: Object = WEB) -> list[Object]:
    return [member(sts, o, rev) for o in ordinals]


CASES = [
    Case("ordered: only the first member is created", WEB, [], ["create web-0"]),
    Case("ordered: next waits for Running", WEB, [member(WEB, 0, R1, phase="Pending", ready=False)], []),
    Case("ordered: next waits for Ready", WEB, [member(WEB, 0, R1, ready=False)], []),
    Case("ordered: next after a Ready predecessor", WEB, ready(0), ["create web-1"]),
    Case("ordered: a gap is filled first", WEB, ready(0, 2), ["create web-1"]),
    Case("ordered: waits for a terminating member", WEB, [member(WEB, 0, R1, deleting=True)], []),
    Case(
        "parallel: every missing member at once",
        stateful_set(podManagementPolicy="Parallel"),
        [],
        ["create web-0", "create web-1", "create web-2"],
    ),
    Case(
        "parallel: does not wait for readiness",
        stateful_set(podManagementPolicy="Parallel"),
        [member(WEB, 0, R1, ready=False)],
        ["create web-1", "create web-2"],
    ),
    Case("ordinals.start shifts the names", stateful_set(ordinals={"start": 5}), [], ["create web-5"]),
    Case(
        "ordinals.start: members below start are condemned",
        stateful_set(replicas=2, ordinals={"start": 1}),
        ready(0, 1, 2),
        ["delete web-0"],
    ),
    Case(
        "failed member is deleted, nothing else",
        WEB,
        [member(WEB, 0, R1, phase="Failed", ready=False), *ready(1, 2)],
        ["delete web-0"],
    ),
    Case(
        "succeeded member is deleted",
        WEB,
        [*ready(0), member(WEB, 1, R1, phase="Succeeded", ready=False)],
        ["delete web-1"],
    ),
    Case(
        "scale down: highest ordinal first, one at a time",
        stateful_set(replicas=1),
        ready(0, 1, 2),
        ["delete web-2"],
    ),
    Case(
        "scale down waits for an unhealthy member",
        stateful_set(replicas=1),
        [member(WEB, 0, R1, ready=False), *ready(1, 2)],
        [],
    ),
    Case(
        "scale down waits for a terminating condemned member",
        stateful_set(replicas=1),
        [*ready(0, 1), member(WEB, 2, R1, deleting=True)],
        [],
    ),
    Case(
        "scale down: an unhealthy highest member may go",
        stateful_set(replicas=1),
        [*ready(0, 1), member(WEB, 2, R1, ready=False)],
        ["delete web-2"],
    ),
    Case(
        "parallel scale down deletes all condemned",
        stateful_set(replicas=1, podManagementPolicy="Parallel"),
        ready(0, 1, 2),
        ["delete web-2", "delete web-1"],
    ),
    Case("scale to zero", stateful_set(replicas=0), ready(0), ["delete web-0"]),
    Case("rolling update: highest old member first", WEB2, ready(0, 1, 2), ["delete web-2"], R1, R2),
    Case(
        "rolling update: waits for the updated member",
        WEB2,
        [*ready(0, 1), member(WEB2, 2, R2, ready=False)],
        [],
        R1,
        R2,
    ),
    Case(
        "rolling update: next after the updated one is Ready",
        WEB2,
        [*ready(0, 1), *ready(2, rev=R2, sts=WEB2)],
        ["delete web-1"],
        R1,
        R2,
    ),
    Case(
        "partition: members below it keep the old revision",
        with_image(
            stateful_set(updateStrategy={"type": "RollingUpdate", "rollingUpdate": {"partition": 2}}),
            "nginx:2",
        ),
        [*ready(0, 1), *ready(2, rev=R2, sts=WEB2)],
        [],
        R1,
        R2,
    ),
    Case(
        "partition: at or above it updates",
        with_image(
            stateful_set(updateStrategy={"type": "RollingUpdate", "rollingUpdate": {"partition": 2}}),
            "nginx:2",
        ),
        ready(0, 1, 2),
        ["delete web-2"],
        R1,
        R2,
    ),
    Case(
        "partition above replicas updates nothing",
        with_image(
            stateful_set(updateStrategy={"type": "RollingUpdate", "rollingUpdate": {"partition": 3}}),
            "nginx:2",
        ),
        ready(0, 1, 2),
        [],
        R1,
        R2,
    ),
    Case(
        "maxUnavailable 2 deletes two at once",
        with_image(
            stateful_set(
                updateStrategy={
                    "type": "RollingUpdate",
                    "rollingUpdate": {"partition": 0, "maxUnavailable": 2},
                }
            ),
            "nginx:2",
        ),
        ready(0, 1, 2),
        ["delete web-2", "delete web-1"],
        R1,
        R2,
    ),
    Case(
        "maxUnavailable counts unavailable members",
        with_image(
            stateful_set(
                podManagementPolicy="Parallel",
                updateStrategy={
                    "type": "RollingUpdate",
                    "rollingUpdate": {"partition": 0, "maxUnavailable": 2},
                },
            ),
            "nginx:2",
        ),
        [*ready(0, 1), member(WEB2, 2, R2, ready=False)],
        ["delete web-1"],
        R1,
        R2,
    ),
    Case(
        "OnDelete never deletes for an update",
        with_image(stateful_set(updateStrategy={"type": "OnDelete"}), "nginx:2"),
        ready(0, 1, 2),
        [],
        R1,
        R2,
    ),
    Case(
        "scaling takes precedence over updates",
        with_image(stateful_set(replicas=2), "nginx:2"),
        ready(0, 1, 2),
        ["delete web-2"],
        R1,
        R2,
    ),
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
async def test_update_pass(case: Case) -> None:
    h = Harness()
    await run_pass(h, case.sts, case.pods, case.current, case.update)
    assert writes(h) == case.want


async def test_created_member_has_stable_identity_and_upstream_event() -> None:
    h = Harness()
    await run_pass(h, WEB, [], R1, R1)
    pod = h.stored(PODS, "web-0")
    assert pod["spec"]["hostname"] == "web-0" and pod["spec"]["subdomain"] == "nginx"
    assert pod["metadata"]["labels"] == {
        "app": "web",
        "statefulset.kubernetes.io/pod-name": "web-0",
        "apps.kubernetes.io/pod-index": "0",
        "controller-revision-hash": "web-r1",
    }
    ref = pod["metadata"]["ownerReferences"][0]
    assert (ref["kind"], ref["name"], ref["controller"]) == ("StatefulSet", "web", True)
    assert "generateName" not in pod["metadata"]
    assert h.recorder.events == ["Normal SuccessfulCreate create Pod web-0 in StatefulSet web successful"]


async def test_new_member_below_partition_gets_the_current_revision() -> None:
    sts = with_image(
        stateful_set(updateStrategy={"type": "RollingUpdate", "rollingUpdate": {"partition": 2}}), "nginx:2"
    )
    h = Harness()
    await run_pass(h, sts, [], R1, R2)
    pod = h.stored(PODS, "web-0")
    assert pod["metadata"]["labels"]["controller-revision-hash"] == "web-r1"
    assert pod["spec"]["containers"][0]["image"] == "nginx:1"


async def test_new_member_at_or_above_partition_gets_the_update_revision() -> None:
    sts = with_image(
        stateful_set(
            podManagementPolicy="Parallel",
            updateStrategy={"type": "RollingUpdate", "rollingUpdate": {"partition": 2}},
        ),
        "nginx:2",
    )
    h = Harness()
    await run_pass(h, sts, [], R1, R2)
    pod = h.stored(PODS, "web-2")
    assert pod["metadata"]["labels"]["controller-revision-hash"] == "web-r2"
    assert pod["spec"]["containers"][0]["image"] == "nginx:2"


async def test_failed_create_records_upstream_warning_and_raises() -> None:
    from minikube_py.api.errors import ApiError

    h = Harness()
    h.fake.fail("create", "pods", ApiError(403, "Forbidden", "exceeded quota"))
    with pytest.raises(ApiError):
        await run_pass(h, WEB, [], R1, R1)
    assert h.recorder.events == [
        "Warning FailedCreate create Pod web-0 in StatefulSet web failed error: exceeded quota"
    ]


async def test_status_counts() -> None:
    h = Harness()
    pods = [*ready(0), member(WEB, 1, R1, ready=False), *ready(2, rev=R2, sts=WEB2)]
    status = await run_pass(h, stateful_set(minReadySeconds=30), pods, R1, R2)
    assert (status["replicas"], status["readyReplicas"], status["availableReplicas"]) == (3, 2, 2)
    assert (status["currentReplicas"], status["updatedReplicas"]) == (2, 1)
    assert (status["currentRevision"], status["updateRevision"], status["collisionCount"]) == (
        "web-r1",
        "web-r2",
        0,
    )
    assert status["observedGeneration"] == 1


async def test_min_ready_seconds_holds_the_next_member() -> None:
    h = Harness()
    sts = stateful_set(minReadySeconds=30)
    await run_pass(h, sts, [member(sts, 0, R1, ready_since=time_at(h.clock, -10))], R1, R1)
    assert writes(h) == []
    h2 = Harness()
    await run_pass(h2, sts, [member(sts, 0, R1, ready_since=time_at(h2.clock, -31))], R1, R1)
    assert writes(h2) == ["create web-1"]


@pytest.mark.parametrize(
    ("value", "replicas", "want"),
    [(1, 5, 1), (3, 5, 3), ("50%", 5, 2), ("10%", 5, 1), ("100%", 4, 4), (0, 3, 1)],
)
def test_max_unavailable(value: Any, replicas: int, want: int) -> None:
    sts = stateful_set(updateStrategy={"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": value}})
    assert max_unavailable(sts, replicas) == want
