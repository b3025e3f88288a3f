"""The guard of issue 14: a kind is one model declaration plus one strategy, and nothing else.

Every served kind must have a model, a strategy, Table columns and a GC policy; a kind declared
on one side only (or twice) must be refused with a message that says what is missing. The
half-declared cases build the registries from test-only modules, as the real ones are built
from ``minikube_py/api/models/`` and ``apiserver/registry/resources/``.
"""

from __future__ import annotations

from types import ModuleType

import pytest

from apiserver.registry.catalog import Catalog
from apiserver.registry.deletion import DELETE_DEPENDENTS, ORPHAN_DEPENDENTS, UNSUPPORTED
from apiserver.registry.strategies import (
    StrategyDeclarationError,
    StrategyRegistry,
    builtin_strategies,
    declaring_strategies,
    strategy_modules,
)
from apiserver.registry.strategy import NAME_COLUMN, Strategy
from apiserver.storage.memory import MemoryKV
from minikube_py.api.builtin import builtin_scheme
from minikube_py.api.models import model_for
from minikube_py.api.models.base import K8sModel
from minikube_py.api.models.meta import ObjectMeta, TypeMeta
from minikube_py.api.models.registry import KindDeclarationError, KindRegistry, builtin_kinds
from minikube_py.api.scheme import GROUP_ORDER, Kind, Served, version_priority


def module(name: str, *classes: type) -> ModuleType:
    """A module defining ``classes`` (as if written in a file of its own)."""
    mod = ModuleType(name)
    for cls in classes:
        cls.__module__ = name
        setattr(mod, cls.__name__, cls)
    return mod


class Widget(TypeMeta):
    kinds = (Served("example.com", "v1", "widgets", True, ("wd",)),)
    metadata: ObjectMeta | None = None


class Gadget(TypeMeta):
    kinds = (Served("example.com", "v1", "gadgets", False),)


class WidgetOptions(TypeMeta):
    kinds = (Kind("example.com/v1"),)


class WidgetStrategy(Strategy):
    kinds = (Widget,)


class GadgetStrategy(Strategy):
    kinds = (Gadget,)


MODELS = module("fake_models", Widget, Gadget, WidgetOptions)


def test_every_served_kind_has_a_model_a_strategy_a_table_and_a_gc_policy() -> None:
    strategies = builtin_strategies()
    for rt in builtin_scheme():
        model = model_for(rt.api_version, rt.kind)
        assert model is not None, rt
        strategy = strategies.strategy_class(rt)()
        columns = strategy.table_columns()
        assert NAME_COLUMN[2] in [column[2] for column in columns], (rt, columns)  # a "name" column
        obj = {"apiVersion": rt.api_version, "kind": rt.kind, "metadata": {"name": "x", "namespace": "ns"}}
        obj["metadata"]["creationTimestamp"] = "2024-01-01T00:00:00Z"
        assert len(strategy.table_cells(obj, 1.8e9)) == len(columns), rt  # one cell per column
        assert strategy.gc_policy in (DELETE_DEPENDENTS, ORPHAN_DEPENDENTS, UNSUPPORTED), rt


def test_every_strategy_class_in_resources_serves_a_built_in_kind() -> None:
    served = set(builtin_strategies().by_model.values())
    assert set(declaring_strategies(strategy_modules())) == served


def test_a_catalog_is_built_from_test_only_modules() -> None:
    kinds = KindRegistry.from_modules([MODELS])
    catalog = Catalog(
        MemoryKV(),
        StrategyRegistry.from_modules(kinds, [module("fake_resources", WidgetStrategy, GadgetStrategy)]),
    )
    store = catalog.store("example.com", "v1", "widgets")
    assert store is not None and type(store.strategy) is WidgetStrategy
    assert store.rt.kind == "Widget" and store.rt.short_names == ("wd",)
    assert kinds.models[("example.com/v1", "WidgetOptions")] is WidgetOptions
    assert [rt.resource for rt in catalog.scheme] == ["gadgets", "widgets"]


def test_a_served_kind_without_a_strategy_is_refused() -> None:
    kinds = KindRegistry.from_modules([MODELS])
    with pytest.raises(StrategyDeclarationError) as caught:
        StrategyRegistry.from_modules(kinds, [module("fake_resources", WidgetStrategy)])
    assert str(caught.value) == (
        "example.com/v1 Gadget (fake_models.Gadget) has no strategy: write one under "
        "apiserver/registry/resources/ with kinds = (Gadget,)"
    )


def test_a_strategy_of_a_kind_without_a_served_model_is_refused() -> None:
    class OptionsStrategy(Strategy):
        kinds = (WidgetOptions,)

    kinds = KindRegistry.from_modules([MODELS])
    resources = module("fake_resources", WidgetStrategy, GadgetStrategy, OptionsStrategy)
    with pytest.raises(StrategyDeclarationError) as caught:
        StrategyRegistry.from_modules(kinds, [resources])
    assert str(caught.value) == (
        "fake_resources.OptionsStrategy serves fake_models.WidgetOptions, which declares no served "
        "kind: add Served(...) to the model's kinds"
    )


def test_a_strategy_of_a_model_no_module_declares_is_refused() -> None:
    class Stray(TypeMeta):
        kinds = (Served("example.com", "v1", "strays", True),)

    class StrayStrategy(Strategy):
        kinds = (Stray,)

    kinds = KindRegistry.from_modules([MODELS])  # Stray's module is not walked
    resources = module("fake_resources", WidgetStrategy, GadgetStrategy, StrayStrategy)
    with pytest.raises(
        StrategyDeclarationError, match=r"StrayStrategy serves .*Stray, which declares no served"
    ):
        StrategyRegistry.from_modules(kinds, [resources])


def test_two_strategies_of_one_kind_are_refused() -> None:
    class OtherWidgetStrategy(Strategy):
        kinds = (Widget,)

    kinds = KindRegistry.from_modules([MODELS])
    resources = module("fake_resources", WidgetStrategy, GadgetStrategy, OtherWidgetStrategy)
    with pytest.raises(StrategyDeclarationError) as caught:
        StrategyRegistry.from_modules(kinds, [resources])
    assert str(caught.value) == (
        "example.com/v1 Widget has two strategies: fake_resources.WidgetStrategy and "
        "fake_resources.OtherWidgetStrategy"
    )


def test_a_subclass_inherits_no_kinds() -> None:
    class SpecialWidgetStrategy(WidgetStrategy):
        pass

    kinds = KindRegistry.from_modules([MODELS])
    resources = module("fake_resources", WidgetStrategy, GadgetStrategy, SpecialWidgetStrategy)
    assert StrategyRegistry.from_modules(kinds, [resources]).by_model[Widget] is WidgetStrategy


def test_two_models_of_one_kind_are_refused() -> None:
    class Widget(TypeMeta):  # the same kind, declared again in another module
        kinds = (Kind("example.com/v1"),)

    with pytest.raises(KindDeclarationError) as caught:
        KindRegistry.from_modules([MODELS, module("more_models", Widget)])
    assert str(caught.value) == (
        "example.com/v1 Widget is declared by two models: fake_models.Widget and more_models.Widget"
    )


def test_one_resource_declared_twice_is_refused() -> None:
    class Sprocket(TypeMeta):
        kinds = (Served("example.com", "v1", "widgets", True),)

    with pytest.raises(KindDeclarationError) as caught:
        KindRegistry.from_modules([MODELS, module("more_models", Sprocket)])
    assert str(caught.value) == (
        "resource widgets in example.com/v1 is declared by fake_models.Widget and more_models.Sprocket"
    )


def test_a_declaration_that_is_not_a_tuple_is_refused() -> None:
    class Loose(K8sModel):
        kinds = Served("example.com", "v1", "looses", True)  # type: ignore[assignment]

    with pytest.raises(KindDeclarationError, match=r"more_models\.Loose\.kinds must be a tuple"):
        KindRegistry.from_modules([module("more_models", Loose)])


def test_builtin_kinds_are_walked_once() -> None:
    assert builtin_kinds() is builtin_kinds()
    assert builtin_strategies() is builtin_strategies()


def test_the_scheme_lists_groups_in_kube_apiservers_order_preferred_version_first() -> None:
    versions = builtin_scheme().group_versions()
    assert versions[0] == ("", "v1")
    groups = list(dict.fromkeys(group for group, _ in versions[1:]))
    assert groups == sorted(
        groups, key=lambda g: GROUP_ORDER.index(g) if g in GROUP_ORDER else len(GROUP_ORDER)
    )
    assert versions.index(("authentication.k8s.io", "v1")) < versions.index(
        ("authentication.k8s.io", "v1beta1")
    )
    apps = [rt.resource for rt in builtin_scheme().in_group_version("apps", "v1")]
    assert apps == ["controllerrevisions", "daemonsets", "deployments", "replicasets", "statefulsets"]


@pytest.mark.parametrize(
    ("versions", "ordered"),
    [
        (["v1beta1", "v1", "v2", "v1alpha1", "v1beta2"], ["v2", "v1", "v1beta2", "v1beta1", "v1alpha1"]),
        (["foo", "v1"], ["v1", "foo"]),
    ],
)
def test_version_priority(versions: list[str], ordered: list[str]) -> None:
    assert sorted(versions, key=version_priority) == ordered
