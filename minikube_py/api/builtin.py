"""The built-in resource types, with upstream's names, scopes, short names, categories,
verbs and subresources (as ``kubectl api-resources`` shows them on a real cluster).

Nothing here lists them: each kind declares itself on its model (``Served`` in ``kinds``, see
``minikube_py.api.models.registry``), and the scheme is built from those declarations.
"""

from __future__ import annotations

from minikube_py.api.scheme import ALL_CATEGORY, NO_COLLECTION, SCALE, STATUS, Scheme

__all__ = ["ALL_CATEGORY", "NO_COLLECTION", "SCALE", "STATUS", "builtin_scheme"]


def builtin_scheme() -> Scheme:
    """A new scheme of every built-in served kind: the core group first, then groups by name,
    versions by priority and resources by name."""
    # Imported here, not at the top: importing this module must not build the pydantic models
    # (clients import it for resource names); the first scheme built does, once.
    from minikube_py.api.models.registry import builtin_kinds

    return Scheme(builtin_kinds().served)
