"""authorization.k8s.io/v1: the access reviews (may a user do this; what may I do)."""

from __future__ import annotations

from minikube_py.api.models.base import K8sModel
from minikube_py.api.models.meta import ObjectMeta, TypeMeta
from minikube_py.api.scheme import CREATE_ONLY, Served

OPENAPI_PACKAGE = "io.k8s.api.authorization.v1"
GROUP = "authorization.k8s.io"


class FieldSelectorAttributes(K8sModel):
    """A field selector of the reviewed request."""

    raw_selector: str | None = None
    """The selector as in a query string (``spec.nodeName=n1``)."""


class ResourceAttributes(K8sModel):
    """A resource request to review."""

    namespace: str | None = None
    """The namespace of the request; empty for cluster-scoped resources or all namespaces."""
    verb: str | None = None
    """The verb: get, list, watch, create, update, patch, delete, or a custom one."""
    group: str | None = None
    """The API group; ``*`` means all."""
    version: str | None = None
    """The API version; ``*`` means all."""
    resource: str | None = None
    """The resource; ``*`` means all."""
    subresource: str | None = None
    """The subresource, if any."""
    name: str | None = None
    """The object's name; empty means all."""
    field_selector: FieldSelectorAttributes | None = None
    """The request's field selector."""


class NonResourceAttributes(K8sModel):
    """A non-resource request to review."""

    path: str | None = None
    """The URL path."""
    verb: str | None = None
    """The lower-cased HTTP method."""


class SubjectAccessReviewSpec(K8sModel):
    """The request and, except in self reviews, the user to review."""

    resource_attributes: ResourceAttributes | None = None
    """A resource request (exclusive with nonResourceAttributes)."""
    non_resource_attributes: NonResourceAttributes | None = None
    """A non-resource request (exclusive with resourceAttributes)."""
    user: str | None = None
    """The user to check."""
    groups: list[str] | None = None
    """The user's groups."""
    uid: str | None = None
    """The user's uid."""
    extra: dict[str, list[str]] | None = None
    """The user's extra attributes."""


class SubjectAccessReviewStatus(K8sModel):
    """The answer."""

    required_fields = ("allowed",)

    allowed: bool | None = None
    """Whether the request is allowed."""
    denied: bool | None = None
    """Whether an authorizer denied it outright."""
    reason: str | None = None
    """Why (RBAC: the binding, role and rule that allowed it)."""
    evaluation_error: str | None = None
    """An error met while deciding."""


class SubjectAccessReview(TypeMeta):
    """May this user do this?"""

    kinds = (Served(GROUP, "v1", "subjectaccessreviews", False, verbs=CREATE_ONLY),)

    required_fields = ("spec",)

    metadata: ObjectMeta | None = None
    """Standard object metadata."""
    spec: SubjectAccessReviewSpec | None = None
    """The request and user."""
    status: SubjectAccessReviewStatus | None = None
    """The answer."""


class SelfSubjectAccessReview(SubjectAccessReview):
    """May I do this?"""

    kinds = (Served(GROUP, "v1", "selfsubjectaccessreviews", False, verbs=CREATE_ONLY),)


class LocalSubjectAccessReview(SubjectAccessReview):
    """May this user do this in this namespace?"""

    kinds = (Served(GROUP, "v1", "localsubjectaccessreviews", True, verbs=CREATE_ONLY),)


class SelfSubjectRulesReviewSpec(K8sModel):
    """The namespace to list rules in."""

    namespace: str | None = None
    """The namespace."""


class ResourceRule(K8sModel):
    """What a user may do to resources."""

    required_fields = ("verbs",)

    verbs: list[str] | None = None
    """Verbs allowed."""
    api_groups: list[str] | None = None
    """API groups."""
    resources: list[str] | None = None
    """Resources."""
    resource_names: list[str] | None = None
    """Object names, empty for all."""


class NonResourceRule(K8sModel):
    """What a user may do to non-resource URLs."""

    required_fields = ("verbs",)

    verbs: list[str] | None = None
    """Verbs allowed."""
    non_resource_urls: list[str] | None = None
    """URL paths, ``*`` suffix for prefixes."""


class SubjectRulesReviewStatus(K8sModel):
    """The rules a user holds."""

    required_fields = ("resourceRules", "nonResourceRules", "incomplete")

    resource_rules: list[ResourceRule] | None = None
    """Rules on resources."""
    non_resource_rules: list[NonResourceRule] | None = None
    """Rules on non-resource URLs."""
    incomplete: bool | None = None
    """True when an authorizer could not list its rules."""
    evaluation_error: str | None = None
    """Errors met while listing."""


class SelfSubjectRulesReview(TypeMeta):
    """What may I do in this namespace?"""

    kinds = (Served(GROUP, "v1", "selfsubjectrulesreviews", False, verbs=CREATE_ONLY),)

    required_fields = ("spec",)

    metadata: ObjectMeta | None = None
    """Standard object metadata."""
    spec: SelfSubjectRulesReviewSpec | None = None
    """The namespace."""
    status: SubjectRulesReviewStatus | None = None
    """The rules."""
