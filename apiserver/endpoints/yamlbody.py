"""YAML request bodies (``application/apply-patch+yaml``), decoded to JSON values.

Upstream decodes them with sigs.k8s.io/yaml (YAML 1.1 through go-yaml, then JSON), and so
do we, through PyYAML's safe loader, with two adjustments to land on the same JSON:
timestamps stay strings (go-yaml gives strings to an untyped target) and non-string keys
become strings. JSON is YAML, so JSON bodies decode too. Anything that is not JSON once
loaded (binary, sets, infinities) is refused, as Go's JSON encoder refuses it; so are
documents that expand (through aliases) past a fixed budget of values.
"""

from __future__ import annotations

import datetime
import math
from typing import Any

import yaml

from apiserver.storage.errors import MAX_VALUE_BYTES
from minikube_py.api import errors

MAX_VALUES = 1_000_000
MAX_DEPTH = 256  # objects are rarely 20 deep; well under Python's recursion limit
_TIMESTAMP = "tag:yaml.org,2002:timestamp"


class _Loader(yaml.SafeLoader):
    """The safe loader, minus implicit timestamps."""


_Loader.yaml_implicit_resolvers = {
    first: [(tag, rx) for tag, rx in resolvers if tag != _TIMESTAMP]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}


class _NotJSON(ValueError):
    pass


def decode_yaml_object(raw: bytes) -> dict[str, Any]:
    """A JSON object from a YAML (or JSON) body; 400 ``error decoding YAML: ...`` otherwise.
    An empty body is the empty object."""
    if len(raw) > MAX_VALUE_BYTES:
        raise errors.too_large("Request entity too large: limit is 3145728")
    try:
        loaded = yaml.load(raw, Loader=_Loader)  # a SafeLoader: no arbitrary objects
        value = _Converter().json(loaded, 0)
    except (yaml.YAMLError, _NotJSON, RecursionError) as err:
        raise errors.bad_request(f"error decoding YAML: {_message(err)}") from None
    if value is None:
        return {}
    if not isinstance(value, dict):
        kind = "array" if isinstance(value, list) else type(value).__name__
        raise errors.bad_request(
            "error decoding YAML: error unmarshaling JSON: json: cannot unmarshal "
            f"{kind} into Go value of type map[string]interface {{}}"
        )
    return value


def _message(err: Exception) -> str:
    if isinstance(err, RecursionError):
        return "the document is nested too deeply"
    return " ".join(str(err).split())


class _Converter:
    """Copies a loaded document into plain JSON values, counting them."""

    def __init__(self) -> None:
        self.values = 0

    def json(self, value: Any, depth: int) -> Any:
        self.values += 1
        if self.values > MAX_VALUES or depth > MAX_DEPTH:
            raise _NotJSON("document contains excessive aliasing or nesting")
        if isinstance(value, dict):
            return {_key(k): self.json(v, depth + 1) for k, v in value.items()}
        if isinstance(value, list):
            return [self.json(v, depth + 1) for v in value]
        if isinstance(value, float) and not math.isfinite(value):
            raise _NotJSON(f"json: unsupported value: {value}")
        if isinstance(value, datetime.date):
            return value.isoformat()
        if value is None or isinstance(value, str | int | float | bool):
            return value
        raise _NotJSON(f"json: unsupported type: {type(value).__name__}")


def _key(key: Any) -> str:
    if isinstance(key, str):
        return key
    if isinstance(key, bool):
        return "true" if key else "false"
    if key is None:
        return "null"
    if isinstance(key, int | float):
        return str(key)
    raise _NotJSON(f"json: unsupported map key type: {type(key).__name__}")
