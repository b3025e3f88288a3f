"""PATCH: pick the patch algorithm by Content-Type and apply it to the current object."""

from __future__ import annotations

from collections.abc import Callable

from apiserver.endpoints.body import decode_json, media_type
from apiserver.patch.errors import PatchError
from apiserver.patch.jsonpatch import apply_json_patch
from apiserver.patch.mergepatch import apply_merge_patch
from apiserver.patch.schemas import schema_for
from apiserver.patch.strategic import apply_strategic_merge_patch
from minikube_py.api import errors
from minikube_py.api.scheme import ResourceType
from minikube_py.api.unstructured import Object

JSON_PATCH = "application/json-patch+json"
MERGE_PATCH = "application/merge-patch+json"
STRATEGIC_PATCH = "application/strategic-merge-patch+json"
APPLY_PATCH = "application/apply-patch+yaml"
PATCH_TYPES = [JSON_PATCH, MERGE_PATCH, STRATEGIC_PATCH, APPLY_PATCH]


def patcher(rt: ResourceType, content_type: str | None, raw: bytes) -> Callable[[Object], Object]:
    """A function from the current object to the patched one; 415 for unknown patch types.

    Server-side apply (``APPLY_PATCH``) is not a function of the current object alone: the
    resource endpoints route it to ``ownership.ApplyRequest`` first; here it is a 415.
    """
    kind = media_type(content_type)
    if kind not in PATCH_TYPES or kind == APPLY_PATCH:
        raise errors.unsupported_media_type(kind, PATCH_TYPES)
    patch = decode_json(raw)

    def apply(current: Object) -> Object:
        try:
            if kind == JSON_PATCH:
                result = apply_json_patch(current, patch)
            elif kind == MERGE_PATCH:
                result = apply_merge_patch(current, patch)
            else:
                if not isinstance(patch, dict):
                    raise PatchError("strategic merge patch must be a JSON object")
                result = apply_strategic_merge_patch(current, patch, schema_for(rt.group, rt.kind))
        except PatchError as err:
            raise errors.ApiError(err.code, err.reason, str(err)) from None
        if not isinstance(result, dict):
            raise errors.bad_request("the patched object must be a JSON object")
        return result

    return apply
