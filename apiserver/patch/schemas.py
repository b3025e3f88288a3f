"""Strategic merge patch schemas of the built-in kinds, derived from the models' field tags.

Upstream reads ``patchStrategy``/``patchMergeKey`` from its Go struct tags; the models carry the
same facts as ``tag(..., merge_key=..., patch=...)`` (``minikube_py/api/models/tags.py``), and
``from_models.schema_of`` turns a model into its schema. A field without a patch strategy is
plain: objects merge key by key and lists are replaced whole. Notable untagged lists, hence
replaced: ``tolerations``, ``envFrom``, ``args``, ``command``, Node ``taints``, Endpoints
``subsets``, StatefulSet ``volumeClaimTemplates``, ``managedFields``. ``labels`` and
``annotations`` are plain maps.

``schema_for`` returns one object per model (``schema_of`` is cached), so PodSpec's schema is
shared by every kind embedding it.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache

from apiserver.patch.from_models import schema_of
from apiserver.patch.schema import PLAIN, PatchSchema
from minikube_py.api.models import (
    MODELS,
    K8sModel,
    core_replication,
)

# Kinds with a patch schema but not served yet (their models are not in MODELS).
_UNSERVED: Mapping[tuple[str, str], type[K8sModel]] = {
    ("", "ReplicationController"): core_replication.ReplicationController,
}


@cache
def _by_group_kind() -> dict[tuple[str, str], type[K8sModel]]:
    """Each kind's model by (group, kind): built on the first strategic patch (or OpenAPI
    document), not when the apiserver imports this module."""
    found = dict(_UNSERVED)
    for (api_version, kind), model in MODELS.items():
        found.setdefault((api_version.rpartition("/")[0], kind), model)
    return found


def schema_for(group: str, kind: str) -> PatchSchema:
    """The schema of ``group``/``kind`` (core group is ``""``), or plain ``Fields()`` if unknown.

    Plain means no list strategies at all: maps merge recursively and lists are replaced, so a
    strategic patch behaves like a JSON merge patch plus directives. (Upstream refuses strategic
    patches for custom resources with 415; that choice belongs to the caller.)
    """
    model = _by_group_kind().get((group, kind))
    return PLAIN if model is None else schema_of(model)
