"""The ReplicaSet controller: keeps ``spec.replicas`` pods of a ReplicaSet's template running."""

from controllers.replicaset.controller import ReplicaSetController

__all__ = ["ReplicaSetController"]
