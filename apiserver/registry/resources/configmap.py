"""ConfigMaps: ``data`` (strings) and ``binaryData`` (base64) under valid, distinct keys."""

from __future__ import annotations

import base64
import binascii
import re
from typing import Any

from apiserver.registry.age import age
from apiserver.registry.strategy import NAME_COLUMN, Column, Strategy
from minikube_py.api.errors import Cause
from minikube_py.api.models import core_objects
from minikube_py.api.unstructured import Object

AGE_COLUMN: Column = (
    "Age",
    "string",
    "",
    "CreationTimestamp is a timestamp representing the server time when this object was created.",
    0,
)
_KEY = re.compile(r"^[-._a-zA-Z0-9]+$")
KEY_MESSAGE = (
    "a valid config key must consist of alphanumeric characters, '-', '_' or '.' "
    "(e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')"
)


def validate_keys(values: Any, field: str) -> list[Cause]:
    if values is None:
        return []
    if not isinstance(values, dict):
        return [Cause("FieldValueInvalid", "Invalid value: must be a map", field)]
    causes = []
    for key in values:
        if not _KEY.match(key) or len(key) > 253:
            causes.append(Cause("FieldValueInvalid", f'Invalid value: "{key}": {KEY_MESSAGE}', field))
    return causes


def validate_base64(values: dict[str, Any] | None, field: str) -> list[Cause]:
    causes = []
    for key, value in (values or {}).items():
        try:
            base64.b64decode(str(value), validate=True)
        except (binascii.Error, ValueError):
            causes.append(Cause("FieldValueInvalid", "Invalid value: illegal base64 data", f"{field}[{key}]"))
    return causes


class ConfigMapStrategy(Strategy):
    kinds = (core_objects.ConfigMap,)

    def validate(self, obj: Object) -> list[Cause]:
        causes = validate_keys(obj.get("data"), "data") + validate_keys(obj.get("binaryData"), "binaryData")
        causes += validate_base64(obj.get("binaryData"), "binaryData")
        for key, value in (obj.get("data") or {}).items():
            if not isinstance(value, str):
                causes.append(Cause("FieldValueInvalid", "Invalid value: must be a string", f"data[{key}]"))
        both = set(obj.get("data") or {}) & set(obj.get("binaryData") or {})
        causes += [
            Cause(
                "FieldValueInvalid", f'Invalid value: "{k}": duplicate of key present in data', "binaryData"
            )
            for k in sorted(both)
        ]
        return causes

    def table_columns(self) -> list[Column]:
        return [NAME_COLUMN, ("Data", "integer", "", "Data contains the configuration data.", 0), AGE_COLUMN]

    def table_cells(self, obj: Object, now: float) -> list[Any]:
        meta = obj["metadata"]
        count = len(obj.get("data") or {}) + len(obj.get("binaryData") or {})
        return [meta["name"], count, age(meta.get("creationTimestamp"), now)]
