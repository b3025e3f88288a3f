"""Request bodies: size limit, media types, JSON decoding into objects, DeleteOptions."""

from __future__ import annotations

from typing import Any

from apiserver.registry.store import DeleteOptions
from apiserver.storage.errors import MAX_VALUE_BYTES
from apiserver.storage.interface import Preconditions
from minikube_py import jsonutil
from minikube_py.api import errors
from minikube_py.api.protobuf.decode import ProtobufError
from minikube_py.api.protobuf.decode import decode_object as decode_protobuf

JSON = "application/json"
PROTOBUF = "application/vnd.kubernetes.protobuf"
WRITE_TYPES = [JSON, "application/yaml", PROTOBUF]
PROPAGATION_POLICIES = ("", "Foreground", "Background", "Orphan")


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


def delete_options(raw: bytes, query: dict[str, str]) -> DeleteOptions:
    """DeleteOptions from the body (kubectl) and the query (other clients)."""
    body = decode_json(raw) if raw.strip() else {}
    if not isinstance(body, dict):
        raise errors.bad_request("DeleteOptions must be a JSON object")
    grace = body.get("gracePeriodSeconds", query.get("gracePeriodSeconds"))
    pre = body.get("preconditions") or {}
    if not isinstance(pre, dict):
        raise errors.bad_request("DeleteOptions.preconditions must be an object")
    policy = str(body.get("propagationPolicy") or query.get("propagationPolicy") or "")
    if policy not in PROPAGATION_POLICIES:
        supported = ", ".join(f'"{p}"' for p in PROPAGATION_POLICIES[1:])
        message = f'Unsupported value: "{policy}": supported values: {supported}'
        cause = errors.Cause("FieldValueNotSupported", message, "propagationPolicy")
        raise errors.invalid("DeleteOptions", "", "meta.k8s.io", [cause])
    dry_run = body.get("dryRun") or query.get("dryRun")
    try:
        seconds = None if grace is None else int(grace)
    except (TypeError, ValueError):
        raise errors.bad_request(f"invalid gracePeriodSeconds: {grace!r}") from None
    return DeleteOptions(
        grace_period_seconds=seconds,
        propagation_policy=policy,
        preconditions=Preconditions(pre.get("uid"), pre.get("resourceVersion")) if pre else None,
        dry_run=_is_dry_run(dry_run),
    )


def _is_dry_run(value: Any) -> bool:
    values = value if isinstance(value, list) else [value] if value else []
    for item in values:
        if item != "All":
            raise errors.bad_request(f'dryRun: Unsupported value: "{item}": supported values: "All"')
    return bool(values)


def dry_run(query: dict[str, str]) -> bool:
    return _is_dry_run(query.get("dryRun"))
