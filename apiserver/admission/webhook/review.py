"""The ``AdmissionReview`` sent to a webhook and upstream's checks of the one it returns
(``request/admissionreview.go``)."""

from __future__ import annotations

import base64
import binascii
import uuid
from dataclasses import dataclass, field
from typing import Any

from apiserver.admission.attributes import Attributes, Operation
from apiserver.admission.webhook.matching import Invocation, request_kind
from apiserver.request.user import user_json
from minikube_py.api.scheme import ResourceType

VERSIONS = ("v1", "v1beta1")
OPTIONS_KINDS = {
    Operation.CREATE: "CreateOptions",
    Operation.UPDATE: "UpdateOptions",
    Operation.DELETE: "DeleteOptions",
}


class InvalidResponse(ValueError):
    """The webhook's answer is not a valid review (upstream's wording in the message)."""


@dataclass(slots=True)
class Response:
    """What a valid review answered."""

    allowed: bool
    result: dict[str, Any] | None = None
    patch: bytes = b""
    patch_type: str = ""
    warnings: list[str] = field(default_factory=list)
    audit_annotations: dict[str, str] = field(default_factory=dict)


def review_version(accepted: list[str]) -> str | None:
    """The first of the webhook's ``admissionReviewVersions`` this server speaks."""
    return next((v for v in accepted if v in VERSIONS), None)


def operation_options(attrs: Attributes) -> dict[str, Any] | None:
    """The options of the operation as ``meta.k8s.io/v1`` JSON (``CreateOptions``,
    ``UpdateOptions``, ``DeleteOptions``), or the CONNECT options object."""
    options = attrs.options
    if isinstance(options, dict):  # the store passes DeleteOptions as JSON, CONNECT its options
        return options
    kind = OPTIONS_KINDS.get(attrs.operation)
    if kind is None:
        return None
    out: dict[str, Any] = {"kind": kind, "apiVersion": "meta.k8s.io/v1"}
    if attrs.dry_run:
        out["dryRun"] = ["All"]
    return out


def gvk(group: str, version: str, kind: str) -> dict[str, str]:
    return {"group": group, "version": version, "kind": kind}


def gvr(rt: ResourceType) -> dict[str, str]:
    return {"group": rt.group, "version": rt.version, "resource": rt.resource}


def admission_review(
    version: str, invocation: Invocation, attrs: Attributes, obj: Any, old: Any
) -> dict[str, Any]:
    """A new review (fresh ``request.uid``) of ``attrs`` as ``invocation`` sees it; ``obj`` and
    ``old`` are the objects in the invocation's version."""
    rt = attrs.resource
    request: dict[str, Any] = {
        "uid": str(uuid.uuid4()),
        "kind": gvk(*invocation.kind),
        "resource": gvr(invocation.resource),
        "requestKind": gvk(*request_kind(rt, attrs.subresource)),
        "requestResource": gvr(rt),
        "name": attrs.name,
        "namespace": attrs.namespace,
        "operation": str(attrs.operation),
        "userInfo": user_json(attrs.user),
        "object": obj,
        "oldObject": old,
        "dryRun": attrs.dry_run,
        "options": operation_options(attrs),
    }
    if invocation.subresource:
        request["subResource"] = invocation.subresource
    if attrs.subresource:
        request["requestSubResource"] = attrs.subresource
    if not attrs.name:
        del request["name"]
    if not attrs.namespace:
        del request["namespace"]
    return {"kind": "AdmissionReview", "apiVersion": f"admission.k8s.io/{version}", "request": request}


def verify_response(review: dict[str, Any], sent: dict[str, Any], mutating: bool) -> Response:
    """Upstream's ``VerifyAdmissionResponse``: the answer must be a review of the same version
    (v1: same ``uid``, patch and patch type together, none from validating webhooks)."""
    response = review.get("response") if isinstance(review, dict) else None
    if not isinstance(response, dict):
        raise InvalidResponse("webhook response was absent")
    v1 = sent["apiVersion"] == "admission.k8s.io/v1"
    if v1:
        _check_v1(review, response, sent["request"]["uid"])
    patch = _decode_patch(response.get("patch"))
    patch_type = response.get("patchType")
    if v1 and mutating:
        if patch and patch_type is None:
            raise InvalidResponse("webhook returned response.patch but not response.patchType")
        if not patch and patch_type is not None:
            raise InvalidResponse("webhook returned response.patchType but not response.patch")
        if patch_type is not None and not patch_type:
            raise InvalidResponse(f'webhook returned invalid response.patchType of "{patch_type}"')
    elif v1:
        if patch:
            raise InvalidResponse("validating webhook may not return response.patch")
        if patch_type is not None:
            raise InvalidResponse("validating webhook may not return response.patchType")
    elif patch:  # v1beta1 never checked the patch type: JSONPatch is the only one
        patch_type = "JSONPatch"
    return Response(
        allowed=response.get("allowed") is True,
        result=response.get("status") if isinstance(response.get("status"), dict) else None,
        patch=patch if mutating else b"",
        patch_type=str(patch_type or "") if mutating else "",
        warnings=[str(w) for w in response.get("warnings") or []],
        audit_annotations={str(k): str(v) for k, v in (response.get("auditAnnotations") or {}).items()},
    )


def _check_v1(review: dict[str, Any], response: dict[str, Any], uid: str) -> None:
    if response.get("uid") != uid:
        raise InvalidResponse(f'expected response.uid="{uid}", got "{response.get("uid", "")}"')
    got = (str(review.get("apiVersion", "")), str(review.get("kind", "")))
    if got != ("admission.k8s.io/v1", "AdmissionReview"):
        group, _, version = got[0].rpartition("/")
        raise InvalidResponse(
            "expected webhook response of admission.k8s.io/v1, Kind=AdmissionReview, "
            f"got {group + '/' if group else ''}{version}, Kind={got[1]}"
        )


def _decode_patch(value: Any) -> bytes:
    if value is None or value == "":
        return b""
    try:
        return base64.b64decode(str(value), validate=True)
    except (binascii.Error, ValueError) as err:
        raise InvalidResponse(f"illegal base64 data in response.patch: {err}") from None
