"""The controllers the manager knows, by name, and which of them a ``--controllers`` list
selects (upstream's rules: ``*`` is every controller on by default, ``name`` turns one on,
``-name`` turns one off; the last word on a name wins over ``*``).

The registry is open: a word that is no built-in name may name an out-of-tree controller
(``package.module:attribute``, ``path/to/file.py:attribute``, or an entry point of the group
``minikube_py.controllers``; see ``loading``). Such a controller runs only when named, never
through ``*``, and after the built-in ones; every word is resolved, and so checked, when the
list is selected, before the manager connects anywhere."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from controllers.manager.loading import (
    entry_point_names,
    failed,
    is_reference,
    load_entry_point,
    load_reference,
)
from controllers.manager.spec import (
    ControllerContext,
    ControllerLoadError,
    ControllerSpec,
    NewController,
    UnknownControllerError,
)

__all__ = [
    "ControllerContext",
    "ControllerLoadError",
    "ControllerRegistry",
    "ControllerSpec",
    "NewController",
    "UnknownControllerError",
]


class ControllerRegistry:
    """Specs by name; registering a name (or alias) twice is an error."""

    def __init__(self, specs: Iterable[ControllerSpec] = ()) -> None:
        self._specs: dict[str, ControllerSpec] = {}
        self._names: dict[str, str] = {}
        self._loaded: dict[str, ControllerSpec] = {}  # out-of-tree, by --controllers word
        for spec in specs:
            self.register(spec)

    def register(self, spec: ControllerSpec) -> None:
        for name in (spec.name, *spec.aliases):
            if name in self._names:
                raise ValueError(f"controller {name} is registered twice")
            self._names[name] = spec.name
        self._specs[spec.name] = spec

    def names(self) -> list[str]:
        return sorted(self._specs)

    def specs(self) -> list[ControllerSpec]:
        """Every registered spec, in registration order (out-of-tree ones are not registered)."""
        return list(self._specs.values())

    def select(self, flags: Sequence[str]) -> list[ControllerSpec]:
        """The specs ``flags`` (the ``--controllers`` words) turn on: the registered ones in
        registration order, then the out-of-tree ones in the order they are named. Raises
        ``UnknownControllerError`` (or its ``ControllerLoadError``) for a word it cannot use."""
        wanted: dict[str, bool] = {}
        outside: dict[str, ControllerSpec] = {}
        star = False
        for word in flags:
            word = word.strip()
            if word == "*":
                star = True
                continue
            off = word.startswith("-")
            name = self._names.get(word.lstrip("-"))
            if name is None:
                spec = self._out_of_tree(word.lstrip("-"))
                if spec.name in outside and outside[spec.name] is not spec:
                    raise ControllerLoadError(f'two --controllers entries describe "{spec.name}"')
                outside[spec.name] = spec
                name = spec.name
            wanted[name] = not off
        return [
            *(s for s in self._specs.values() if wanted.get(s.name, star and s.enabled_by_default)),
            *(spec for spec in outside.values() if wanted[spec.name]),
        ]

    def _out_of_tree(self, word: str) -> ControllerSpec:
        """The out-of-tree spec ``word`` names, loaded once per registry."""
        if (spec := self._loaded.get(word)) is not None:
            return spec
        spec = load_reference(word) if is_reference(word) else load_entry_point(word)
        if spec is None:
            known = ", ".join([*self.names(), *entry_point_names()])
            raise UnknownControllerError(f'"{word}" is not in the list of known controllers: {known}')
        for name in (spec.name, *spec.aliases):
            if name in self._names:
                raise failed(word, f'"{name}" is a built-in controller')
        self._loaded[word] = spec
        return spec
