"""Which strategy serves which kind, found by importing every module of ``resources/``.

A strategy class names the models of the kinds it serves (``Strategy.kinds``); the models
declare which kinds they are (``minikube_py.api.models.registry``). Building the registry checks
that the two halves agree: every served kind has exactly one strategy, and every strategy serves
a model that declares a served kind. A kind declared on one side only is refused with a message
naming what is missing, so adding a kind is one model and one strategy file.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from types import ModuleType

from apiserver.registry.strategy import Strategy
from minikube_py.api.models.base import K8sModel
from minikube_py.api.models.registry import KindRegistry, builtin_kinds
from minikube_py.api.scheme import ResourceType, Scheme
from minikube_py.api.unstructured import Object
from minikube_py.declarations import declaring_classes, package_modules

PACKAGE = "apiserver.registry.resources"


class StrategyDeclarationError(Exception):
    """A served kind has no strategy or two, or a strategy serves no served kind."""


def strategy_modules(package: str = PACKAGE) -> list[ModuleType]:
    """Every module of ``package``, imported, in name order."""
    return package_modules(package)


def declaring_strategies(modules: Iterable[ModuleType]) -> Iterator[type[Strategy]]:
    """The strategies defined in ``modules`` (not imported into them) that write ``kinds`` themselves."""
    return declaring_classes(modules, Strategy, "kinds")


@dataclass(frozen=True, slots=True)
class StrategyRegistry:
    """The served kinds (``scheme``) and the strategy class of each kind's model."""

    kinds: KindRegistry
    by_model: Mapping[type[K8sModel], type[Strategy]]

    @classmethod
    def from_modules(cls, kinds: KindRegistry, modules: Iterable[ModuleType]) -> StrategyRegistry:
        served = {kinds.models[(rt.api_version, rt.kind)]: rt for rt in kinds.served}
        by_model: dict[type[K8sModel], type[Strategy]] = {}
        for strategy in declaring_strategies(modules):
            for model in vars(strategy)["kinds"]:
                if model not in served:
                    raise StrategyDeclarationError(
                        f"{_name(strategy)} serves {_name(model)}, which declares no served kind: "
                        "add Served(...) to the model's kinds"
                    )
                if model in by_model:
                    raise StrategyDeclarationError(
                        f"{served[model].api_version} {served[model].kind} has two strategies: "
                        f"{_name(by_model[model])} and {_name(strategy)}"
                    )
                by_model[model] = strategy
        for model, rt in served.items():
            if model not in by_model:
                raise StrategyDeclarationError(
                    f"{rt.api_version} {rt.kind} ({_name(model)}) has no strategy: write one under "
                    f"{PACKAGE.replace('.', '/')}/ with kinds = ({model.__name__},)"
                )
        return cls(kinds, by_model)

    def scheme(self) -> Scheme:
        return Scheme(self.kinds.served)

    def strategy_class(self, rt: ResourceType) -> type[Strategy]:
        """The strategy of ``rt``'s kind; KeyError for a kind not built in."""
        return self.by_model[self.kinds.models[(rt.api_version, rt.kind)]]

    def strategy(self, rt: ResourceType, stored_objects: Callable[[], Iterable[Object]]) -> Strategy:
        """The strategy of one store of ``rt`` (``stored_objects`` lists what it holds)."""
        return self.strategy_class(rt).for_storage(stored_objects)


def _name(cls: type) -> str:
    return f"{cls.__module__}.{cls.__name__}"


@functools.cache
def builtin_strategies() -> StrategyRegistry:
    """The strategies of ``resources/`` for the built-in kinds (imported once, on first use)."""
    return StrategyRegistry.from_modules(builtin_kinds(), strategy_modules())


def strategy_for(rt: ResourceType) -> Strategy:
    """A new strategy of built-in ``rt`` (a store's own may differ: ``Strategy.for_storage``)."""
    return builtin_strategies().strategy_class(rt)()
