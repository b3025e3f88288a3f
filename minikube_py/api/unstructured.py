"""Objects as plain JSON dicts (upstream's ``unstructured.Unstructured``): the one declaration
of ``Object``.

Every layer handles API objects in their wire shape, as decoded from JSON: the apiserver's
storage and registry, admission, the client and caches, controllers, the scheduler and the node
agent. ``minikube_py.client.interfaces`` and ``scheduler.framework.types`` re-export it for
their callers.
"""

from __future__ import annotations

from typing import Any

Object = dict[str, Any]
"""A JSON object: a whole Kubernetes object or any map inside one (keys as the API spells them)."""
