"""The built-in kinds, found by walking the model modules: ``MODELS`` (the model of every kind by
(apiVersion, kind)) and the served resource types the scheme is built from.

A kind is declared once, on its model (``kinds = (Served(...),)`` or ``(Kind(...),)``, see
``minikube_py.api.scheme``); nothing here lists kinds. Every module of this package is imported
on first use (not when this module is imported, so ``minikube_py.api.builtin`` stays cheap to
import), and the declarations are checked: two models may not declare one kind, and a served
kind's resource may not be declared twice.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, replace
from types import ModuleType

from minikube_py.api.models.base import K8sModel
from minikube_py.api.scheme import Declaration, Kind, ResourceType, served_order
from minikube_py.declarations import declaring_classes, package_modules

PACKAGE = "minikube_py.api.models"


class KindDeclarationError(Exception):
    """The model modules declare a kind twice or in a shape the registry cannot read."""


def model_modules(package: str = PACKAGE) -> list[ModuleType]:
    """Every module of ``package``, imported, in name order."""
    return package_modules(package)


def declaring_models(modules: Iterable[ModuleType]) -> Iterator[type[K8sModel]]:
    """The models defined in ``modules`` (not imported into them) that write ``kinds`` themselves."""
    return declaring_classes(modules, K8sModel, "kinds")


@dataclass(frozen=True, slots=True)
class KindRegistry:
    """``models``: by (apiVersion, kind); ``served``: resource types in discovery order."""

    models: Mapping[tuple[str, str], type[K8sModel]]
    served: tuple[ResourceType, ...]

    @classmethod
    def from_modules(cls, modules: Iterable[ModuleType]) -> KindRegistry:
        models: dict[tuple[str, str], type[K8sModel]] = {}
        served: dict[tuple[str, str, str], tuple[ResourceType, type[K8sModel]]] = {}
        for model in declaring_models(modules):
            for declaration in _declarations(model):
                kind = declaration.kind or model.__name__
                key = (declaration.api_version, kind)
                if key in models and models[key] is not model:
                    raise KindDeclarationError(
                        f"{declaration.api_version} {kind} is declared by two models: "
                        f"{_name(models[key])} and {_name(model)}"
                    )
                models[key] = model
                if isinstance(declaration, ResourceType):
                    named = declaration if declaration.kind else replace(declaration, kind=model.__name__)
                    _add_served(served, named, model)
        ordered = sorted((rt for rt, _ in served.values()), key=served_order)
        return cls(models, tuple(ordered))


def _declarations(model: type[K8sModel]) -> tuple[Declaration, ...]:
    declared = vars(model)["kinds"]
    if not isinstance(declared, tuple) or not all(isinstance(d, ResourceType | Kind) for d in declared):
        raise KindDeclarationError(
            f"{_name(model)}.kinds must be a tuple of Served(...) and Kind(...), not {declared!r}"
        )
    return declared


def _add_served(
    served: dict[tuple[str, str, str], tuple[ResourceType, type[K8sModel]]],
    rt: ResourceType,
    model: type[K8sModel],
) -> None:
    key = (rt.group, rt.version, rt.resource)
    if key in served:
        raise KindDeclarationError(
            f"resource {rt.resource} in {rt.api_version} is declared by {_name(served[key][1])} "
            f"and {_name(model)}"
        )
    served[key] = (rt, model)


def _name(model: type[K8sModel]) -> str:
    return f"{model.__module__}.{model.__name__}"


@functools.cache
def builtin_kinds() -> KindRegistry:
    """The kinds declared by this package's model modules (walked once, on first use)."""
    return KindRegistry.from_modules(model_modules())


class _Models(Mapping[tuple[str, str], type[K8sModel]]):
    """``MODELS`` as a mapping that walks the model modules on first access."""

    def __getitem__(self, key: tuple[str, str]) -> type[K8sModel]:
        return builtin_kinds().models[key]

    def __iter__(self) -> Iterator[tuple[str, str]]:
        return iter(builtin_kinds().models)

    def __len__(self) -> int:
        return len(builtin_kinds().models)


MODELS: Mapping[tuple[str, str], type[K8sModel]] = _Models()


def model_for(api_version: str, kind: str) -> type[K8sModel] | None:
    """The model of ``kind`` in ``api_version``, or None for kinds without one."""
    return builtin_kinds().models.get((api_version, kind))


def group_version_kinds(model: type[K8sModel]) -> list[tuple[str, str, str]]:
    """Every (group, version, kind) ``model`` is registered under."""
    out = []
    for (api_version, kind), registered in builtin_kinds().models.items():
        if registered is model:
            group, _, version = api_version.rpartition("/")
            out.append((group, version, kind))
    return out
