"""One webhook call, shared by both plugins: upstream's dry-run rule, the review in the
invocation's version, the POST, the checks of the answer, then the answer's audit annotations
(``<webhook>/<key>``) and warnings (``Warning`` headers)."""

from __future__ import annotations

from apiserver.admission import warnings
from apiserver.admission.attributes import Attributes
from apiserver.admission.webhook import client
from apiserver.admission.webhook.errors import CallError, dry_run_unsupported
from apiserver.admission.webhook.matching import Invocation
from apiserver.admission.webhook.review import (
    InvalidResponse,
    Response,
    admission_review,
    review_version,
    verify_response,
)
from apiserver.admission.webhook.source import WebhookLookup
from apiserver.request.context import annotate
from minikube_py.api.unstructured import Object


def check_dry_run(invocation: Invocation, attrs: Attributes) -> None:
    """A dry-run request only goes to webhooks without side effects (or none on dry run)."""
    spec, name = invocation.hook.spec, invocation.hook.name
    if not attrs.dry_run:
        return
    if spec.get("sideEffects") is None:
        raise CallError(name, "Webhook SideEffects is nil")
    if spec["sideEffects"] not in ("None", "NoneOnDryRun"):
        raise dry_run_unsupported(name)


def versioned(
    obj: Object | None, attrs: Attributes, invocation: Invocation, lookup: WebhookLookup
) -> Object | None:
    """``obj`` in the invocation's version (itself for the request's own version or a
    subresource)."""
    if invocation.resource == attrs.resource or invocation.subresource:
        return obj
    return lookup.convert(obj, attrs.resource, invocation.resource)


async def call(
    invocation: Invocation, attrs: Attributes, lookup: WebhookLookup, obj: Object | None, *, mutating: bool
) -> Response:
    """Call the webhook with ``obj`` (already in the invocation's version) as the object.
    Raises ``CallError`` (failure policy applies) or an ``ApiError`` (it does not)."""
    hook = invocation.hook
    check_dry_run(invocation, attrs)
    version = review_version(hook.spec.get("admissionReviewVersions") or [])
    if version is None:
        reason = (
            "could not create admission objects: "
            "webhook does not accept known AdmissionReview versions (v1, v1beta1)"
        )
        raise CallError(hook.name, reason)
    old = versioned(attrs.old_object, attrs, invocation, lookup)
    review = admission_review(version, invocation, attrs, obj, old)
    timeout = int(hook.spec.get("timeoutSeconds") or 10)
    answer = await client.post(hook.spec.get("clientConfig") or {}, review, lookup, timeout, hook.name)
    try:
        response = verify_response(answer, review, mutating)
    except InvalidResponse as err:
        raise CallError(hook.name, f"received invalid webhook response: {err}") from None
    for key, value in response.audit_annotations.items():
        annotate(f"{hook.name}/{key}", value)
    for text in response.warnings:
        warnings.warn(text)
    return response
