"""Request bodies: size limit, media types, JSON decoding into objects, DeleteOptions."""

from __future__ import annotations

from typing import Any

from apiserver.registry.deletion import PROPAGATION_POLICIES
from apiserver.registry.store import DeleteOptions
from apiserver.request.queryparams import to_bool
from apiserver.storage.errors import MAX_VALUE_BYTES
from apiserver.storage.interface import Preconditions
from minikube_py import jsonutil
from minikube_py.api import errors
from minikube_py.api.field_errors import FieldError, aggregate_message, invalid, not_supported
from minikube_py.api.protobuf.decode import ProtobufError, decode_envelope, decode_message
from minikube_py.api.protobuf.decode import decode_object as decode_protobuf

JSON = "application/json"
PROTOBUF = "application/vnd.kubernetes.protobuf"
WRITE_TYPES = [JSON, "application/yaml", PROTOBUF]
DRY_RUN_ALL = "All"


def media_type(content_type: str | None) -> str:
    return (content_type or "").split(";")[0].strip().lower()


def decode_json(raw: bytes) -> Any:
    """JSON from a request body; 400 Status for anything malformed or absurdly nested."""
    if len(raw) > MAX_VALUE_BYTES:
        raise errors.too_large("Request entity too large: limit is 3145728")
    try:
        return jsonutil.loads(raw)
    except RecursionError:
        raise errors.bad_request("the request body is nested too deeply") from None
    except (ValueError, UnicodeDecodeError) as err:
        raise errors.bad_request(f"json: cannot parse the request body: {err}") from None


def decode_object(raw: bytes, content_type: str | None) -> dict[str, Any]:
    """An object from a create/update body: JSON, or the protobuf that kubectl >= 1.32's typed
    clients send (replies stay JSON)."""
    kind = media_type(content_type)
    if kind == PROTOBUF:
        return _decode_protobuf(raw)
    if kind not in ("", JSON, "*/*"):
        raise errors.unsupported_media_type(kind, [JSON, PROTOBUF])
    obj = decode_json(raw)
    if not isinstance(obj, dict):
        raise errors.bad_request("the request body must be a JSON object")
    return obj


def _decode_protobuf(raw: bytes) -> dict[str, Any]:
    if len(raw) > MAX_VALUE_BYTES:
        raise errors.too_large("Request entity too large: limit is 3145728")
    try:
        return decode_protobuf(raw)
    except ProtobufError as err:
        if str(err).startswith("no protobuf decoding for"):
            raise errors.unsupported_media_type(PROTOBUF, [JSON]) from None
        raise errors.bad_request(f"the protobuf body could not be decoded: {err}") from None


def check_kind(obj: dict[str, Any], api_version: str, kind: str) -> None:
    """The body's apiVersion/kind, when given, must be the URL's."""
    if obj.get("apiVersion", api_version) != api_version:
        raise errors.bad_request(
            f"the API version in the data ({obj['apiVersion']}) does not match the expected API "
            f"version ({api_version})"
        )
    if obj.get("kind", kind) != kind:
        raise errors.bad_request(
            f"the kind in the data ({obj['kind']}) does not match the expected kind ({kind})"
        )
    obj["apiVersion"], obj["kind"] = api_version, kind


def _options_body(raw: bytes, content_type: str | None) -> Any:
    """A DeleteOptions body: JSON (whatever the content type says, as before), or protobuf as
    client-go's typed clients send it (Helm's uninstall): any group version, as upstream's
    option scheme decodes DeleteOptions as an unversioned kind, and no other kind."""
    if media_type(content_type) != PROTOBUF:
        return decode_json(raw)
    if len(raw) > MAX_VALUE_BYTES:
        raise errors.too_large("Request entity too large: limit is 3145728")
    try:
        _api_version, kind, message = decode_envelope(raw)
        if kind != "DeleteOptions":
            raise errors.bad_request(f"decoded object of kind {kind} cannot be converted to DeleteOptions")
        return decode_message("DeleteOptions", message)
    except ProtobufError as err:
        raise errors.bad_request(f"the protobuf body could not be decoded: {err}") from None


def delete_options(raw: bytes, query: dict[str, str], content_type: str | None = None) -> DeleteOptions:
    """DeleteOptions from the body (JSON or protobuf, by ``content_type``) or, when there is
    none, from the query (upstream reads only one of them), validated as upstream's handler does
    before it looks the object up (``ValidateDeleteOptions``); the store checks them again once
    it found the object."""
    body = _options_body(raw, content_type) if raw.strip() else _query_options(query)
    if not isinstance(body, dict):
        raise errors.bad_request("DeleteOptions must be a JSON object")
    grace = body.get("gracePeriodSeconds")
    pre = body.get("preconditions") or {}
    if not isinstance(pre, dict):
        raise errors.bad_request("DeleteOptions.preconditions must be an object")
    policy = body.get("propagationPolicy")  # None: unset; "" is set, and not a policy
    if policy is not None and not isinstance(policy, str):
        raise errors.bad_request("DeleteOptions.propagationPolicy must be a string")
    dry_run = body.get("dryRun") or []
    if not isinstance(dry_run, list) or not all(isinstance(v, str) for v in dry_run):
        raise errors.bad_request("DeleteOptions.dryRun must be a list of strings")
    orphan = body.get("orphanDependents")
    if orphan is not None and not isinstance(orphan, bool):
        raise errors.bad_request(f"DeleteOptions.orphanDependents must be a boolean, not {orphan!r}")
    try:
        seconds = None if grace is None else int(grace)
    except (TypeError, ValueError):
        raise errors.bad_request(f"invalid gracePeriodSeconds: {grace!r}") from None
    _validate_delete_options(policy, orphan, dry_run)
    return DeleteOptions(
        grace_period_seconds=seconds,
        propagation_policy=policy or "",
        preconditions=Preconditions(pre.get("uid"), pre.get("resourceVersion")) if pre else None,
        dry_run=bool(dry_run),
        orphan_dependents=orphan,
    )


def _query_options(query: dict[str, str]) -> dict[str, Any]:
    """The DeleteOptions a query names, shaped as a body. A parameter given empty is set:
    ``propagationPolicy=`` is the policy "" and ``dryRun=`` the value "" (both invalid)."""
    body: dict[str, Any] = {}
    for name in ("gracePeriodSeconds", "propagationPolicy"):
        if name in query:
            body[name] = query[name]
    if "dryRun" in query:
        body["dryRun"] = [query["dryRun"]]
    text = query.get("orphanDependents")
    if text is not None:  # Convert_Slice_string_To_Pointer_bool: never an error
        body["orphanDependents"] = to_bool(text)
    return body


def _validate_delete_options(policy: str | None, orphan: bool | None, dry_run: list[str]) -> None:
    found: list[FieldError] = []
    if orphan is not None and policy is not None:
        message = "orphanDependents and deletionPropagation cannot be both set"
        found.append(invalid("propagationPolicy", policy, message))
    if policy is not None and policy not in PROPAGATION_POLICIES:
        found.append(not_supported("propagationPolicy", policy, [*PROPAGATION_POLICIES, "nil"]))
    found += _dry_run_errors(dry_run)
    if found:
        raise _invalid_options("DeleteOptions", found)


def _dry_run_errors(values: list[str]) -> list[FieldError]:
    """Upstream's ``ValidateDryRun``: every value must be ``All`` (the list is the bad value)."""
    if all(value == DRY_RUN_ALL for value in values):
        return []
    return [not_supported("dryRun", values, [DRY_RUN_ALL])]


def _invalid_options(kind: str, found: list[FieldError]) -> errors.ApiError:
    """422 on the request's options (``CreateOptions``, ``DeleteOptions``...), as upstream's
    handlers report them: group ``meta.k8s.io``, no name."""
    causes = [errors.Cause(e.reason, e.body(), e.field) for e in found]
    message = f'{kind}.meta.k8s.io "" is invalid: {aggregate_message(found)}'
    return errors.ApiError(422, "Invalid", message, "", "meta.k8s.io", kind, causes)


def dry_run(query: dict[str, str], options_kind: str = "UpdateOptions") -> bool:
    """Whether the request is a dry run (``dryRun=All``); any other value, an empty one too, is
    a 422 on the request's ``options_kind`` (``CreateOptions``, ``UpdateOptions``,
    ``PatchOptions``), as upstream validates those options before the body."""
    values = [query["dryRun"]] if "dryRun" in query else []
    found = _dry_run_errors(values)
    if found:
        raise _invalid_options(options_kind, found)
    return bool(values)
