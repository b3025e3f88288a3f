"""Out-of-tree plugins: the names a KubeSchedulerConfiguration may give besides the in-tree ones
(upstream compiles them in with ``app.WithPlugin``; here they are loaded when the file is).

- ``package.module:Factory``: an importable module (installed, or on ``PYTHONPATH``);
- ``path/to/plugin.py:Factory``: a Python file, relative to the configuration file;
- ``Name``: an entry point ``Name`` in the group ``minikube_py.scheduler.plugins`` of an
  installed distribution (an in-tree plugin of the same name wins).

``Factory`` is called as ``Factory(args, handle)`` (a plugin class is its own factory) and
returns the plugin. The reference itself is the plugin's name in the profile, in
``pluginConfig`` and in the statuses it returns.
"""

from __future__ import annotations

import importlib.metadata
from pathlib import Path

from minikube_py import pyreference
from minikube_py.pyreference import is_reference
from scheduler.framework.interface import PluginFactory

__all__ = ["ENTRY_POINT_GROUP", "PluginLoadError", "entry_point", "is_reference", "resolve"]

ENTRY_POINT_GROUP = "minikube_py.scheduler.plugins"


class PluginLoadError(Exception):
    """A plugin reference cannot be resolved (one line saying why)."""


def resolve(name: str, base_dir: Path | None = None) -> PluginFactory:
    """The factory ``name`` (``module:attr`` or ``file.py:attr``, a file relative to
    ``base_dir``) refers to."""
    try:
        factory = pyreference.load(name, namespace="minikube_py_scheduler_plugin", base_dir=base_dir)
    except pyreference.ReferenceLoadError as err:
        raise PluginLoadError(str(err)) from None
    if not callable(factory):
        raise PluginLoadError(f"{name} is a {type(factory).__name__}, not a plugin factory (args, handle)")
    return factory  # type: ignore[no-any-return]  # any callable: what it builds is checked


def entry_point(name: str) -> PluginFactory | None:
    """The factory an installed distribution registers as ``name``, None when none does."""
    for found in importlib.metadata.entry_points(group=ENTRY_POINT_GROUP, name=name):
        try:
            factory = found.load()
        except Exception as err:
            raise PluginLoadError(f"entry point {found.value}: {pyreference.describe(err)}") from err
        if not callable(factory):
            raise PluginLoadError(f"entry point {found.value} is not a plugin factory")
        return factory  # type: ignore[no-any-return]
    return None
