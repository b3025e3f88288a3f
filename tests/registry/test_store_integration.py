"""The new strategies inside the real ``GenericStore`` (over in-memory storage): defaults on create,
422 causes, graceful deletion and the service allocator."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest

from apiserver.registry.resources.deployment import DeploymentStrategy
from apiserver.registry.resources.pod import PodStrategy
from apiserver.registry.resources.service import ServiceStrategy
from apiserver.registry.store import DeleteOptions, GenericStore
from apiserver.registry.strategy import Strategy
from apiserver.storage.memory import MemoryKV
from apiserver.storage.objects import KVObjectStorage
from minikube_py.api.builtin import builtin_scheme
from minikube_py.api.errors import ApiError


@pytest.fixture
async def kv() -> AsyncIterator[MemoryKV]:
    store = MemoryKV()
    yield store
    await store.close()


def store_for(kv: MemoryKV, resource: str, strategy: Strategy) -> GenericStore:
    rt = next(rt for rt in builtin_scheme() if rt.resource == resource and rt.group in ("", "apps"))
    return GenericStore(rt, strategy, KVObjectStorage(kv))


def pod(name: str, **spec: Any) -> dict[str, Any]:
    return {"metadata": {"name": name}, "spec": {"containers": [{"name": "app", "image": "nginx"}], **spec}}


async def test_pod_create_defaults_and_graceful_delete(kv: MemoryKV) -> None:
    pods = store_for(kv, "pods", PodStrategy())
    stored = await pods.create("default", pod("web", nodeName="n1"))
    assert stored["status"] == {"phase": "Pending", "qosClass": "BestEffort"}
    assert stored["spec"]["containers"][0]["imagePullPolicy"] == "Always"
    marked = await pods.delete("default", "web", DeleteOptions())
    assert marked["metadata"]["deletionGracePeriodSeconds"] == 30
    assert PodStrategy().table_cells(marked, 0)[2] == "Terminating"


async def test_unscheduled_pod_is_deleted_at_once(kv: MemoryKV) -> None:
    pods = store_for(kv, "pods", PodStrategy())
    await pods.create("default", pod("web"))
    await pods.delete("default", "web", DeleteOptions())
    with pytest.raises(ApiError) as caught:
        await pods.get("default", "web")
    assert caught.value.code == 404


async def test_invalid_pod_is_422_with_upstreams_message(kv: MemoryKV) -> None:
    pods = store_for(kv, "pods", PodStrategy())
    with pytest.raises(ApiError) as caught:
        await pods.create("default", {"metadata": {"name": "web"}, "spec": {"containers": [{"name": "a"}]}})
    assert caught.value.code == 422
    assert caught.value.message == 'Pod "web" is invalid: spec.containers[0].image: Required value'


async def test_deployment_generation_follows_the_spec(kv: MemoryKV) -> None:
    deployments = store_for(kv, "deployments", DeploymentStrategy())
    body = {
        "metadata": {"name": "web"},
        "spec": {
            "selector": {"matchLabels": {"app": "web"}},
            "template": {"metadata": {"labels": {"app": "web"}}, "spec": pod("x")["spec"]},
        },
    }
    stored = await deployments.create("default", body)
    assert stored["metadata"]["generation"] == 1 and stored["spec"]["replicas"] == 1

    def scale(obj: dict[str, Any]) -> dict[str, Any]:
        obj["spec"]["replicas"] = 3
        return obj

    updated = await deployments.update("default", "web", scale)
    assert updated["metadata"]["generation"] == 2
    unchanged = await deployments.update("default", "web", lambda obj: obj)
    assert unchanged["metadata"]["generation"] == 2


async def test_service_gets_a_cluster_ip_that_survives_updates(kv: MemoryKV) -> None:
    services = store_for(kv, "services", ServiceStrategy())
    stored = await services.create(
        "default", {"metadata": {"name": "web"}, "spec": {"ports": [{"port": 80}]}}
    )
    ip = stored["spec"]["clusterIP"]

    def replace(obj: dict[str, Any]) -> dict[str, Any]:
        return {"metadata": obj["metadata"], "spec": {"ports": [{"port": 8080}]}}

    updated = await services.update("default", "web", replace)
    assert updated["spec"]["clusterIP"] == ip and updated["spec"]["ports"][0]["targetPort"] == 8080
