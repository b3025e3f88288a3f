"""Out-of-tree controllers: a ``--controllers`` entry that is not a built-in name is loaded
from Python code outside the repository (upstream builds such controllers into its own
binary; here a file and a flag value are enough).

Three spellings, all resolving to a ``ControllerSpec`` before anything connects:

- ``package.module:attribute`` imports an installed or importable module;
- ``path/to/file.py:attribute`` runs one file (relative paths from the working directory);
- ``name`` looks up the entry point ``name`` in the group ``minikube_py.controllers``
  (declared by an installed distribution), whose object is ``module:attribute``.

``attribute`` (dots walk into the module) is a ``ControllerSpec``, or a function taking no
arguments that returns one (as upstream's ``newXControllerDescriptor``). Anything else is a
``ControllerLoadError`` whose one-line message names the entry and what was wrong.
"""

from __future__ import annotations

import inspect
from importlib.metadata import EntryPoint, entry_points

from controllers.manager.spec import ControllerLoadError, ControllerSpec
from minikube_py import pyreference
from minikube_py.api.validation import is_dns1123_subdomain
from minikube_py.pyreference import describe as _describe
from minikube_py.pyreference import is_reference

__all__ = [
    "ENTRY_POINT_GROUP",
    "as_spec",
    "entry_point_names",
    "failed",
    "is_reference",
    "load_entry_point",
    "load_reference",
]

ENTRY_POINT_GROUP = "minikube_py.controllers"


def load_reference(word: str) -> ControllerSpec:
    """The spec ``word`` (``module:attr`` or ``file.py:attr``, a file relative to the working
    directory) names."""
    try:
        found = pyreference.load(word, namespace="minikube_py_controller")
    except pyreference.ReferenceLoadError as err:
        raise failed(word, str(err)) from None
    return as_spec(word, word.rpartition(":")[2], found)


def entry_point_names() -> list[str]:
    return sorted({point.name for point in entry_points(group=ENTRY_POINT_GROUP)})


def load_entry_point(name: str) -> ControllerSpec | None:
    """The spec of the entry point ``name``, or None when no distribution declares one."""
    points: list[EntryPoint] = [p for p in entry_points(group=ENTRY_POINT_GROUP) if p.name == name]
    if not points:
        return None
    word = f"{name} (entry point {points[0].value})"
    try:
        found = points[0].load()
    except Exception as err:  # whatever the plugin's import raises is a load failure
        raise failed(word, _describe(err)) from err
    spec = as_spec(word, points[0].attr, found)
    if spec.name != name:
        raise failed(word, f'it describes "{spec.name}", not "{name}"')
    return spec


def as_spec(word: str, what: str, found: object) -> ControllerSpec:
    """``found`` (the object ``what`` names: a spec, or a function returning one) checked to
    be a usable spec."""
    if not isinstance(found, ControllerSpec) and inspect.isfunction(found):
        try:
            found = found()
        except Exception as err:
            raise failed(word, f"{what}() raised {_describe(err)}") from err
    if not isinstance(found, ControllerSpec):
        kind = f"class {what}" if inspect.isclass(found) else type(found).__name__
        wanted = "a ControllerSpec, or a function returning one"
        raise failed(word, f"{what} is not a controller ({wanted}; got {kind})")
    _check(word, found)
    return found


def _check(word: str, spec: ControllerSpec) -> None:
    account = spec.service_account
    problems = [f"service account {account!r}: {e}" for e in is_dns1123_subdomain(account)]
    if not spec.name or is_reference(spec.name) or spec.name.startswith("-") or spec.name == "*":
        problems.append(f"name {spec.name!r} cannot be a --controllers word")
    if not isinstance(spec.workers, int) or spec.workers < 1:
        problems.append(f"workers must be at least 1, not {spec.workers!r}")
    if not callable(spec.new):
        problems.append("new is not callable")
    else:
        try:
            inspect.signature(spec.new).bind(None)
        except TypeError:
            problems.append("new must take one argument, the ControllerContext")
        except ValueError:
            pass  # no signature to inspect (a builtin): it is called as it is
    if problems:
        raise failed(word, "; ".join(problems))


def failed(word: str, why: str) -> ControllerLoadError:
    """The error for the ``--controllers`` entry ``word``."""
    return ControllerLoadError(f'cannot load controller "{word}": {why}')
