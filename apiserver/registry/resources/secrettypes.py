"""Upstream's rules for the built-in Secret types (``ValidateSecret``): the keys each type needs,
and JSON that must parse for the Docker config types. Values are the decoded ``data`` (after
``stringData`` is folded in); invalid base64 is reported elsewhere and skipped here."""

from __future__ import annotations

import base64
import binascii
import json
from typing import Any

from minikube_py.api.errors import Cause
from minikube_py.api.field_errors import FieldError, invalid, required, too_long
from minikube_py.api.gojson_syntax import syntax_error

SERVICE_ACCOUNT_TOKEN = "kubernetes.io/service-account-token"
DOCKERCFG = "kubernetes.io/dockercfg"
DOCKER_CONFIG_JSON = "kubernetes.io/dockerconfigjson"
BASIC_AUTH = "kubernetes.io/basic-auth"
SSH_AUTH = "kubernetes.io/ssh-auth"
TLS = "kubernetes.io/tls"
SERVICE_ACCOUNT_NAME_KEY = "kubernetes.io/service-account.name"
DOCKER_CONFIG_KEYS = {DOCKERCFG: ".dockercfg", DOCKER_CONFIG_JSON: ".dockerconfigjson"}
MAX_SECRET_SIZE = 1024 * 1024  # upstream's MaxSecretSize: the decoded data, in all
REDACTED = "<secret contents redacted>"


def secret_type_errors(obj: dict[str, Any]) -> list[Cause]:
    """The errors of ``obj``'s type rules and total size, as upstream's causes."""
    data = obj.get("data") or {}
    if not isinstance(data, dict):
        return []
    decoded = {key: _decode(value) for key, value in data.items()}
    found: list[FieldError] = []
    if sum(len(value or b"") for value in decoded.values()) > MAX_SECRET_SIZE:
        found.append(too_long("data", MAX_SECRET_SIZE))
    kind = obj.get("type", "")
    annotations = (obj.get("metadata") or {}).get("annotations") or {}
    if kind == SERVICE_ACCOUNT_TOKEN and not annotations.get(SERVICE_ACCOUNT_NAME_KEY):
        found.append(required(f"metadata.annotations[{SERVICE_ACCOUNT_NAME_KEY}]"))
    elif kind in DOCKER_CONFIG_KEYS:
        key = DOCKER_CONFIG_KEYS[kind]
        if key not in data:
            found.append(required(f"data[{key}]"))
        elif (problem := _json_object_error(decoded[key])) is not None:
            found.append(invalid(f"data[{key}]", REDACTED, problem))
    elif kind == BASIC_AUTH and "username" not in data and "password" not in data:
        found += [required("data[username]"), required("data[password]")]  # one of them, even empty
    elif kind == SSH_AUTH and not decoded.get("ssh-privatekey"):
        found.append(required("data[ssh-privatekey]"))
    elif kind == TLS:
        found += [required(f"data[{key}]") for key in ("tls.crt", "tls.key") if key not in data]
    return [Cause(e.reason, e.body(), e.field) for e in found]


def _decode(value: Any) -> bytes | None:
    try:
        return base64.b64decode(str(value), validate=True)
    except (binascii.Error, ValueError):
        return None


def _json_object_error(raw: bytes | None) -> str | None:
    """Why ``raw`` does not unmarshal into Go's ``map[string]interface{}`` (Go's words), or None."""
    if raw is None:
        return None  # invalid base64: already an error of its own
    text = raw.decode("utf-8", "replace")
    problem = syntax_error(text)
    if problem is not None:
        return problem
    value = json.loads(text)
    if value is None or isinstance(value, dict):
        return None  # null leaves the map nil: no error
    what = {bool: "bool", str: "string", list: "array"}.get(type(value), "number")
    return f"json: cannot unmarshal {what} into Go value of type map[string]interface {{}}"
