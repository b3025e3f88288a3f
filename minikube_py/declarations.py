"""Finding declarations by walking a package, so that adding one is writing one file: the kinds
declared on models (``minikube_py.api.models``) and the strategies that serve them
(``apiserver/registry/resources``) are both found this way."""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Iterable, Iterator
from types import ModuleType
from typing import TypeVar

T = TypeVar("T")


def package_modules(package: str) -> list[ModuleType]:
    """Every module of ``package``, imported, in name order."""
    root = importlib.import_module(package)
    return [importlib.import_module(f"{package}.{info.name}") for info in pkgutil.iter_modules(root.__path__)]


def declaring_classes(modules: Iterable[ModuleType], base: type[T], attribute: str) -> Iterator[type[T]]:
    """The subclasses of ``base`` defined in ``modules`` (not imported into them) that write
    ``attribute`` themselves (a subclass inherits no declaration)."""
    for module in modules:
        for value in vars(module).values():
            if (
                isinstance(value, type)
                and issubclass(value, base)
                and value.__module__ == module.__name__
                and attribute in vars(value)
            ):
                yield value
