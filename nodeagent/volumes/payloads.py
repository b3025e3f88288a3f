"""The files of configMap, secret and downwardAPI volumes (upstream's ``MakePayload`` and
``CollectData``): pure functions from the source object to an ``AtomicWriter`` payload."""

from __future__ import annotations

import base64
import posixpath
from collections.abc import Mapping, Sequence
from typing import Any

from nodeagent.fieldpath import (
    FieldPathError,
    container_resource_value,
    defaulted_limits,
    extract_field_path,
    find_container,
)
from nodeagent.sources import secret_data
from nodeagent.volumes.atomicwriter import FileProjection

DEFAULT_MODE = 0o644  # upstream's default for configMap, secret, downwardAPI and projected volumes


class PayloadSourceError(ValueError):
    """A payload cannot be made (upstream's message, e.g. a missing key)."""


def aggregate_message(messages: Sequence[str]) -> str:
    """Upstream's ``utilerrors.NewAggregate(...).Error()``."""
    return messages[0] if len(messages) == 1 else "[" + ", ".join(messages) + "]"


def _payload(
    data: Mapping[str, bytes],
    items: Sequence[Mapping[str, Any]],
    default_mode: int,
    optional: bool,
    what: str,
) -> dict[str, FileProjection]:
    if not items:
        return {key: FileProjection(value, default_mode) for key, value in data.items()}
    payload: dict[str, FileProjection] = {}
    for item in items:
        key = item["key"]
        if key not in data:
            if optional:
                continue
            raise PayloadSourceError(f"{what}: {key}")
        mode = item.get("mode")
        payload[item["path"]] = FileProjection(data[key], default_mode if mode is None else int(mode))
    return payload


def config_map_payload(
    config_map: Mapping[str, Any], items: Sequence[Mapping[str, Any]], default_mode: int, optional: bool
) -> dict[str, FileProjection]:
    """Files of a ConfigMap: ``data`` (UTF-8) and ``binaryData`` (base64), all keys or ``items``."""
    data = {key: str(value).encode() for key, value in (config_map.get("data") or {}).items()}
    for key, value in (config_map.get("binaryData") or {}).items():
        data.setdefault(key, base64.b64decode(value or ""))
    return _payload(data, items, default_mode, optional, "configmap references non-existent config key")


def secret_payload(
    secret: Mapping[str, Any], items: Sequence[Mapping[str, Any]], default_mode: int, optional: bool
) -> dict[str, FileProjection]:
    """Files of a Secret (its ``data``, base64-decoded), all keys or ``items``."""
    return _payload(
        secret_data(secret), items, default_mode, optional, "secret references non-existent secret key"
    )


def _downward_value(pod: Mapping[str, Any], item: Mapping[str, Any], allocatable: Mapping[str, str]) -> str:
    if field_ref := item.get("fieldRef"):
        return extract_field_path(pod, str(field_ref.get("fieldPath") or ""))
    if resource_ref := item.get("resourceFieldRef"):
        container = find_container(pod, str(resource_ref.get("containerName") or ""))
        return container_resource_value(resource_ref, defaulted_limits(container, allocatable))
    return ""


def downward_api_payload(
    pod: Mapping[str, Any],
    items: Sequence[Mapping[str, Any]],
    default_mode: int,
    node_allocatable: Mapping[str, str],
) -> dict[str, FileProjection]:
    """Files of a downwardAPI volume (``metadata.*`` fields and containers' resources)."""
    payload: dict[str, FileProjection] = {}
    errors: list[str] = []
    for item in items:
        mode = item.get("mode")
        try:
            value = _downward_value(pod, item, node_allocatable)
        except FieldPathError as err:
            errors.append(str(err))
            value = ""
        path = posixpath.normpath(item["path"])
        payload[path] = FileProjection(value.encode(), default_mode if mode is None else int(mode))
    if errors:
        raise PayloadSourceError(aggregate_message(errors))
    return payload
