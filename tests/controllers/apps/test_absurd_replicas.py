"""Controllers refuse to act on a stored ``spec.replicas`` that is no sane int32 (issue 13 item
1: an object stored before the apiserver checked types, or written straight to the store; a
Deployment with ``replicas: 1e308`` once made the ReplicaSet controller create 44,000 pods)."""

from __future__ import annotations

from typing import Any

import pytest

from controllers.deployment import DeploymentController
from controllers.replicaset import ReplicaSetController
from minikube_py.api.replicas import spec_replicas
from minikube_py.client.resourcetypes import DEPLOYMENTS, REPLICASETS
from tests.controllers.apps.harness import NS, Harness, deployment, owner_ref, replica_set

ABSURD = [1e308, 2.5, 2**31, "3", True, -1, {"n": 1}]


@pytest.mark.parametrize("value", ABSURD)
def test_spec_replicas_refuses_what_is_no_int32(value: Any) -> None:
    assert spec_replicas({"spec": {"replicas": value}}) is None


def test_spec_replicas_defaults_and_accepts_int32() -> None:
    assert spec_replicas({"spec": {}}) == 1
    assert spec_replicas({"spec": {"replicas": None}}) == 1
    assert spec_replicas({"spec": {"replicas": 0}}) == 0
    assert spec_replicas({"spec": {"replicas": 2**31 - 1}}) == 2**31 - 1


@pytest.mark.parametrize("value", ABSURD)
async def test_replica_set_controller_creates_no_pod(value: Any) -> None:
    h = Harness()
    rsc = ReplicaSetController(h.fake, h.factory, h.recorder, clock=h.clock)
    rs = replica_set("rs", 1)
    rs["spec"]["replicas"] = value
    h.seed(REPLICASETS, rs)
    await rsc.sync(f"{NS}/rs")
    assert h.fake.filter_actions("create", "pods") == []
    assert h.fake.filter_actions("update", "replicasets") == []
    [event] = h.recorder.events
    assert event.startswith(f"Warning InvalidReplicas spec.replicas {value!r} is not an int32")


@pytest.mark.parametrize("value", [1e308, "3"])
async def test_deployment_controller_creates_no_replica_set(value: Any) -> None:
    h = Harness()
    dc = DeploymentController(h.fake, h.factory, h.recorder, clock=h.clock)
    h.seed(DEPLOYMENTS, deployment(replicas=value))  # type: ignore[arg-type]
    await dc.sync(f"{NS}/web")
    assert h.fake.filter_actions("create", "replicasets") == []
    assert [e.split(" ", 2)[1] for e in h.recorder.events] == ["InvalidReplicas"]


async def test_deployment_controller_skips_when_its_replica_set_is_absurd() -> None:
    h = Harness()
    dc = DeploymentController(h.fake, h.factory, h.recorder, clock=h.clock)
    d = h.seed(DEPLOYMENTS, deployment(replicas=3))
    rs = replica_set("web-1", 1, labels={"app": "web"})
    rs["metadata"]["ownerReferences"] = [owner_ref(d)]
    rs["spec"]["replicas"] = 1e308
    h.seed(REPLICASETS, rs)
    await dc.sync(f"{NS}/web")
    assert h.fake.filter_actions("create", "replicasets") == []
    assert h.fake.filter_actions("update", "replicasets") == []
    assert any("replica set web-1: spec.replicas 1e+308" in e for e in h.recorder.events)
