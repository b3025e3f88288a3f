from __future__ import annotations

from controllers.serviceaccount import ServiceAccountController
from minikube_py.api import errors
from minikube_py.client.resourcetypes import NAMESPACES, SERVICEACCOUNTS
from tests.controllers.lifecycle.fixtures import World, meta


def namespace(name: str, phase: str = "Active") -> dict[str, object]:
    return {"metadata": meta(name), "spec": {"finalizers": ["kubernetes"]}, "status": {"phase": phase}}


def make(world: World) -> ServiceAccountController:
    return ServiceAccountController(world.fake, world.factory, world.recorder, clock=world.clock)


async def test_default_is_created_in_a_new_namespace() -> None:
    world = World()
    world.seed(NAMESPACES, namespace("team"))
    controller = make(world)
    await controller.sync("team")
    (create,) = world.fake.filter_actions("create", "serviceaccounts")
    assert (create.namespace, create.name) == ("team", "default")
    assert world.fake.stored(SERVICEACCOUNTS, "team", "default") is not None


async def test_existing_default_is_left_alone() -> None:
    world = World()
    world.seed(NAMESPACES, namespace("team"))
    world.seed(SERVICEACCOUNTS, {"metadata": meta("default", "team")})
    controller = make(world)
    await controller.sync("team")
    assert not world.fake.filter_actions("create")


async def test_terminating_or_missing_namespace_gets_nothing() -> None:
    world = World()
    world.seed(NAMESPACES, namespace("going", "Terminating"))
    controller = make(world)
    await controller.sync("going")
    await controller.sync("missing")
    assert not world.fake.filter_actions("create")


async def test_deleted_default_is_recreated() -> None:
    world = World()
    world.seed(NAMESPACES, namespace("team"))
    (sa,) = world.seed(SERVICEACCOUNTS, {"metadata": meta("default", "team")})
    controller = make(world)
    await world.fake.resource(SERVICEACCOUNTS, "team").delete("default")
    world.factory.informer(SERVICEACCOUNTS).indexer.delete(sa)
    controller._service_account_deleted(sa)  # what the informer's delete handler gets
    assert len(controller.queue) == 1
    key = await controller.queue.get()
    assert key == "team"
    await controller.sync(key)
    assert world.fake.stored(SERVICEACCOUNTS, "team", "default") is not None


async def test_already_exists_is_success_and_other_errors_fail() -> None:
    world = World()
    world.seed(NAMESPACES, namespace("team"))
    controller = make(world)
    world.fake.fail("create", "serviceaccounts", errors.already_exists("serviceaccounts", "default"))
    await controller.sync("team")  # the cache lagged: someone else created it

    world.fake.fail("create", "serviceaccounts", errors.internal("etcd is down"))
    try:
        await controller.sync("team")
    except RuntimeError as exc:
        assert "etcd is down" in str(exc)
    else:
        raise AssertionError("a failed create must fail the sync (and be retried)")


async def test_namespace_terminating_refusal_is_not_an_error() -> None:
    world = World()
    world.seed(NAMESPACES, namespace("team"))
    controller = make(world)
    refusal = errors.forbidden("serviceaccounts", "default", "", "namespace team is being terminated")
    refusal.causes = [errors.Cause("NamespaceTerminating", "namespace team is being terminated")]
    world.fake.fail("create", "serviceaccounts", refusal)
    await controller.sync("team")
