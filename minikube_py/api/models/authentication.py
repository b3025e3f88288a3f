"""authentication.k8s.io/v1: the token and self reviews (whose token is this; who am I) and
TokenRequest (the ``serviceaccounts/token`` subresource).

The v1beta1 SelfSubjectReview has the same fields as v1's, so the registry maps both versions
to the one model here.
"""

from __future__ import annotations

from minikube_py.api.models.base import Int64, K8sModel, Time
from minikube_py.api.models.meta import ObjectMeta, TypeMeta
from minikube_py.api.models.tags import tag
from minikube_py.api.scheme import CREATE_ONLY, Kind, Served

OPENAPI_PACKAGE = "io.k8s.api.authentication.v1"
GROUP = "authentication.k8s.io"


class UserInfo(K8sModel):
    """A user as an authenticator saw it."""

    username: str | None = tag(1, "omitempty")
    """The user's name, unique among current users."""
    uid: str | None = tag(2, "omitempty")
    """An identifier of the user that stays unique over time, across deletion and re-creation."""
    groups: list[str] | None = tag(3, "omitempty")
    """The groups the user belongs to."""
    extra: dict[str, list[str]] | None = tag(4, "omitempty")
    """Further attributes the authenticator attached to the user."""


class TokenReviewSpec(K8sModel):
    """The token to check."""

    token: str | None = tag(1, "omitempty")
    """The bearer token, opaque."""
    audiences: list[str] | None = tag(2, "omitempty")
    """The audiences the token must be meant for (at least one); empty means the API server's."""


class TokenReviewStatus(K8sModel):
    """The outcome of the check."""

    authenticated: bool | None = tag(1, "omitempty")
    """Whether the token belongs to a known user."""
    user: UserInfo | None = tag(2, "omitempty")
    """The user the token belongs to."""
    audiences: list[str] | None = tag(4, "omitempty")
    """The audiences, among those requested, that the token is valid for; empty when it is valid
    for the API server's own audiences."""
    error: str | None = tag(3, "omitempty")
    """Why the token could not be checked."""


class TokenReview(TypeMeta):
    """Whose token is this? (The answer may be cached by webhook token authenticators.)"""

    kinds = (Served(GROUP, "v1", "tokenreviews", False, verbs=CREATE_ONLY),)

    required_fields = ("spec",)

    metadata: ObjectMeta | None = tag(1, "omitempty")
    """Standard object metadata."""
    spec: TokenReviewSpec | None = tag(2)
    """The token."""
    status: TokenReviewStatus | None = tag(3, "omitempty")
    """The outcome, filled in by the server."""


class SelfSubjectReviewStatus(K8sModel):
    """What the server knows of the requesting user."""

    user_info: UserInfo | None = tag(1, "omitempty")
    """The requesting user (the impersonated one when impersonating)."""


class SelfSubjectReview(TypeMeta):
    """Who am I? The server answers with the user it authenticated the request as."""

    kinds = (
        Served(GROUP, "v1", "selfsubjectreviews", False, verbs=CREATE_ONLY),
        Served(GROUP, "v1beta1", "selfsubjectreviews", False, verbs=CREATE_ONLY),
    )

    metadata: ObjectMeta | None = tag(1, "omitempty")
    """Standard object metadata."""
    status: SelfSubjectReviewStatus | None = tag(2, "omitempty")
    """The requesting user, filled in by the server."""


class BoundObjectReference(K8sModel):
    """The object a token's validity is tied to."""

    kind: str | None = tag(1, "omitempty")
    """The object's kind: Pod, Secret or Node."""
    api_version: str | None = tag(2, "omitempty")
    """The object's API version."""
    name: str | None = tag(3, "omitempty")
    """The object's name."""
    uid: str | None = tag(4, "omitempty")
    """The object's uid."""


class TokenRequestSpec(K8sModel):
    """The token wanted."""

    required_fields = ("audiences",)

    audiences: list[str] | None = tag(1)
    """The audiences the token is meant for; empty means the API server's."""
    expiration_seconds: Int64 | None = tag(4, "*")
    """The requested lifetime in seconds; the server may shorten or lengthen it."""
    bound_object_ref: BoundObjectReference | None = tag(3, "*")
    """An object the token is bound to: the token stops being valid once it is deleted."""


class TokenRequestStatus(K8sModel):
    """The token issued."""

    required_fields = ("token", "expirationTimestamp")

    token: str | None = tag(1)
    """The signed token, opaque."""
    expiration_timestamp: Time | None = tag(2)
    """When the token expires."""


class TokenRequest(TypeMeta):
    """A token for a service account; created by POSTing to
    ``.../serviceaccounts/<name>/token``."""

    kinds = (Kind("authentication.k8s.io/v1"),)

    required_fields = ("spec",)

    metadata: ObjectMeta | None = tag(1, "omitempty")
    """Standard object metadata; its name and namespace are the service account's."""
    spec: TokenRequestSpec | None = tag(2)
    """The token wanted."""
    status: TokenRequestStatus | None = tag(3, "omitempty")
    """The token issued, filled in by the server."""
