"""The ReplicationController controller (upstream's ``pkg/controller/replication``): the
ReplicaSet controller run on ReplicationControllers."""

from controllers.replication.manager import REPLICATION_CONTROLLER, new_replication_manager

__all__ = ["REPLICATION_CONTROLLER", "new_replication_manager"]
