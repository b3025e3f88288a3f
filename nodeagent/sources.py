"""Reading the objects volumes and environment variables come from: ConfigMaps and Secrets
with the kubelet's not-found message (``configmap "cfg" not found``), and Secret data decoded."""

from __future__ import annotations

import base64
from collections.abc import Mapping
from typing import Any

from minikube_py.api.errors import ApiError
from minikube_py.api.scheme import ResourceType
from minikube_py.api.unstructured import Object
from minikube_py.client.interfaces import Client
from minikube_py.client.resourcetypes import CONFIGMAPS, SECRETS


class SourceNotFoundError(LookupError):
    """A ConfigMap or Secret that does not exist; ``str()`` is the kubelet's message."""


async def get_config_map(client: Client, namespace: str, name: str) -> Object:
    """The ConfigMap; ``SourceNotFoundError('configmap "x" not found')`` if there is none."""
    return await _get(client, CONFIGMAPS, "configmap", namespace, name)


async def get_secret(client: Client, namespace: str, name: str) -> Object:
    """The Secret; ``SourceNotFoundError('secret "x" not found')`` if there is none."""
    return await _get(client, SECRETS, "secret", namespace, name)


async def _get(client: Client, rt: ResourceType, kind: str, namespace: str, name: str) -> Object:
    try:
        return await client.resource(rt, namespace).get(name)
    except ApiError as err:
        if err.code == 404:
            raise SourceNotFoundError(f'{kind} "{name}" not found') from err
        raise


def secret_data(secret: Mapping[str, Any]) -> dict[str, bytes]:
    """A Secret's ``data``, base64-decoded."""
    return {key: base64.b64decode(value or "") for key, value in (secret.get("data") or {}).items()}


def bytes_to_env(value: bytes) -> str:
    """Bytes as an environment value (undecodable bytes survive ``os.fsencode``)."""
    return value.decode("utf-8", errors="surrogateescape")
