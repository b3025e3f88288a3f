"""``metadata.managedFields``: which manager owns which fields, decoded and encoded as upstream.

An entry on the wire::

    {"manager": "kubectl", "operation": "Apply", "apiVersion": "apps/v1",
     "time": "2024-05-01T12:00:00Z", "fieldsType": "FieldsV1",
     "fieldsV1": {"f:spec": {"f:replicas": {}}}}

plus ``"subresource": "status"`` for writes through ``/status``. Entries are keyed by upstream's
*manager identifier*: name, operation and subresource, and the API version for ``Update``
entries only (an applier keeps one entry whatever version it applies with). ``encode`` sorts
entries as upstream does: by operation (``Apply`` first), time, manager, API version,
subresource.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from apiserver.patch.fieldpath import FieldSet, from_fields_v1, go_string, to_fields_v1

APPLY, UPDATE = "Apply", "Update"
FIELDS_V1 = "FieldsV1"
FIELD_MANAGER_MAX_LENGTH = 128


@dataclass(frozen=True)
class Manager:
    """A manager identifier. Build it with ``Manager.of`` so Apply entries carry no version."""

    name: str
    operation: str
    subresource: str = ""
    api_version: str = ""

    @classmethod
    def of(cls, name: str, operation: str, api_version: str, subresource: str = "") -> Manager:
        return cls(name, operation, subresource, api_version if operation == UPDATE else "")

    def describe(self) -> str:
        """How conflict messages name it: ``"kubectl"``, ``"kubectl-edit" using apps/v1``."""
        text = go_string(self.name)
        if self.subresource:
            text += f" with subresource {go_string(self.subresource)}"
        if self.operation == UPDATE:
            text += f" using {self.api_version}"
        return text


@dataclass
class Entry:
    """What one manager owns, at which API version, and when it last changed something."""

    fields: FieldSet
    api_version: str
    time: str | None = None


Managed = dict[Manager, Entry]


def is_reset(raw: Any) -> bool:
    """``[]`` or ``[{}]`` sent by a client: clear managedFields (upstream's reset request)."""
    return isinstance(raw, list) and raw in ([], [{}])


def decode(raw: Any) -> Managed:
    """The entries of a ``managedFields`` value (``None``: none); ``ValueError`` if malformed."""
    if raw is None:
        return {}
    if not isinstance(raw, list):
        raise ValueError("managedFields must be a list")
    managed: Managed = {}
    for index, item in enumerate(raw):
        manager, entry = _decode_entry(item, index)
        managed[manager] = entry
    return managed


def _decode_entry(item: Any, index: int) -> tuple[Manager, Entry]:
    if not isinstance(item, dict):
        raise ValueError(f"managed fields entry {index} must be an object")
    operation, api_version = item.get("operation"), item.get("apiVersion")
    if operation not in (APPLY, UPDATE):
        raise ValueError("operation must be `Apply` or `Update`")
    if not isinstance(api_version, str) or not api_version:
        raise ValueError("apiVersion must not be empty")
    fields_type = item.get("fieldsType", "")
    if fields_type != FIELDS_V1:
        problem = "missing fieldsType" if not fields_type else f"invalid fieldsType {fields_type!r}"
        raise ValueError(f"{problem} in managed fields entry {index}")
    name, subresource, time = item.get("manager", ""), item.get("subresource", ""), item.get("time")
    if not isinstance(name, str) or not isinstance(subresource, str) or not isinstance(time, str | None):
        raise ValueError(f"managed fields entry {index} has a malformed manager, subresource or time")
    fields = from_fields_v1(item.get("fieldsV1") or {})
    return Manager.of(name, operation, api_version, subresource), Entry(fields, api_version, time)


def encode(managed: Managed) -> list[dict[str, Any]]:
    """The ``managedFields`` value of ``managed``, in upstream's order."""
    return sorted((_encode_entry(m, e) for m, e in managed.items()), key=_order)


def _encode_entry(manager: Manager, entry: Entry) -> dict[str, Any]:
    return encode_entry(manager, entry.api_version, entry.time, to_fields_v1(entry.fields))


def encode_entry(
    manager: Manager, api_version: str, time: str | None, fields_v1: dict[str, Any]
) -> dict[str, Any]:
    """One ``managedFields`` item, keys in upstream's order."""
    out: dict[str, Any] = {}
    if manager.name:
        out["manager"] = manager.name
    out["operation"] = manager.operation
    out["apiVersion"] = api_version
    if time:
        out["time"] = time
    out["fieldsType"] = FIELDS_V1
    out["fieldsV1"] = fields_v1
    if manager.subresource:
        out["subresource"] = manager.subresource
    return out


def _order(entry: dict[str, Any]) -> tuple[str, float, str, str, str]:
    return (
        entry["operation"],
        _seconds(entry.get("time")),
        entry.get("manager", ""),
        entry["apiVersion"],
        entry.get("subresource", ""),
    )


def _seconds(time: str | None) -> float:
    try:
        return datetime.fromisoformat(time).timestamp() if time else 0.0
    except ValueError:
        return 0.0
