"""Guard: every controller of the registry can act in a cluster with the bootstrap policy.

For each built-in ``ControllerSpec``:
- the ClusterRole ``system:controller:<service account>`` exists, and the ClusterRoleBinding of
  the same name grants it to ``kube-system/<service account>`` (the identity the controller
  acts with under ``--use-service-account-credentials``);
- every informer the controller asks the shared factory for can be listed and watched, in
  its namespace (or cluster-wide), by the identity that reads it. The shared informers read
  with the controller-manager's own credentials (``system:kube-controller-manager``), as
  upstream's do; the controllers' own roles hold their writes (upstream gives the
  service-account controller only ``create serviceaccounts``, though it watches namespaces).

Decisions come from the apiserver's RBAC authorizer over the bootstrap policy objects, and the
informers from building each controller against a factory that records what it is asked
for, so nothing here restates what a controller watches: a new controller, or a new informer
in an old one, is checked without editing this file. A forgotten role shows up here rather
than as 403s in the end-to-end tests."""

from __future__ import annotations

from typing import Any

import pytest

from apiserver.authz.attributes import Attributes
from apiserver.authz.bootstrappolicy import cluster_role_bindings, cluster_roles
from apiserver.authz.controllerpolicy import PREFIX, controller_role_bindings, controller_roles
from apiserver.authz.policycache import PolicyCache
from apiserver.authz.rbac import RBACAuthorizer, RuleResolver
from apiserver.request.user import UserInfo
from controllers.manager.builtin import builtin_registry
from controllers.manager.registry import ControllerContext, ControllerSpec
from minikube_py.api.scheme import ResourceType
from minikube_py.cache.factory import SharedInformerFactory
from minikube_py.cache.informer import SharedInformer
from minikube_py.client.resourcetypes import CONFIGMAPS
from minikube_py.clock import FakeClock
from minikube_py.events import EventRecorder
from minikube_py.testing.fakeclient import FakeClient

MANAGER = UserInfo("system:kube-controller-manager", ("system:authenticated",))
SPECS = builtin_registry().specs()


class Static:
    """A watch cache that never changes."""

    resource_version = 1

    def __init__(self, objects: list[dict[str, Any]]) -> None:
        self._objects = objects

    def objects(self, prefix: str = "") -> list[dict[str, Any]]:
        return list(self._objects)


def authorizer(bindings: list[dict[str, Any]] | None = None) -> RBACAuthorizer:
    roles = Static(cluster_roles() + controller_roles())
    if bindings is None:
        bindings = cluster_role_bindings() + controller_role_bindings()
    return RBACAuthorizer(RuleResolver(PolicyCache(Static([]), roles, Static([]), Static(bindings))))


class RecordingFactory(SharedInformerFactory):
    """Remembers every (resource, namespace) a controller asks an informer for."""

    def __init__(self) -> None:
        super().__init__(FakeClient(), clock=FakeClock())
        self.asked: set[tuple[ResourceType, str | None]] = set()

    def informer(
        self,
        resource_type: ResourceType,
        namespace: str | None = None,
        *,
        field_selector: str = "",
        label_selector: str = "",
    ) -> SharedInformer:
        self.asked.add((resource_type, namespace))
        return super().informer(
            resource_type, namespace, field_selector=field_selector, label_selector=label_selector
        )


def informers_of(spec: ControllerSpec) -> set[tuple[ResourceType, str | None]]:
    factory, fake, clock = RecordingFactory(), FakeClient(), FakeClock()
    spec.new(ControllerContext(fake, factory, EventRecorder(fake, spec.service_account, clock=clock), clock))
    return factory.asked


def problems(spec: ControllerSpec, rbac: RBACAuthorizer | None = None) -> list[str]:
    """What keeps ``spec``'s controller from working under the bootstrap policy."""
    rbac = rbac or authorizer()
    found = []
    name = PREFIX + spec.service_account
    if not any(role["metadata"]["name"] == name for role in controller_roles()):
        found.append(f"no ClusterRole {name}")
    account = {"kind": "ServiceAccount", "name": spec.service_account, "namespace": "kube-system"}
    bindings = [b for b in controller_role_bindings() if b["metadata"]["name"] == name]
    if not any(b["roleRef"]["name"] == name and account in b["subjects"] for b in bindings):
        found.append(f"no ClusterRoleBinding {name} to kube-system/{spec.service_account}")
    for rt, namespace in sorted(informers_of(spec), key=lambda item: (item[0].resource, item[1] or "")):
        for verb in ("list", "watch"):
            attrs = Attributes(
                MANAGER,
                verb,
                resource_request=True,
                namespace=namespace or "",
                api_group=rt.group,
                api_version=rt.version,
                resource=rt.resource,
            )
            if not rbac.authorize(attrs).allowed:
                where = f" in {namespace}" if namespace else ""
                reader = MANAGER.name
                found.append(f"{reader} cannot {verb} {rt.resource}{where} (an informer of {spec.name})")
    return found


@pytest.mark.parametrize("spec", SPECS, ids=[spec.name for spec in SPECS])
def test_every_controller_has_its_role_and_its_informers_can_be_read(spec: ControllerSpec) -> None:
    assert informers_of(spec), f"{spec.name} asks for no informer: the guard would check nothing"
    assert problems(spec) == []


def test_the_guard_names_a_controller_without_a_role() -> None:
    forgotten = ControllerSpec("forgotten-controller", SPECS[0].new, "forgotten", 1)
    assert problems(forgotten) == [
        "no ClusterRole system:controller:forgotten",
        "no ClusterRoleBinding system:controller:forgotten to kube-system/forgotten",
    ]


def test_the_guard_names_an_informer_its_reader_may_not_list() -> None:
    """Without the controller-manager's binding, nothing its informers watch is readable."""
    (publisher,) = builtin_registry().select(["root-ca-cert-publisher"])
    unbound = [b for b in cluster_role_bindings() if b["metadata"]["name"] != MANAGER.name]
    found = problems(publisher, authorizer(unbound + controller_role_bindings()))
    assert f"{MANAGER.name} cannot watch {CONFIGMAPS.resource} (an informer of {publisher.name})" in found
    assert f"{MANAGER.name} cannot list namespaces (an informer of {publisher.name})" in found
