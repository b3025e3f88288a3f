"""``Registry``: plugin name -> factory (upstream ``framework/runtime/registry.go``). The in-tree
plugins form one registry; out-of-tree plugins are ``merge``d in. A name is registered once."""

from __future__ import annotations

from collections.abc import Mapping

from scheduler.framework.interface import PluginFactory


class Registry(dict[str, PluginFactory]):
    def register(self, name: str, factory: PluginFactory) -> None:
        if name in self:
            raise ValueError(f"a plugin named {name} already exists")
        self[name] = factory

    def unregister(self, name: str) -> None:
        if name not in self:
            raise ValueError(f"no plugin named {name} exists")
        del self[name]

    def merge(self, other: Mapping[str, PluginFactory]) -> None:
        """Add every plugin of ``other``; a name already here is an error (nothing is added)."""
        for name in other:
            if name in self:
                raise ValueError(f"a plugin named {name} already exists")
        self.update(other)
