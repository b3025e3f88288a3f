"""The schemas the patch tests refer to by name: the very objects ``schema_for`` returns (one
per model, so PodSpec's is shared by every kind embedding it)."""

from __future__ import annotations

from apiserver.patch.from_models import schema_of
from minikube_py.api.models import apps_deployment as apps
from minikube_py.api.models import (
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
