"""The namespace controller: empties a terminating namespace and finalizes it (upstream's
``pkg/controller/namespace``)."""

from controllers.namespace.controller import NamespaceController
from controllers.namespace.deletion import NamespacedResourcesDeleter, ResourcesRemainingError

__all__ = ["NamespaceController", "NamespacedResourcesDeleter", "ResourcesRemainingError"]
