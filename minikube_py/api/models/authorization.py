"""authorization.k8s.io/v1: the access reviews (may a user do this; what may I do)."""

from __future__ import annotations

from minikube_py.api.models.base import K8sModel
from minikube_py.api.models.meta import LabelSelectorRequirement, ObjectMeta, TypeMeta
from minikube_py.api.models.tags import tag
from minikube_py.api.scheme import CREATE_ONLY, Served

OPENAPI_PACKAGE = "io.k8s.api.authorization.v1"
GROUP = "authorization.k8s.io"


class FieldSelectorRequirement(K8sModel):
    """A field selector requirement: a field, an operator and values."""

    required_fields = ("key", "operator")

    key: str | None = tag(1)
    """The field name the selector applies to."""
    operator: str | None = tag(2)
    """``In``, ``NotIn``, ``Exists`` or ``DoesNotExist``."""
    values: list[str] | None = tag(3, "omitempty")
    """The values: non-empty for ``In`` and ``NotIn``, empty otherwise."""


class FieldSelectorAttributes(K8sModel):
    """A field selector of the reviewed request."""

    raw_selector: str | None = tag(1, "omitempty")
    """The selector as in a query string (``spec.nodeName=n1``)."""
    requirements: list[FieldSelectorRequirement] | None = tag(2, "omitempty")
    """The parsed selector; set this or rawSelector."""


class LabelSelectorAttributes(K8sModel):
    """A label selector a request is limited to, for authorization."""

    raw_selector: str | None = tag(1, "omitempty")
    """The selector as the request's query parameter spelt it."""
    requirements: list[LabelSelectorRequirement] | None = tag(2, "omitempty")
    """The parsed selector; set this or rawSelector."""


class ResourceAttributes(K8sModel):
    """A resource request to review."""

    namespace: str | None = tag(1, "omitempty")
    """The namespace of the request; empty for cluster-scoped resources or all namespaces."""
    verb: str | None = tag(2, "omitempty")
    """The verb: get, list, watch, create, update, patch, delete, or a custom one."""
    group: str | None = tag(3, "omitempty")
    """The API group; ``*`` means all."""
    version: str | None = tag(4, "omitempty")
    """The API version; ``*`` means all."""
    resource: str | None = tag(5, "omitempty")
    """The resource; ``*`` means all."""
    subresource: str | None = tag(6, "omitempty")
    """The subresource, if any."""
    name: str | None = tag(7, "omitempty")
    """The object's name; empty means all."""
    field_selector: FieldSelectorAttributes | None = tag(8, "*", "omitempty")
    """The request's field selector."""
    label_selector: LabelSelectorAttributes | None = tag(9, "*", "omitempty")
    """The request's label selector."""


class NonResourceAttributes(K8sModel):
    """A non-resource request to review."""

    path: str | None = tag(1, "omitempty")
    """The URL path."""
    verb: str | None = tag(2, "omitempty")
    """The lower-cased HTTP method."""


class SubjectAccessReviewSpec(K8sModel):
    """The request and, except in self reviews, the user to review."""

    resource_attributes: ResourceAttributes | None = tag(1, "*", "omitempty")
    """A resource request (exclusive with nonResourceAttributes)."""
    non_resource_attributes: NonResourceAttributes | None = tag(2, "*", "omitempty")
    """A non-resource request (exclusive with resourceAttributes)."""
    user: str | None = tag(3, "omitempty")
    """The user to check."""
    groups: list[str] | None = tag(4, "omitempty")
    """The user's groups."""
    extra: dict[str, list[str]] | None = tag(5, "omitempty")
    """The user's extra attributes."""
    uid: str | None = tag(6, "omitempty")
    """The user's uid."""


class SelfSubjectAccessReviewSpec(K8sModel):
    """What to check for the requesting user: exactly one of the attributes must be set."""

    resource_attributes: ResourceAttributes | None = tag(1, "*", "omitempty")
    """The resource request to authorize."""
    non_resource_attributes: NonResourceAttributes | None = tag(2, "*", "omitempty")
    """The non-resource request to authorize."""


class SubjectAccessReviewStatus(K8sModel):
    """The answer."""

    required_fields = ("allowed",)

    allowed: bool | None = tag(1)
    """Whether the request is allowed."""
    denied: bool | None = tag(4, "omitempty")
    """Whether an authorizer denied it outright."""
    reason: str | None = tag(2, "omitempty")
    """Why (RBAC: the binding, role and rule that allowed it)."""
    evaluation_error: str | None = tag(3, "omitempty")
    """An error met while deciding."""


class SubjectAccessReview(TypeMeta):
    """May this user do this?"""

    kinds = (Served(GROUP, "v1", "subjectaccessreviews", False, verbs=CREATE_ONLY),)

    required_fields = ("spec",)

    metadata: ObjectMeta | None = tag(1, "omitempty")
    """Standard object metadata."""
    spec: SubjectAccessReviewSpec | None = tag(2)
    """The request and user."""
    status: SubjectAccessReviewStatus | None = tag(3, "omitempty")
    """The answer."""


class SelfSubjectAccessReview(SubjectAccessReview):
    """May I do this?"""

    kinds = (Served(GROUP, "v1", "selfsubjectaccessreviews", False, verbs=CREATE_ONLY),)

    # Upstream's spec type has no user fields; the JSON model keeps accepting them as before.
    spec: SubjectAccessReviewSpec | None = tag(2, proto=SelfSubjectAccessReviewSpec)
    """The request and user."""


class LocalSubjectAccessReview(SubjectAccessReview):
    """May this user do this in this namespace?"""

    kinds = (Served(GROUP, "v1", "localsubjectaccessreviews", True, verbs=CREATE_ONLY),)


class SelfSubjectRulesReviewSpec(K8sModel):
    """The namespace to list rules in."""

    namespace: str | None = tag(1, "omitempty")
    """The namespace."""


class ResourceRule(K8sModel):
    """What a user may do to resources."""

    required_fields = ("verbs",)

    verbs: list[str] | None = tag(1)
    """Verbs allowed."""
    api_groups: list[str] | None = tag(2, "omitempty")
    """API groups."""
    resources: list[str] | None = tag(3, "omitempty")
    """Resources."""
    resource_names: list[str] | None = tag(4, "omitempty")
    """Object names, empty for all."""


class NonResourceRule(K8sModel):
    """What a user may do to non-resource URLs."""

    required_fields = ("verbs",)

    verbs: list[str] | None = tag(1)
    """Verbs allowed."""
    non_resource_urls: list[str] | None = tag(2, "omitempty")
    """URL paths, ``*`` suffix for prefixes."""


class SubjectRulesReviewStatus(K8sModel):
    """The rules a user holds."""

    required_fields = ("resourceRules", "nonResourceRules", "incomplete")

    resource_rules: list[ResourceRule] | None = tag(1)
    """Rules on resources."""
    non_resource_rules: list[NonResourceRule] | None = tag(2)
    """Rules on non-resource URLs."""
    incomplete: bool | None = tag(3)
    """True when an authorizer could not list its rules."""
    evaluation_error: str | None = tag(4, "omitempty")
    """Errors met while listing."""


class SelfSubjectRulesReview(TypeMeta):
    """What may I do in this namespace?"""

    kinds = (Served(GROUP, "v1", "selfsubjectrulesreviews", False, verbs=CREATE_ONLY),)

    required_fields = ("spec",)

    metadata: ObjectMeta | None = tag(1, "omitempty")
    """Standard object metadata."""
    spec: SelfSubjectRulesReviewSpec | None = tag(2)
    """The namespace."""
    status: SubjectRulesReviewStatus | None = tag(3, "omitempty")
    """The rules."""
