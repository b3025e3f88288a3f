"""The review resources (upstream's ``pkg/registry/authentication`` and
``pkg/registry/authorization``): create-only REST storage, stored nowhere. A create answers the
review: ``TokenReview`` (is this token valid, and whose is it), ``SelfSubjectReview`` (who am
I), and the four access reviews (``apiserver.authz.reviews``). The resource endpoints serve them
as any other resource's create; each storage shares the server's one authenticator and one
authorizer (built once, with the request chain's filters)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Protocol

from apiserver.authn.authenticator import INVALID_BEARER_TOKEN, AuthenticationError, with_authenticated_group
from apiserver.authn.config import AuthenticationSetup
from apiserver.authz import reviews
from apiserver.authz.factory import Authz
from apiserver.request.context import current_user
from apiserver.request.user import UserInfo, user_json
from minikube_py.api import errors

Object = dict[str, Any]
AUTHENTICATION = "authentication.k8s.io"
AUTHORIZATION = reviews.GROUP


class Creater(Protocol):
    """Create-only storage (upstream's ``rest.Creater`` without a store behind it)."""

    kind: str
    namespaced: bool

    async def create(self, obj: Object, namespace: str) -> Object:
        """The answered review for the request body ``obj`` (kind already checked)."""
        ...


@dataclass
class TokenReviews:
    """``TokenReview``: the token authenticator's verdict (upstream: the request authenticator
    on a request that carries nothing but the token)."""

    setup: AuthenticationSetup
    kind: str = "TokenReview"
    namespaced: bool = False

    async def create(self, obj: Object, namespace: str) -> Object:
        return await self.token_review(obj)

    async def token_review(self, review: dict[str, Any]) -> dict[str, Any]:
        """The review with its status (upstream: the request authenticator on a request that
        carries nothing but the token)."""
        spec = review.get("spec") or {}
        token = spec.get("token") or ""
        if not isinstance(token, str) or not token:
            raise errors.bad_request("token is required for TokenReview in authentication")
        audiences = list(spec.get("audiences") or []) or list(self.setup.api_audiences)
        status: dict[str, Any] = {"user": {}}
        try:
            result = await self.setup.tokens.authenticate_token(token, audiences)
            if result is None:
                raise AuthenticationError(INVALID_BEARER_TOKEN)
        except AuthenticationError as err:
            status["error"] = str(err)
        else:
            if audiences and not set(audiences) & set(result.audiences):
                raise errors.internal("error validating audiences")
            status = {"authenticated": True, "user": user_json(with_authenticated_group(result.user))}
            if result.audiences:
                status["audiences"] = list(result.audiences)
        metadata = dict(review.get("metadata") or {})
        metadata.setdefault("creationTimestamp", None)
        out_spec = {k: spec[k] for k in ("token", "audiences") if spec.get(k)}
        return {
            "kind": "TokenReview",
            "apiVersion": review["apiVersion"],
            "metadata": metadata,
            "spec": out_spec,
            "status": status,
        }


@dataclass
class SelfSubjectReviews:
    """``SelfSubjectReview``: the requester as authentication established it."""

    api_version: str
    kind: str = "SelfSubjectReview"
    namespaced: bool = False

    async def create(self, obj: Object, namespace: str) -> Object:
        return self_subject_review(self.api_version, current_user.get())


def self_subject_review(api_version: str, user: UserInfo) -> dict[str, Any]:
    now = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    return {
        "kind": "SelfSubjectReview",
        "apiVersion": api_version,
        "metadata": {"creationTimestamp": now},
        "status": {"userInfo": user_json(user)},
    }


@dataclass
class AccessReviews:
    """The access reviews of ``kind``, answered by the server's authorizer."""

    authz: Authz
    kind: str
    namespaced: bool = False

    async def create(self, obj: Object, namespace: str) -> Object:
        user = current_user.get()
        await self.authz.catch_up()  # answer from the policy as stored now, not as cached
        if self.kind == "SelfSubjectRulesReview":
            return reviews.rules_review(self.authz, obj, user)
        return reviews.access_review(self.authz, self.kind, obj, user, namespace)


def review_storage(
    authentication: AuthenticationSetup, authz: Authz
) -> Mapping[tuple[str, str, str], Creater]:
    """Every review resource by (group, version, resource)."""
    served: dict[tuple[str, str, str], Creater] = {
        (AUTHENTICATION, "v1", "tokenreviews"): TokenReviews(authentication),
        (AUTHENTICATION, "v1", "selfsubjectreviews"): SelfSubjectReviews(f"{AUTHENTICATION}/v1"),
        (AUTHENTICATION, "v1beta1", "selfsubjectreviews"): SelfSubjectReviews(f"{AUTHENTICATION}/v1beta1"),
    }
    for kind in ("SubjectAccessReview", "SelfSubjectAccessReview", "SelfSubjectRulesReview"):
        served[(AUTHORIZATION, "v1", kind.lower() + "s")] = AccessReviews(authz, kind)
    served[(AUTHORIZATION, "v1", "localsubjectaccessreviews")] = AccessReviews(
        authz, "LocalSubjectAccessReview", namespaced=True
    )
    return served
