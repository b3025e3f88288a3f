"""ServiceAccount: a new pod runs as a service account that exists (``default`` unless it
names one; 403 ``error looking up service account <ns>/<name>: serviceaccount "<name>" not
found`` otherwise), inherits its image pull secrets, and unless automounting is off (pod
first, then service account) gets the projected token volume ``kube-api-access-<random>``
mounted read-only at ``/var/run/secrets/kubernetes.io/serviceaccount`` in every container.
Mirror pods are left alone.

The ``default`` service account is made by the service-account controller shortly after its
namespace: when it is missing the lookup is retried ``DEFAULT_LOOKUP_ATTEMPTS`` times, 100 to
200 ms apart, as upstream does, so a pod created right after its namespace (or right after
``up`` starts) is not refused."""

from __future__ import annotations

import asyncio
import random

from apiserver.admission.attributes import Attributes, Operation, forbidden
from apiserver.admission.interfaces import Plugin
from apiserver.lookup import Lookup
from minikube_py.api.unstructured import Object

NAME = "ServiceAccount"
DEFAULT_SERVICE_ACCOUNT = "default"
VOLUME_PREFIX = "kube-api-access-"
MOUNT_PATH = "/var/run/secrets/kubernetes.io/serviceaccount"
MIRROR_POD_ANNOTATION = "kubernetes.io/config.mirror"
TOKEN_EXPIRATION_SECONDS = 3607
ROOT_CA_CONFIGMAP = "kube-root-ca.crt"
_ALPHABET = "bcdfghjklmnpqrstvwxz2456789"  # upstream's name generator
DEFAULT_LOOKUP_ATTEMPTS = 10


def token_volume(name: str) -> Object:
    return {
        "name": name,
        "projected": {
            "sources": [
                {"serviceAccountToken": {"expirationSeconds": TOKEN_EXPIRATION_SECONDS, "path": "token"}},
                {"configMap": {"name": ROOT_CA_CONFIGMAP, "items": [{"key": "ca.crt", "path": "ca.crt"}]}},
                {
                    "downwardAPI": {
                        "items": [
                            {
                                "path": "namespace",
                                "fieldRef": {"apiVersion": "v1", "fieldPath": "metadata.namespace"},
                            }
                        ]
                    }
                },
            ],
            "defaultMode": 420,
        },
    }


def automount(service_account: Object, pod: Object) -> bool:
    from_pod = (pod.get("spec") or {}).get("automountServiceAccountToken")
    if from_pod is not None:
        return bool(from_pod)
    from_sa = service_account.get("automountServiceAccountToken")
    return True if from_sa is None else bool(from_sa)


def mount_token(pod: Object) -> None:
    """Mount the token volume in every container that has nothing at the mount path yet."""
    spec = pod.setdefault("spec", {})
    volumes = spec.get("volumes") or []
    existing = next((v["name"] for v in volumes if v.get("name", "").startswith(VOLUME_PREFIX)), None)
    name = existing or VOLUME_PREFIX + "".join(random.choices(_ALPHABET, k=5))
    needed = False
    for key in ("initContainers", "containers"):
        for container in spec.get(key) or []:
            mounts = container.get("volumeMounts") or []
            if any(m.get("mountPath") == MOUNT_PATH for m in mounts):
                continue
            container["volumeMounts"] = [*mounts, {"name": name, "readOnly": True, "mountPath": MOUNT_PATH}]
            needed = True
    if needed and existing is None:
        spec["volumes"] = [*volumes, token_volume(name)]


class ServiceAccount(Plugin):
    name = NAME
    operations = frozenset({Operation.CREATE})

    def __init__(self, lookup: Lookup) -> None:
        super().__init__()
        self.lookup = lookup

    async def get_service_account(self, namespace: str, name: str) -> Object | None:
        """The service account from the watch cache, else as stored (created a moment ago);
        ``default`` gets a few more looks (see module doc), as upstream's lister-then-live lookup."""
        cached = await self.lookup.lister("", "v1", "serviceaccounts").get(namespace, name)
        if cached is not None:
            return cached
        attempts = DEFAULT_LOOKUP_ATTEMPTS if name == DEFAULT_SERVICE_ACCOUNT else 1
        interval = random.uniform(0.1, 0.2)
        for attempt in range(attempts):
            if attempt:
                await asyncio.sleep(interval)
            account = await self.lookup.lister("", "v1", "serviceaccounts").get(namespace, name, fresh=True)
            if account is not None:
                return account
        return None

    async def admit(self, attrs: Attributes) -> None:
        pod = attrs.object
        if not attrs.is_main("", "pods") or pod is None:
            return
        if MIRROR_POD_ANNOTATION in (pod["metadata"].get("annotations") or {}):
            return
        spec = pod.setdefault("spec", {})
        name = spec.get("serviceAccountName") or DEFAULT_SERVICE_ACCOUNT
        spec["serviceAccountName"] = name
        account = await self.get_service_account(attrs.namespace, name)
        if account is None:
            why = f'serviceaccount "{name}" not found'
            raise forbidden(attrs, f"error looking up service account {attrs.namespace}/{name}: {why}")
        if automount(account, pod):
            mount_token(pod)
        if not spec.get("imagePullSecrets") and account.get("imagePullSecrets"):
            spec["imagePullSecrets"] = [{"name": s.get("name", "")} for s in account["imagePullSecrets"]]
