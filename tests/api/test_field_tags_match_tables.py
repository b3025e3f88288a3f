"""Transitional check: the registry and patch schemas derived from field tags equal the old tables.

Deleted with the old tables in the next commit (the guard test in ``test_field_tags.py`` replaces it).
"""

from __future__ import annotations

from apiserver.patch.from_models import schema_of
from apiserver.patch.schema import List, Schema
from apiserver.patch.schemas import schema_for
from minikube_py.api.models import MODELS, K8sModel
from minikube_py.api.models.core_pod import PodTemplate
from minikube_py.api.models.core_replication import ReplicationController
from minikube_py.api.models.meta import DeleteOptions
from minikube_py.api.models.networking import Ingress
from minikube_py.api.models.policy import PodDisruptionBudget
from minikube_py.api.protobuf import (
    messages_auth,
    messages_container,
    messages_core,
    messages_meta,
    messages_misc,
    messages_pod,
    messages_volume,
    messages_workloads,
)
from minikube_py.api.protobuf.from_models import build_registry_from_models
from minikube_py.api.protobuf.messages import MESSAGES, REGISTRY
from minikube_py.api.protobuf.schema import build_registry
from tests.api import _old_patch_schemas as schemas

OLD_TABLES = (
    messages_meta,
    messages_core,
    messages_pod,
    messages_container,
    messages_volume,
    messages_workloads,
    messages_auth,
    messages_misc,
)

# The one intended difference: upstream merges a volume's items by their own struct tags, so the
# ObjectMeta of an ephemeral volume's claim template merges its lists; the old table stopped at
# the Volume.
_DEEPER = ".volumes[].ephemeral.volumeClaimTemplate.metadata."


def _models_by_name() -> dict[str, type[K8sModel]]:
    out: dict[str, type[K8sModel]] = {}
    for model in [*MODELS.values(), Ingress, PodDisruptionBudget]:
        out.setdefault(model.__name__, model)
    return out


def test_derived_registry_is_the_old_one() -> None:
    by_name = _models_by_name()
    roots = [by_name[name] for name in set(MESSAGES.values())] + [DeleteOptions]
    old = build_registry(module.SCHEMA for module in OLD_TABLES)
    assert build_registry_from_models(roots) == old
    assert old == REGISTRY


def _diff(new: Schema, old: Schema, path: str, out: list[str]) -> None:
    if type(new) is not type(old):
        out.append(path)
    elif isinstance(new, List) and isinstance(old, List):
        if (new.merge_key, new.retain_keys) != (old.merge_key, old.retain_keys):
            out.append(path)
        _diff(new.item, old.item, path + "[]", out)
    elif not isinstance(new, List) and not isinstance(old, List):
        if new.retain_keys != old.retain_keys:
            out.append(path)
        for name in set(new.fields) | set(old.fields):
            _diff(new.child(name), old.child(name), f"{path}.{name}", out)


def test_derived_patch_schemas_are_the_old_ones() -> None:
    by_group_kind: dict[tuple[str, str], type[K8sModel]] = {
        ("", "PodTemplate"): PodTemplate,
        ("", "ReplicationController"): ReplicationController,
    }
    for (api_version, kind), model in MODELS.items():
        by_group_kind.setdefault((api_version.rpartition("/")[0], kind), model)
    for group_kind, old in schemas._BY_KIND.items():
        found: list[str] = []
        _diff(schema_of(by_group_kind[group_kind]), old, "", found)
        assert schema_for(*group_kind) is schema_of(by_group_kind[group_kind])
        assert [p for p in found if not _deeper(p)] == [], group_kind


def _deeper(path: str) -> bool:
    return _DEEPER in path
