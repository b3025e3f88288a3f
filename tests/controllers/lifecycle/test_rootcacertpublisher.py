"""The root CA certificate publisher against FakeClient: ``sync(key)`` creates, recreates and
rewrites ``kube-root-ca.crt``, leaves terminating namespaces alone; plus its RBAC role and the
``--root-ca-file`` flag."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives.serialization import Encoding

from apiserver.authz.controllerpolicy import controller_role_bindings, controller_roles
from controllers.manager.builtin import builtin_registry
from controllers.options import add_flags, ca_bundle, manager_options
from controllers.rootcacertpublisher import RootCACertPublisher
from controllers.rootcacertpublisher.publisher import DESCRIPTION, DESCRIPTION_ANNOTATION, ROOT_CA_CONFIGMAP
from minikube_py.api import errors
from minikube_py.client.config import ClientConfig
from minikube_py.client.resourcetypes import CONFIGMAPS, NAMESPACES
from minikube_py.pki import new_certificate_authority
from tests.cluster import run_cli
from tests.controllers.lifecycle.fixtures import World, meta

ROOT_CA = b"-----BEGIN CERTIFICATE-----\nMIIB...\n-----END CERTIFICATE-----\n"
WANT = {"ca.crt": ROOT_CA.decode()}


def namespace(name: str, phase: str = "Active") -> dict[str, object]:
    return {"metadata": meta(name), "spec": {"finalizers": ["kubernetes"]}, "status": {"phase": phase}}


def make(world: World) -> RootCACertPublisher:
    return RootCACertPublisher(world.fake, world.factory, ROOT_CA, clock=world.clock)


def seed_configmap(world: World, controller: RootCACertPublisher, ns: str, **fields: Any) -> dict[str, Any]:
    """Store the ConfigMap in the fake and in the controller's (field-selected) informer cache."""
    (stored,) = world.fake.seed(CONFIGMAPS, {"metadata": meta(ROOT_CA_CONFIGMAP, ns), **fields})
    controller.configmaps.indexer.add(stored)
    return stored


def published(world: World, ns: str) -> dict[str, Any]:
    configmap = world.fake.stored(CONFIGMAPS, ns, ROOT_CA_CONFIGMAP)
    assert configmap is not None
    return configmap


async def test_a_new_namespace_gets_the_ca_bundle() -> None:
    world = World()
    world.seed(NAMESPACES, namespace("team"))
    await make(world).sync("team")
    (create,) = world.fake.filter_actions("create", "configmaps")
    assert (create.namespace, create.name) == ("team", ROOT_CA_CONFIGMAP)
    configmap = published(world, "team")
    assert configmap["data"] == WANT
    assert configmap["metadata"]["annotations"] == {DESCRIPTION_ANNOTATION: DESCRIPTION}
    assert DESCRIPTION.startswith("Contains a CA bundle that can be used to verify the kube-apiserver when")


async def test_an_up_to_date_configmap_is_left_alone() -> None:
    world = World()
    world.seed(NAMESPACES, namespace("team"))
    controller = make(world)
    seed_configmap(
        world,
        controller,
        "team",
        data=dict(WANT),
        metadata=meta(ROOT_CA_CONFIGMAP, "team", annotations={DESCRIPTION_ANNOTATION: DESCRIPTION}),
    )
    await controller.sync("team")
    assert not world.fake.filter_actions("create") and not world.fake.filter_actions("update")


async def test_a_deleted_configmap_is_recreated() -> None:
    world = World()
    world.seed(NAMESPACES, namespace("team"))
    controller = make(world)
    await controller.sync("team")
    configmap = published(world, "team")
    await world.fake.resource(CONFIGMAPS, "team").delete(ROOT_CA_CONFIGMAP)
    controller._configmap_changed(configmap)  # what the informer's delete handler gets
    assert len(controller.queue) == 1
    key = await controller.queue.get()
    assert key == "team"
    await controller.sync(key)
    assert len(world.fake.filter_actions("create", "configmaps")) == 2
    assert published(world, "team")["data"] == WANT


async def test_an_edited_configmap_is_rewritten_keeping_other_metadata() -> None:
    world = World()
    world.seed(NAMESPACES, namespace("team"))
    controller = make(world)
    edited = meta(ROOT_CA_CONFIGMAP, "team", labels={"mine": "yes"}, annotations={"note": "hand-edited"})
    seed_configmap(world, controller, "team", metadata=edited, data={"ca.crt": "tampered", "extra": "x"})
    controller._configmap_changed(published(world, "team"))  # an update event enqueues its namespace
    assert await controller.queue.get() == "team"
    await controller.sync("team")
    (update,) = world.fake.filter_actions("update", "configmaps")
    assert update.body["metadata"]["resourceVersion"]  # optimistic concurrency: a stale cache conflicts
    configmap = published(world, "team")
    assert configmap["data"] == WANT
    assert configmap["metadata"]["labels"] == {"mine": "yes"}
    assert configmap["metadata"]["annotations"] == {
        "note": "hand-edited",
        DESCRIPTION_ANNOTATION: DESCRIPTION,
    }


async def test_a_lost_annotation_alone_is_restored() -> None:
    world = World()
    world.seed(NAMESPACES, namespace("team"))
    controller = make(world)
    seed_configmap(world, controller, "team", data=dict(WANT))
    await controller.sync("team")
    assert published(world, "team")["metadata"]["annotations"] == {DESCRIPTION_ANNOTATION: DESCRIPTION}


async def test_terminating_or_missing_namespace_gets_nothing() -> None:
    world = World()
    world.seed(NAMESPACES, namespace("going", "Terminating"))
    controller = make(world)
    await controller.sync("going")
    await controller.sync("missing")
    assert not world.fake.actions


async def test_namespace_terminating_refusal_or_gone_namespace_is_not_an_error() -> None:
    world = World()
    world.seed(NAMESPACES, namespace("team"))
    controller = make(world)
    refusal = errors.forbidden("configmaps", ROOT_CA_CONFIGMAP, "", "namespace team is being terminated")
    refusal.causes = [errors.Cause("NamespaceTerminating", "namespace team is being terminated")]
    world.fake.fail("create", "configmaps", refusal)
    await controller.sync("team")
    world.fake.fail("create", "configmaps", errors.not_found("namespaces", "team"))
    await controller.sync("team")
    assert world.fake.stored(CONFIGMAPS, "team", ROOT_CA_CONFIGMAP) is None


async def test_other_failures_fail_the_sync() -> None:
    world = World()
    world.seed(NAMESPACES, namespace("team"))
    controller = make(world)
    world.fake.fail("create", "configmaps", errors.internal("etcd is down"))
    with pytest.raises(errors.ApiError, match="etcd is down"):
        await controller.sync("team")
    world.fake.fail("create", "configmaps", errors.already_exists("configmaps", ROOT_CA_CONFIGMAP))
    with pytest.raises(errors.ApiError):  # the cache lagged: retried once it shows the ConfigMap
        await controller.sync("team")


def test_handlers_enqueue_only_active_namespaces_and_the_published_name() -> None:
    world = World()
    controller = make(world)
    controller._namespace_updated(namespace("going", "Terminating"))
    controller._configmap_changed({"metadata": meta("other", "team")})
    assert len(controller.queue) == 0
    controller._namespace_added(namespace("going", "Terminating"))  # upstream: adds always enqueue
    controller._namespace_updated(namespace("team"))
    assert len(controller.queue) == 2


def test_the_configmap_informer_watches_only_kube_root_ca_crt() -> None:
    world = World()
    controller = make(world)
    selected = world.factory.informer(CONFIGMAPS, field_selector=f"metadata.name={ROOT_CA_CONFIGMAP}")
    assert controller.configmaps is selected
    assert controller.configmaps is not world.factory.informer(CONFIGMAPS)


def test_registered_under_upstream_names_with_its_own_service_account() -> None:
    (spec,) = builtin_registry().select(["root-ca-cert-publisher"])
    assert spec.name == "root-ca-certificate-publisher-controller"
    assert spec.service_account == "root-ca-cert-publisher"


def test_rbac_role_allows_configmap_writes_and_events() -> None:
    name = "system:controller:root-ca-cert-publisher"
    (role,) = [r for r in controller_roles() if r["metadata"]["name"] == name]
    assert {"verbs": ["create", "update"], "apiGroups": [""], "resources": ["configmaps"]} in role["rules"]
    assert any("events" in rule["resources"] and "patch" in rule["verbs"] for rule in role["rules"])
    (binding,) = [b for b in controller_role_bindings() if b["metadata"]["name"] == name]
    assert binding["subjects"] == [
        {"kind": "ServiceAccount", "name": "root-ca-cert-publisher", "namespace": "kube-system"}
    ]


def test_ca_bundle_comes_from_inline_data_then_the_file(tmp_path: Path) -> None:
    ca_file = tmp_path / "ca.crt"
    ca_file.write_bytes(b"from file")
    assert ClientConfig(server="https://x", ca_file=ca_file).ca_bundle() == b"from file"
    assert ClientConfig(server="https://x", ca_file=ca_file, ca_data=b"inline").ca_bundle() == b"inline"
    assert ClientConfig(server="https://x").ca_bundle() is None


def test_root_ca_file_must_hold_pem_certificates(tmp_path: Path) -> None:
    good = tmp_path / "ca.crt"
    pem = new_certificate_authority().certificate.public_bytes(Encoding.PEM)
    good.write_bytes(pem)
    assert ca_bundle(str(good)) == pem
    bad = tmp_path / "bad.crt"
    for content in (b"", b"not a certificate"):
        bad.write_bytes(content)
        with pytest.raises(argparse.ArgumentTypeError, match="holds no PEM certificates"):
            ca_bundle(str(bad))
    with pytest.raises(argparse.ArgumentTypeError, match="cannot read"):
        ca_bundle(str(tmp_path / "missing.crt"))


def parse(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    add_flags(parser)
    return parser.parse_args(["--kubeconfig", "k", *argv])


def test_root_ca_file_flag_reaches_the_manager_options(tmp_path: Path) -> None:
    pem = new_certificate_authority().certificate.public_bytes(Encoding.PEM)
    (tmp_path / "ca.crt").write_bytes(pem)
    assert manager_options(parse("--root-ca-file", str(tmp_path / "ca.crt")), None).root_ca == pem
    assert manager_options(parse(), None).root_ca is None  # the kubeconfig's CA, read when starting


@pytest.mark.e2e
def test_a_bad_root_ca_file_is_a_usage_error(tmp_path: Path) -> None:
    bad = tmp_path / "bad.crt"
    bad.write_text("nope")
    result = run_cli("controller-manager", "--kubeconfig", "k", "--root-ca-file", str(bad))
    assert result.returncode == 2
    assert "holds no PEM certificates" in result.stderr
