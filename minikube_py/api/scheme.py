"""The scheme: which resource types exist and how kinds map to group/version/resource.

One ``ResourceType`` per served resource carries everything discovery, routing, the registry
and clients need to know about it (kind, plural and singular names, scope, short names,
categories, verbs, subresources). ``Scheme`` indexes them both ways.

A kind declares itself on its model (``minikube_py.api.models``): a ``Served`` declaration is
a ``ResourceType`` whose kind is the model's class name; a ``Kind`` declaration names a kind that
has a model but no resource of its own (subresource bodies, options, ``Status``). This module
imports nothing heavy, so models and clients can both use it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

ALL_VERBS = ("create", "delete", "deletecollection", "get", "list", "patch", "update", "watch")


@dataclass(frozen=True, slots=True)
class Subresource:
    """``pods/status``, ``deployments/scale``... ``group``/``version``/``kind`` of the object
    the subresource takes and returns (empty: the parent's group/version)."""

    name: str
    kind: str
    verbs: tuple[str, ...]
    group: str | None = None
    version: str | None = None


@dataclass(frozen=True, slots=True)
class ResourceType:
    group: str
    version: str
    kind: str
    resource: str
    namespaced: bool
    short_names: tuple[str, ...] = ()
    categories: tuple[str, ...] = ()
    verbs: tuple[str, ...] = ALL_VERBS
    subresources: tuple[Subresource, ...] = ()
    singular: str = field(default="")

    @property
    def api_version(self) -> str:
        return f"{self.group}/{self.version}" if self.group else self.version

    @property
    def group_version(self) -> str:
        return self.api_version

    @property
    def list_kind(self) -> str:
        return self.kind + "List"

    @property
    def singular_name(self) -> str:
        return self.singular or self.kind.lower()

    @property
    def qualified_resource(self) -> str:
        """``deployments.apps``; ``configmaps`` for the core group (as error messages say)."""
        return f"{self.resource}.{self.group}" if self.group else self.resource

    def subresource(self, name: str) -> Subresource | None:
        return next((s for s in self.subresources if s.name == name), None)


NO_COLLECTION = ("create", "delete", "get", "list", "patch", "update", "watch")
STATUS = Subresource("status", "", ("get", "patch", "update"))
# the connect subresources that proxy every method (pods/proxy...), as discovery lists them
PROXY_VERBS = ("create", "delete", "get", "patch", "update")
SCALE = Subresource("scale", "Scale", ("get", "patch", "update"), "autoscaling", "v1")
ALL_CATEGORY = ("all",)
CREATE_ONLY = ("create",)  # reviews: answered, stored nowhere


def Served(  # named as the declaration it is, beside Kind
    group: str,
    version: str,
    resource: str,
    namespaced: bool,
    short_names: tuple[str, ...] = (),
    categories: tuple[str, ...] = (),
    verbs: tuple[str, ...] = ALL_VERBS,
    subresources: tuple[Subresource, ...] = (),
    singular: str = "",
    kind: str = "",
) -> ResourceType:
    """A model's declaration that its kind is served as a REST resource (``kinds = (Served(...),)``
    on the model class): the resource type, whose ``kind`` (when left empty) the registry fills
    in with the model's class name."""
    return ResourceType(
        group, version, kind, resource, namespaced, short_names, categories, verbs, subresources, singular
    )


@dataclass(frozen=True, slots=True)
class Kind:
    """A model's declaration of a kind without a resource of its own (``Binding``, ``Scale``,
    ``DeleteOptions``...): decoding, field validation and OpenAPI find the model by it."""

    api_version: str
    kind: str = ""


Declaration = ResourceType | Kind


def version_priority(version: str) -> tuple[int, int, int]:
    """Upstream's version order inside a group as a sort key: GA before beta before alpha, the
    higher number first (``v1``, ``v1beta2``, ``v1beta1``, ``v1alpha1``); the first is preferred."""
    match = re.fullmatch(r"v(\d+)(?:(alpha|beta)(\d+))?", version)
    if match is None:
        return (3, 0, 0)  # not a Kubernetes version string: after every one that is
    major, stage, minor = match.groups()
    rank = {None: 0, "beta": 1, "alpha": 2}[stage]
    return (rank, -int(major), -int(minor or 0))


# The order kube-apiserver lists its built-in groups in (``/apis``, aggregated discovery): its
# aggregator registers each group with a priority, the highest first, and groups it does not
# know (extension APIs such as metrics.k8s.io) come after them. A group of ours absent here sorts
# after these, by name.
GROUP_ORDER = (
    "",
    "apiregistration.k8s.io",
    "apps",
    "events.k8s.io",
    "authentication.k8s.io",
    "authorization.k8s.io",
    "autoscaling",
    "batch",
    "certificates.k8s.io",
    "networking.k8s.io",
    "policy",
    "rbac.authorization.k8s.io",
    "storage.k8s.io",
    "admissionregistration.k8s.io",
    "apiextensions.k8s.io",
    "scheduling.k8s.io",
    "coordination.k8s.io",
    "node.k8s.io",
    "discovery.k8s.io",
    "flowcontrol.apiserver.k8s.io",
    "resource.k8s.io",
)
_GROUP_RANK = {group: rank for rank, group in enumerate(GROUP_ORDER)}


def served_order(rt: ResourceType) -> tuple[int, str, tuple[int, int, int], str]:
    """The order of a scheme built from declarations: groups as kube-apiserver lists them
    (``GROUP_ORDER``, the core group first), then other groups by name; versions by priority;
    resources by name, as upstream's discovery lists them."""
    rank = _GROUP_RANK.get(rt.group, len(GROUP_ORDER))
    return (rank, rt.group, version_priority(rt.version), rt.resource)


class Scheme:
    """Resource types by (group, version, resource) and by (apiVersion, kind)."""

    def __init__(self, types: Iterable[ResourceType] = ()) -> None:
        self._by_resource: dict[tuple[str, str, str], ResourceType] = {}
        self._by_kind: dict[tuple[str, str], ResourceType] = {}
        for rt in types:
            self.register(rt)

    def register(self, rt: ResourceType) -> None:
        key = (rt.group, rt.version, rt.resource)
        if key in self._by_resource:
            raise ValueError(f"resource {rt.resource} in {rt.api_version} is registered twice")
        self._by_resource[key] = rt
        self._by_kind.setdefault((rt.api_version, rt.kind), rt)

    def by_resource(self, group: str, version: str, resource: str) -> ResourceType | None:
        return self._by_resource.get((group, version, resource))

    def by_kind(self, api_version: str, kind: str) -> ResourceType | None:
        return self._by_kind.get((api_version, kind))

    def __iter__(self) -> Iterator[ResourceType]:
        return iter(self._by_resource.values())

    def group_versions(self) -> list[tuple[str, str]]:
        """(group, version) pairs in registration order, the core group first."""
        seen: dict[tuple[str, str], None] = {}
        for rt in self:
            seen.setdefault((rt.group, rt.version), None)
        return sorted(seen, key=lambda gv: gv[0] != "")

    def in_group_version(self, group: str, version: str) -> list[ResourceType]:
        return [rt for rt in self if (rt.group, rt.version) == (group, version)]
