"""The access reviews (upstream's ``pkg/registry/authorization``): SubjectAccessReview (may
this user do this?), SelfSubjectAccessReview (may I?), LocalSubjectAccessReview (one
namespace) and SelfSubjectRulesReview (what may I do in a namespace?). Each is answered from
the configured authorizers and stored nowhere."""

from __future__ import annotations

from apiserver.authz.attributes import Attributes, Decision, parse_field_selector
from apiserver.authz.factory import Authz
from apiserver.authz.rules import PolicyRule
from apiserver.request.user import UserInfo
from minikube_py.api import errors
from minikube_py.api.field_errors import FieldError, invalid
from minikube_py.api.unstructured import Object

GROUP = "authorization.k8s.io"


def _spec_errors(spec: Object, needs_subject: bool) -> list[FieldError]:
    errs: list[FieldError] = []
    resource, non_resource = spec.get("resourceAttributes"), spec.get("nonResourceAttributes")
    if resource is not None and non_resource is not None:
        detail = "cannot be specified in combination with resourceAttributes"
        errs.append(invalid("spec.nonResourceAttributes", non_resource, detail))
    if resource is None and non_resource is None:
        detail = "exactly one of nonResourceAttributes or resourceAttributes must be specified"
        errs.append(invalid("spec.resourceAttributes", None, detail))
    if needs_subject and not spec.get("user") and not spec.get("groups"):
        errs.append(
            invalid("spec.user", spec.get("user", ""), "at least one of user or group must be specified")
        )
    return errs


def validate(kind: str, review: Object) -> None:
    """Upstream's validation of each review kind; raises 422 Invalid."""
    spec = review.get("spec") or {}
    errs = _spec_errors(spec, kind in ("SubjectAccessReview", "LocalSubjectAccessReview"))
    if kind == "LocalSubjectAccessReview":
        namespace = (review.get("metadata") or {}).get("namespace", "")
        attrs = spec.get("resourceAttributes")
        if attrs is not None and attrs.get("namespace", "") != namespace:
            field = "spec.resourceAttributes.namespace"
            errs.append(invalid(field, attrs.get("namespace", ""), "must match metadata.namespace"))
        if spec.get("nonResourceAttributes") is not None:
            detail = "disallowed on this kind of request"
            errs.append(invalid("spec.nonResourceAttributes", spec["nonResourceAttributes"], detail))
    if errs:
        causes = [errors.Cause(e.reason, e.body(), e.field) for e in errs]
        raise errors.invalid(kind, "", GROUP, causes)


def spec_user(spec: Object) -> UserInfo:
    extra = {k: list(v) for k, v in (spec.get("extra") or {}).items()}
    return UserInfo(spec.get("user", ""), tuple(spec.get("groups") or ()), spec.get("uid", ""), extra)


def review_attributes(user: UserInfo, spec: Object) -> Attributes:
    """Upstream's ``ResourceAttributesFrom`` / ``NonResourceAttributesFrom``."""
    resource = spec.get("resourceAttributes")
    if resource is None:
        non_resource = spec.get("nonResourceAttributes") or {}
        return Attributes(user, non_resource.get("verb", ""), path=non_resource.get("path", ""))
    selector = (resource.get("fieldSelector") or {}).get("rawSelector", "")
    return Attributes(
        user,
        resource.get("verb", ""),
        True,
        resource.get("namespace", ""),
        resource.get("group", ""),
        resource.get("version", ""),
        resource.get("resource", ""),
        resource.get("subresource", ""),
        resource.get("name", ""),
        field_selector=parse_field_selector(selector),
    )


def access_status(authz: Authz, attrs: Attributes) -> Object:
    result = authz.authorizer.authorize(attrs)
    status: Object = {"allowed": result.allowed}
    if result.decision is Decision.DENY:
        status["denied"] = True
    if result.reason:
        status["reason"] = result.reason
    return status


def access_review(authz: Authz, kind: str, review: Object, requester: UserInfo, namespace: str) -> Object:
    """The answered review (SubjectAccessReview, Local..., Self...)."""
    review = {**review, "metadata": dict(review.get("metadata") or {})}
    if kind == "LocalSubjectAccessReview":
        review["metadata"].setdefault("namespace", namespace)
        if review["metadata"]["namespace"] != namespace:
            raise errors.bad_request(
                "the namespace of the provided object does not match the namespace sent on the request"
            )
    validate(kind, review)
    spec = review.get("spec") or {}
    user = requester if kind == "SelfSubjectAccessReview" else spec_user(spec)
    review["metadata"].setdefault("creationTimestamp", None)
    review["status"] = access_status(authz, review_attributes(user, spec))
    return review


def _resource_rule(rule: PolicyRule) -> Object:
    out: Object = {"verbs": list(rule.verbs)}
    if rule.api_groups:
        out["apiGroups"] = list(rule.api_groups)
    if rule.resources:
        out["resources"] = list(rule.resources)
    if rule.resource_names:
        out["resourceNames"] = list(rule.resource_names)
    return out


def rules_review(authz: Authz, review: Object, requester: UserInfo) -> Object:
    """The answered SelfSubjectRulesReview."""
    namespace = (review.get("spec") or {}).get("namespace", "")
    if not namespace:
        raise errors.bad_request("no namespace on request")
    listed = authz.rules_for(requester, namespace)
    status: Object = {
        "resourceRules": [_resource_rule(r) for r in listed.rules if not r.non_resource_urls],
        "nonResourceRules": [
            {"verbs": list(r.verbs), "nonResourceURLs": list(r.non_resource_urls)}
            for r in listed.rules
            if r.non_resource_urls
        ],
        "incomplete": listed.incomplete,
    }
    if listed.errors:
        status["evaluationError"] = (
            listed.errors[0] if len(listed.errors) == 1 else f"[{', '.join(listed.errors)}]"
        )
    metadata = dict(review.get("metadata") or {})
    metadata.setdefault("creationTimestamp", None)
    return {**review, "metadata": metadata, "status": status}
