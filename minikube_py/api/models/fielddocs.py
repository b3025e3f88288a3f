"""Field docstrings, read from the models' source when the OpenAPI documents are built.

A model documents a field with a string literal under it (PEP 257's attribute docstring);
they become the fields' ``description`` in OpenAPI (what ``kubectl explain`` prints). Pydantic
can collect them as each class is created (``use_attribute_docstrings``), but that reads and
parses the source of every model at import, about a third of importing the models; the API
needs them only for its OpenAPI documents, built on first request. So they are read here, once
per module, on first use.
"""

from __future__ import annotations

import ast
import functools
import inspect
import itertools
import sys
import typing
from collections.abc import Mapping


def field_docstrings(model: type) -> Mapping[str, str]:
    """The attribute docstrings of ``model``'s fields (its annotated attributes, those of its
    bases included; a subclass's own win), by attribute name, cleaned as ``inspect.cleandoc``
    does. Only the classes that declare some of those fields are read."""
    fields = set(getattr(model, "model_fields", None) or typing.get_type_hints(model))
    found: dict[str, str] = {}
    for cls in reversed(model.__mro__):
        declared = fields & set(vars(cls).get("__annotations__", {}))
        if declared:
            docs = _class_docstrings(cls.__module__, cls.__qualname__)
            found.update((name, doc) for name, doc in docs.items() if name in declared)
    return found


def _class_docstrings(module: str, qualname: str) -> Mapping[str, str]:
    return _module_docstrings(module).get(qualname, {})


@functools.cache
def _module_docstrings(module: str) -> Mapping[str, Mapping[str, str]]:
    """Every class of ``module`` (by qualified name) to its attribute docstrings."""
    loaded = sys.modules.get(module)
    try:
        source = inspect.getsource(loaded) if loaded is not None else ""
    except (OSError, TypeError):  # built-in or source-less modules document nothing
        return {}
    classes: dict[str, dict[str, str]] = {}
    _collect(ast.parse(source).body, "", classes)
    return classes


def _collect(body: list[ast.stmt], prefix: str, classes: dict[str, dict[str, str]]) -> None:
    for node in body:
        if isinstance(node, ast.ClassDef):
            qualname = prefix + node.name
            classes[qualname] = _attribute_docstrings(node.body)
            _collect(node.body, qualname + ".", classes)


def _attribute_docstrings(body: list[ast.stmt]) -> dict[str, str]:
    docs: dict[str, str] = {}
    for statement, following in itertools.pairwise(body):
        if (
            isinstance(statement, ast.AnnAssign)
            and isinstance(statement.target, ast.Name)
            and isinstance(following, ast.Expr)
            and isinstance(following.value, ast.Constant)
            and isinstance(following.value.value, str)
        ):
            docs[statement.target.id] = inspect.cleandoc(following.value.value)
    return docs
