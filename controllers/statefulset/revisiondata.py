"""The data of a StatefulSet's ControllerRevisions (upstream's ``getPatch``,
``ApplyRevision`` and ``nextRevision``).

A revision's ``data`` is the patch ``{"spec": {"template": {..., "$patch": "replace"}}}``,
exactly what ``kubectl rollout undo sts`` sends back as a strategic merge patch.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any

from minikube_py.api.unstructured import Object

REPLACE = "$patch"


@dataclass
class Revisions:
    """The revisions one sync works toward: pods below the partition stay at ``current``."""

    current: Object
    update: Object
    collision_count: int


def patch_of(sts: Object) -> dict[str, Any]:
    """The revision data of ``sts``: its pod template, marked to replace the whole template."""
    template = copy.deepcopy(sts["spec"].get("template") or {})
    template[REPLACE] = "replace"
    return {"spec": {"template": template}}


def apply_revision(sts: Object, revision: Object) -> Object:
    """A copy of ``sts`` whose template is the one ``revision`` recorded."""
    clone = copy.deepcopy(sts)
    template = copy.deepcopy((((revision.get("data") or {}).get("spec")) or {}).get("template") or {})
    template.pop(REPLACE, None)
    clone["spec"]["template"] = template
    return clone
