"""ControllerRevision history shared by the DaemonSet and StatefulSet controllers (upstream's
``pkg/controller/history``): ``revisions`` holds the pure functions (naming, hashing, sorting,
equality), ``history`` the ``History`` that lists, creates, updates, adopts, releases and
deletes a parent's revisions through the API."""

from controllers.history.history import History
from controllers.history.revisions import (
    CONTROLLER_REVISION_HASH_LABEL,
    controller_revision_name,
    equal_revision,
    find_equal_revisions,
    hash_controller_revision,
    new_controller_revision,
    next_revision,
    sort_controller_revisions,
)

__all__ = [
    "CONTROLLER_REVISION_HASH_LABEL",
    "History",
    "controller_revision_name",
    "equal_revision",
    "find_equal_revisions",
    "hash_controller_revision",
    "new_controller_revision",
    "next_revision",
    "sort_controller_revisions",
]
