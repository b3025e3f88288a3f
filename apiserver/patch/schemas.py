"""Strategic merge patch schemas of the built-in kinds, derived from the models' field tags.

Upstream reads ``patchStrategy``/``patchMergeKey`` from its Go struct tags; the models carry the
same facts as ``tag(..., merge_key=..., patch=...)`` (``minikube_py/api/models/tags.py``), and
``from_models.schema_of`` turns a model into its schema. A field without a patch strategy is
plain: objects merge key by key and lists are replaced whole. Notable untagged lists, hence
replaced: ``tolerations``, ``envFrom``, ``args``, ``command``, Node ``taints``, Endpoints
``subsets``, StatefulSet ``volumeClaimTemplates``, ``managedFields``. ``labels`` and
``annotations`` are plain maps.

The named schemas below are the ones tests and callers refer to; they are the very objects
``schema_for`` returns (one object per model, so PodSpec's is shared by every kind embedding it).
"""

from __future__ import annotations

from collections.abc import Mapping

from apiserver.patch.from_models import schema_of
from apiserver.patch.schema import PLAIN, PatchSchema
from minikube_py.api.models import (
    MODELS,
    K8sModel,
    apps_sets,
    batch,
    core_container,
    core_node,
    core_objects,
    core_pod,
    core_replication,
    core_service,
    meta,
)
from minikube_py.api.models import apps_deployment as apps

# Kinds with a patch schema but not served yet (their models are not in MODELS).
_UNSERVED: Mapping[tuple[str, str], type[K8sModel]] = {
    ("", "ReplicationController"): core_replication.ReplicationController,
}


def _by_group_kind() -> dict[tuple[str, str], type[K8sModel]]:
    found = dict(_UNSERVED)
    for (api_version, kind), model in MODELS.items():
        found.setdefault((api_version.rpartition("/")[0], kind), model)
    return found


_BY_GROUP_KIND = _by_group_kind()

OBJECT_META = schema_of(meta.ObjectMeta)
CONTAINER = schema_of(core_container.Container)
POD_SPEC = schema_of(core_pod.PodSpec)
POD_TEMPLATE_SPEC = schema_of(core_pod.PodTemplateSpec)
POD = schema_of(core_pod.Pod)
POD_TEMPLATE = schema_of(core_pod.PodTemplate)
REPLICATION_CONTROLLER = schema_of(core_replication.ReplicationController)
DEPLOYMENT = schema_of(apps.Deployment)
REPLICA_SET = schema_of(apps.ReplicaSet)
DAEMON_SET = schema_of(apps_sets.DaemonSet)
STATEFUL_SET = schema_of(apps_sets.StatefulSet)
JOB = schema_of(batch.Job)
CRON_JOB = schema_of(batch.CronJob)
SERVICE = schema_of(core_service.Service)
NODE = schema_of(core_node.Node)
SERVICE_ACCOUNT = schema_of(core_objects.ServiceAccount)
CONFIG_MAP = schema_of(core_objects.ConfigMap)


def schema_for(group: str, kind: str) -> PatchSchema:
    """The schema of ``group``/``kind`` (core group is ``""``), or plain ``Fields()`` if unknown.

    Plain means no list strategies at all: maps merge recursively and lists are replaced, so a
    strategic patch behaves like a JSON merge patch plus directives. (Upstream refuses strategic
    patches for custom resources with 415; that choice belongs to the caller.)
    """
    model = _BY_GROUP_KIND.get((group, kind))
    return PLAIN if model is None else schema_of(model)
