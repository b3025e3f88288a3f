"""Typed decoding at the HTTP edge: refuse bodies upstream could not decode into its Go types.

``minikube_py.api.models.decoding`` finds the first value that does not fit (a string for
``spec.replicas``, 2.5 or 2147483648 for an ``int32``, a number as a label value, a malformed
quantity or timestamp); this module answers it the way upstream's handler for the request does:

- create, update (PUT, ``/status`` too) and the bodies of ``binding``, ``eviction`` and
  ``scale`` updates: 400 BadRequest ``<Kind> in version "<v>" cannot be handled as a <Kind>:
  json: cannot unmarshal ...`` (``transformDecodeError``), numbers quoted as the body wrote them;
- JSON and merge patches: 422 Invalid on ``patch`` with the patched object as the value and the
  decoder's message (upstream decodes the patched JSON); strategic merge patches the same, with
  the patch printed as Go's ``%+v`` of a map and the unstructured converter's message
  (``cannot convert float64 to int32``);
- server-side apply: 400 ``failed to create typed patch object (...): .spec.replicas: expected
  numeric (int or float), got string`` for a value of the wrong kind (structured-merge-diff's
  check), else 400 ``failed to convert new object (...) to proper version: <converter message>``
  for what only the typed object refuses (2.5 for an integer). Upstream answers those apply
  failures as plain errors (500); this server answers 400, as for every apply conversion error.

Type errors come before unknown-field errors (upstream's decoder reports them first).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from decimal import Decimal
from typing import Any

from apiserver.endpoints.body import check_kind, decode_object, media_type
from apiserver.endpoints.fieldvalidation import _apply_path
from apiserver.endpoints.patching import patcher
from apiserver.patch.schema import Fields
from minikube_py import jsonutil
from minikube_py.api import errors
from minikube_py.api.field_errors import invalid as invalid_field
from minikube_py.api.models.decoding import JSON, UNSTRUCTURED, check
from minikube_py.api.scheme import ResourceType
from minikube_py.api.unstructured import Object

Mutation = Callable[[Object], Object]
STRATEGIC_PATCH = "application/strategic-merge-patch+json"
MERGE_PATCH = "application/merge-patch+json"


def cannot_handle(kind: str, version: str, detail: str) -> errors.ApiError:
    """Upstream's 400 for a body that does not decode into ``kind``."""
    return errors.bad_request(f'{kind} in version "{version}" cannot be handled as a {kind}: {detail}')


def check_body(rt: ResourceType, obj: Object, raw: bytes | None = None) -> None:
    """Refuse a create/update body of ``rt``'s kind that does not decode (400)."""
    check_kind_body(rt.api_version, rt.kind, obj, raw)


def check_kind_body(api_version: str, kind: str, obj: Object, raw: bytes | None = None) -> None:
    """Refuse a body of ``kind`` that does not decode (400); ``raw`` is its JSON text, if any."""
    found = check(api_version, kind, obj)
    if found is not None:
        version = api_version.rpartition("/")[2]
        raise cannot_handle(kind, version, found.json_message(raw))


def patch_invalid(value: str, detail: str) -> errors.ApiError:
    """Upstream's 422 for a patched object that does not decode: ``"" is invalid: patch:
    Invalid value: "<value>": <detail>``."""
    error = invalid_field("patch", value, detail)
    return errors.invalid("", "", "", [errors.Cause(error.reason, error.body(), error.field)])


def typed_object(rt: ResourceType, raw: bytes, content_type: str | None) -> Object:
    """A create or update body of ``rt``'s kind: decoded (JSON or protobuf), its apiVersion and
    kind those of the URL, and refused (400) when it does not decode into upstream's type."""
    obj = decode_object(raw, content_type)
    check_kind(obj, rt.api_version, rt.kind)
    check_body(rt, obj, raw)
    return obj


def typed_patch(rt: ResourceType, content_type: str | None, raw: bytes) -> Mutation:
    """The request's JSON, merge or strategic merge patch of ``rt``'s objects, its result refused
    when it does not decode into upstream's type."""
    return checked_patch(rt.api_version, rt.kind, patcher(rt, content_type, raw), content_type, raw)


def checked_patch(
    api_version: str, kind: str, mutate: Mutation, content_type: str | None, raw: bytes
) -> Mutation:
    """``mutate`` (a JSON, merge or strategic merge patch), then the patched object checked."""
    strategic = media_type(content_type) == STRATEGIC_PATCH
    merge = media_type(content_type) == MERGE_PATCH

    def patched(current: Object) -> Object:
        changed = mutate(current)
        found = check(api_version, kind, changed, UNSTRUCTURED if strategic else JSON)
        if found is None:
            return changed
        if strategic:
            raise patch_invalid(go_sprint(_loads(raw)), found.unstructured_message())
        value = jsonutil.dumps(changed).decode()
        raise patch_invalid(value, found.json_message(raw if merge else None))

    return patched


def check_apply_config(rt: ResourceType, schema: Fields, config: Object) -> None:
    """Refuse an apply configuration with a value of the wrong kind (400, upstream's
    structured-merge-diff validation of the typed patch object)."""
    found = check(rt.api_version, rt.kind, config, JSON)
    detail = found.schema_message() if found is not None else None
    if found is None or detail is None:
        return
    path = _apply_path(config, found.steps, schema)
    raise errors.bad_request(f"failed to create typed patch object ({_named(rt, config)}): {path}: {detail}")


def check_applied(rt: ResourceType, obj: Object, config: Object) -> None:
    """Refuse the result of an apply that does not convert into the typed object (400)."""
    found = check(rt.api_version, rt.kind, obj, UNSTRUCTURED)
    if found is not None:
        raise errors.bad_request(
            f"failed to convert new object ({_named(rt, config)}) to proper version: "
            f"{found.unstructured_message()}"
        )


def _named(rt: ResourceType, config: Object) -> str:
    meta = config.get("metadata")
    meta = meta if isinstance(meta, dict) else {}
    return f"{meta.get('namespace', '')}/{meta.get('name', '')}; {rt.group}/{rt.version}, Kind={rt.kind}"


def _loads(raw: bytes) -> Any:
    try:
        return jsonutil.loads(raw)
    except ValueError:
        return raw.decode("utf-8", "replace")


def go_sprint(value: Any) -> str:
    """``value`` (decoded JSON) as Go's ``fmt.Sprintf("%+v", ...)`` prints an unstructured map:
    ``map[spec:map[replicas:2.5]]``, keys sorted, floats as ``%g``."""
    if isinstance(value, dict):
        return "map[" + " ".join(f"{k}:{go_sprint(value[k])}" for k in sorted(value)) + "]"
    if isinstance(value, list):
        return "[" + " ".join(go_sprint(v) for v in value) + "]"
    if value is None:
        return "<nil>"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return _go_float(value)
    return str(value)


def _go_float(value: float) -> str:
    """A float64 as Go's ``%v`` (``strconv`` ``'g'``, shortest): exponent form below 1e-4 and
    from 1e+06 (``1e+308``, ``2.5``, ``1.5e+07``)."""
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "+Inf" if value > 0 else "-Inf"
    if value == 0:
        return "0"
    number = Decimal(repr(value)).normalize()
    exp = number.adjusted()
    if -4 <= exp < 6:
        return format(number, "f")
    digits = "".join(map(str, number.as_tuple().digits))
    sign = "-" if value < 0 else ""
    head = digits[0] + ("." + digits[1:] if len(digits) > 1 else "")
    return f"{sign}{head}e{'+' if exp >= 0 else '-'}{abs(exp):02d}"
