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

import hashlib
import importlib
import importlib.metadata
import importlib.util
import sys
from pathlib import Path
from types import ModuleType

from scheduler.framework.interface import PluginFactory

ENTRY_POINT_GROUP = "minikube_py.scheduler.plugins"


class PluginLoadError(Exception):
    """A plugin reference cannot be resolved (one line saying why)."""


def is_reference(name: str) -> bool:
    """Whether ``name`` is an import path or a file (``module:attr``), not a registered name."""
    return ":" in name


def resolve(name: str, base_dir: Path | None = None) -> PluginFactory:
    """The factory ``name`` (``module:attr`` or ``file.py:attr``) refers to."""
    target, _, attribute = name.rpartition(":")
    if not target or not attribute:
        raise PluginLoadError(f'"{name}" is not module:Factory nor path/to/plugin.py:Factory')
    module = _load_file(target, base_dir) if _is_file(target) else _import(target)
    try:
        factory: object = module
        for part in attribute.split("."):
            factory = getattr(factory, part)
    except AttributeError:
        raise PluginLoadError(f'{target} has no attribute "{attribute}"') from None
    if not callable(factory):
        raise PluginLoadError(
            f"{target}:{attribute} is a {type(factory).__name__}, not a plugin factory (args, handle)"
        )
    return factory  # type: ignore[no-any-return]  # any callable: what it builds is checked


def entry_point(name: str) -> PluginFactory | None:
    """The factory an installed distribution registers as ``name``, None when none does."""
    for found in importlib.metadata.entry_points(group=ENTRY_POINT_GROUP, name=name):
        try:
            factory = found.load()
        except Exception as err:
            raise PluginLoadError(f"entry point {found.value}: {type(err).__name__}: {err}") from err
        if not callable(factory):
            raise PluginLoadError(f"entry point {found.value} is not a plugin factory")
        return factory  # type: ignore[no-any-return]
    return None


def _is_file(target: str) -> bool:
    return target.endswith(".py") or "/" in target or "\\" in target


def _import(module: str) -> ModuleType:
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as err:
        raise PluginLoadError(f"cannot import {module}: {err}") from err
    except Exception as err:  # the module itself is broken: say how
        raise PluginLoadError(f"importing {module}: {type(err).__name__}: {err}") from err


def _load_file(target: str, base_dir: Path | None) -> ModuleType:
    """Execute the file once per process (the configuration is read more than once) as a
    module of its own, registered in ``sys.modules`` so dataclasses and pickling work in it."""
    path = Path(target).expanduser()
    if not path.is_absolute() and base_dir is not None:
        path = base_dir / path
    path = path.resolve()
    if not path.is_file():
        raise PluginLoadError(f"{target}: no such file ({path})")
    digest = hashlib.sha256(str(path).encode()).hexdigest()[:12]
    module_name = f"_minikube_py_scheduler_plugin_{path.stem}_{digest}"
    loaded = sys.modules.get(module_name)
    if loaded is not None:
        return loaded
    spec = importlib.util.spec_from_file_location(module_name, path)
    if spec is None or spec.loader is None:
        raise PluginLoadError(f"{target}: not a Python file")
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    try:
        spec.loader.exec_module(module)
    except Exception as err:
        del sys.modules[module_name]
        raise PluginLoadError(f"loading {target}: {type(err).__name__}: {err}") from err
    return module
