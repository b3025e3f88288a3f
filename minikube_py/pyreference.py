"""Python objects named by reference, for what a user plugs in from outside the repository
(out-of-tree scheduler plugins, out-of-tree controllers): ``package.module:attribute`` (an
importable module) or ``path/to/file.py:attribute`` (one file, run once per process).

Upstream compiles such extensions into its own binaries; here the components resolve them with
``load`` and say, in their own words, what the reference was for. Every failure is a
``ReferenceLoadError`` whose message is one line saying what was wrong.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import sys
from pathlib import Path
from types import ModuleType

SHAPE = "MODULE:ATTRIBUTE or FILE.py:ATTRIBUTE"


class ReferenceLoadError(Exception):
    """A reference cannot be resolved (the message is one line)."""


def is_reference(word: str) -> bool:
    """Whether ``word`` is an import path or a file (registered names have no colon)."""
    return ":" in word


def load(reference: str, *, namespace: str, base_dir: Path | None = None) -> object:
    """The object ``reference`` names. A file is resolved against ``base_dir`` (default: the
    working directory) and runs once per process as the module ``_<namespace>_<stem>_<hash>``,
    registered in ``sys.modules`` so that dataclasses and pickling work in it."""
    target, _, attribute = reference.rpartition(":")
    if not target or not all(part.isidentifier() for part in attribute.split(".")):
        raise ReferenceLoadError(f"expected {SHAPE}")
    module = _load_file(target, namespace, base_dir) if _is_file(target) else _import(target)
    found: object = module
    for part in attribute.split("."):
        if not hasattr(found, part):
            raise ReferenceLoadError(f"{target} has no attribute {part!r}")
        found = getattr(found, part)
    return found


def describe(err: BaseException) -> str:
    """``Type: first line of the message`` (or the type alone)."""
    text = str(err).splitlines()[0] if str(err) else ""
    return f"{type(err).__name__}: {text}" if text else type(err).__name__


def _is_file(target: str) -> bool:
    return target.endswith(".py") or "/" in target or "\\" in target


def _import(target: str) -> ModuleType:
    try:
        return importlib.import_module(target)
    except ModuleNotFoundError as err:
        raise ReferenceLoadError(f"cannot import {target}: no module named {err.name!r}") from err
    except Exception as err:  # the module itself is broken: say how
        raise ReferenceLoadError(f"importing {target} raised {describe(err)}") from err


def _load_file(target: str, namespace: str, base_dir: Path | None) -> ModuleType:
    path = Path(target).expanduser()
    if not path.is_absolute() and base_dir is not None:
        path = base_dir / path
    path = path.resolve()
    if not path.is_file():
        raise ReferenceLoadError(f"no such file {target} ({path})")
    digest = hashlib.sha256(str(path).encode()).hexdigest()[:12]
    name = f"_{namespace}_{path.stem}_{digest}"
    if (loaded := sys.modules.get(name)) is not None:
        return loaded  # a second load of the same file is the same module
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ReferenceLoadError(f"{target} is not a Python file")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except Exception as err:
        del sys.modules[name]
        raise ReferenceLoadError(f"running {target} raised {describe(err)}") from err
    return module
