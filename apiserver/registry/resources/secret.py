"""Secrets: base64 ``data``; ``stringData`` is folded into ``data`` on write; ``type`` defaults
to ``Opaque``; the built-in types' rules are ``secrettypes.py``."""

from __future__ import annotations

import base64
from typing import Any

from apiserver.registry.age import age
from apiserver.registry.resources.configmap import AGE_COLUMN, validate_base64, validate_keys
from apiserver.registry.resources.secrettypes import secret_type_errors
from apiserver.registry.strategy import NAME_COLUMN, Column, Strategy
from minikube_py.api.errors import Cause
from minikube_py.api.models import core_objects
from minikube_py.api.unstructured import Object


def fold_string_data(obj: Object) -> None:
    strings = obj.pop("stringData", None) or {}
    if strings:
        data = obj.setdefault("data", {})
        for key, value in strings.items():
            data[key] = base64.b64encode(str(value).encode()).decode()


class SecretStrategy(Strategy):
    kinds = (core_objects.Secret,)

    def prepare_for_create(self, obj: Object) -> None:
        super().prepare_for_create(obj)
        obj.setdefault("type", "Opaque")
        fold_string_data(obj)

    def prepare_for_update(self, new: Object, old: Object) -> None:
        super().prepare_for_update(new, old)
        new.setdefault("type", old.get("type", "Opaque"))
        fold_string_data(new)

    def validate(self, obj: Object) -> list[Cause]:
        causes = validate_keys(obj.get("data"), "data") + validate_base64(obj.get("data"), "data")
        return causes + secret_type_errors(obj)

    def validate_update(self, new: Object, old: Object) -> list[Cause]:
        causes = self.validate(new)
        if new.get("type") != old.get("type"):
            causes.append(
                Cause("FieldValueInvalid", f'Invalid value: "{new.get("type")}": field is immutable', "type")
            )
        return causes

    def selectable_fields(self, obj: Object) -> dict[str, str]:
        return {**super().selectable_fields(obj), "type": obj.get("type", "")}

    def table_columns(self) -> list[Column]:
        return [
            NAME_COLUMN,
            ("Type", "string", "", "The type of the secret", 0),
            ("Data", "string", "", "The number of entries in the data map", 0),
            AGE_COLUMN,
        ]

    def table_cells(self, obj: Object, now: float) -> list[Any]:
        meta = obj["metadata"]
        return [
            meta["name"],
            obj.get("type", ""),
            len(obj.get("data") or {}),
            age(meta.get("creationTimestamp"), now),
        ]
