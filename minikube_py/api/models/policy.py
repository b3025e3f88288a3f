"""policy/v1 Eviction: a request to evict a pod, honouring disruption budgets."""

from __future__ import annotations

from minikube_py.api.models.meta import DeleteOptions, ObjectMeta, TypeMeta
from minikube_py.api.scheme import Kind

OPENAPI_PACKAGE = "io.k8s.api.policy.v1"


class Eviction(TypeMeta):
    """Evicts a pod from its node, subject to policies and constraints; created by POSTing to
    ``.../pods/<pod name>/eviction``."""

    kinds = (Kind("policy/v1"),)

    metadata: ObjectMeta | None = None
    """Names the pod to evict."""
    delete_options: DeleteOptions | None = None
    """Options for the deletion of the pod."""
