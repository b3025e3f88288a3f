"""Ready-made strategic merge patch schemas for the built-in kinds, from upstream's struct tags.

Transcribed from the ``patchStrategy``/``patchMergeKey`` tags of k8s.io/api (core/v1, apps/v1,
batch/v1) and k8s.io/apimachinery (meta/v1) as of Kubernetes 1.33; fields gated as alpha after
that are left out. A field absent here has no tag upstream: objects merge key by key and lists
are replaced whole. Notable untagged lists, hence replaced: ``tolerations``, ``envFrom``,
``args``, ``command``, Node ``taints``, Endpoints ``subsets``, StatefulSet
``volumeClaimTemplates``, ``managedFields``. ``labels`` and ``annotations`` are plain maps.
"""

from __future__ import annotations

from collections.abc import Mapping

from apiserver.patch.schema import PLAIN, Fields, List, PatchSchema, Schema

OBJECT_META = Fields({"ownerReferences": List(merge_key="uid"), "finalizers": List()})

# Container and EphemeralContainerCommon carry the same tags.
CONTAINER = Fields(
    {
        "ports": List(merge_key="containerPort"),
        "env": List(merge_key="name"),
        "volumeMounts": List(merge_key="mountPath"),
        "volumeDevices": List(merge_key="devicePath"),
    }
)

POD_SPEC = Fields(
    {
        "volumes": List(merge_key="name", retain_keys=True),
        "initContainers": List(merge_key="name", item=CONTAINER),
        "containers": List(merge_key="name", item=CONTAINER),
        "ephemeralContainers": List(merge_key="name", item=CONTAINER),
        "imagePullSecrets": List(merge_key="name"),
        "hostAliases": List(merge_key="ip"),
        "topologySpreadConstraints": List(merge_key="topologyKey"),
        "schedulingGates": List(merge_key="name"),
        "resourceClaims": List(merge_key="name", retain_keys=True),
    }
)

POD_STATUS = Fields(
    {
        "conditions": List(merge_key="type"),
        "podIPs": List(merge_key="ip"),
        "hostIPs": List(merge_key="ip"),
        "resourceClaimStatuses": List(merge_key="name", retain_keys=True),
    }
)

POD_TEMPLATE_SPEC = Fields({"metadata": OBJECT_META, "spec": POD_SPEC})

# The status of most workloads and of Namespace, Service, PVC: only ``conditions`` is tagged.
CONDITIONS_STATUS = Fields({"conditions": List(merge_key="type")})

JOB_SPEC = Fields({"template": POD_TEMPLATE_SPEC})


def object_schema(spec: Schema = PLAIN, status: Schema = PLAIN, **extra: Schema) -> PatchSchema:
    """The schema of a kind: ObjectMeta, plus ``spec``, ``status`` and any top-level fields."""
    return Fields({"metadata": OBJECT_META, "spec": spec, "status": status, **extra})


POD = object_schema(POD_SPEC, POD_STATUS)
POD_TEMPLATE = object_schema(template=POD_TEMPLATE_SPEC)
REPLICATION_CONTROLLER = object_schema(Fields({"template": POD_TEMPLATE_SPEC}), CONDITIONS_STATUS)
DEPLOYMENT = object_schema(
    Fields({"template": POD_TEMPLATE_SPEC, "strategy": Fields(retain_keys=True)}), CONDITIONS_STATUS
)
REPLICA_SET = object_schema(Fields({"template": POD_TEMPLATE_SPEC}), CONDITIONS_STATUS)
DAEMON_SET = object_schema(Fields({"template": POD_TEMPLATE_SPEC}), CONDITIONS_STATUS)
STATEFUL_SET = object_schema(Fields({"template": POD_TEMPLATE_SPEC}), CONDITIONS_STATUS)
JOB = object_schema(JOB_SPEC, CONDITIONS_STATUS)
CRON_JOB = object_schema(Fields({"jobTemplate": Fields({"metadata": OBJECT_META, "spec": JOB_SPEC})}))
SERVICE = object_schema(Fields({"ports": List(merge_key="port")}), CONDITIONS_STATUS)
NODE = object_schema(
    Fields({"podCIDRs": List()}),
    Fields({"conditions": List(merge_key="type"), "addresses": List(merge_key="type")}),
)
NAMESPACE = object_schema(status=CONDITIONS_STATUS)
PERSISTENT_VOLUME_CLAIM = object_schema(status=CONDITIONS_STATUS)
SERVICE_ACCOUNT = object_schema(secrets=List(merge_key="name"))
CONFIG_MAP = object_schema()
SECRET = object_schema()
ENDPOINTS = object_schema()
EVENT = object_schema()
LEASE = object_schema()
WEBHOOK_CONFIGURATION = object_schema(webhooks=List(merge_key="name"))

_BY_KIND: Mapping[tuple[str, str], PatchSchema] = {
    ("", "Pod"): POD,
    ("", "PodTemplate"): POD_TEMPLATE,
    ("", "ReplicationController"): REPLICATION_CONTROLLER,
    ("", "Service"): SERVICE,
    ("", "Node"): NODE,
    ("", "Namespace"): NAMESPACE,
    ("", "PersistentVolumeClaim"): PERSISTENT_VOLUME_CLAIM,
    ("", "ServiceAccount"): SERVICE_ACCOUNT,
    ("", "ConfigMap"): CONFIG_MAP,
    ("", "Secret"): SECRET,
    ("", "Endpoints"): ENDPOINTS,
    ("", "Event"): EVENT,
    ("apps", "Deployment"): DEPLOYMENT,
    ("apps", "ReplicaSet"): REPLICA_SET,
    ("apps", "DaemonSet"): DAEMON_SET,
    ("apps", "StatefulSet"): STATEFUL_SET,
    ("batch", "Job"): JOB,
    ("batch", "CronJob"): CRON_JOB,
    ("coordination.k8s.io", "Lease"): LEASE,
    ("admissionregistration.k8s.io", "MutatingWebhookConfiguration"): WEBHOOK_CONFIGURATION,
    ("admissionregistration.k8s.io", "ValidatingWebhookConfiguration"): WEBHOOK_CONFIGURATION,
}


def schema_for(group: str, kind: str) -> PatchSchema:
    """The schema of ``group``/``kind`` (core group is ``""``), or plain ``Fields()`` if unknown.

    Plain means no list strategies at all: maps merge recursively and lists are replaced, so a
    strategic patch behaves like a JSON merge patch plus directives. (Upstream refuses strategic
    patches for custom resources with 415; that choice belongs to the caller.)
    """
    return _BY_KIND.get((group, kind), PLAIN)
