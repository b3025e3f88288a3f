"""Pydantic models of the built-in kinds, with upstream's JSON names.

Modules follow API groups (``meta``, ``core_*``, ``apps_*``, ``batch``, ``rbac``...); each sets
``OPENAPI_PACKAGE``, the prefix of its types' OpenAPI names (``io.k8s.api.apps.v1``). ``MODELS``
finds a kind's model; ``fieldvalidation`` checks objects against the models and
``openapi`` turns them into OpenAPI v3 schemas.
"""

from minikube_py.api.models.base import K8sModel
from minikube_py.api.models.registry import MODELS, group_version_kinds, model_for

__all__ = ["MODELS", "K8sModel", "group_version_kinds", "model_for"]
