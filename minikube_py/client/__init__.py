"""The API client (ARCHITECTURE §3): ``Client``/``ResourceClient`` interfaces and
``RESTClient``, their HTTP(S) implementation (``RESTClient.from_kubeconfig(path)``)."""

from minikube_py.client.config import ClientConfig, KubeconfigError, load_kubeconfig
from minikube_py.client.interfaces import (
    ADDED,
    APPLY_PATCH,
    BOOKMARK,
    DELETED,
    ERROR,
    JSON_PATCH,
    MERGE_PATCH,
    MODIFIED,
    STRATEGIC_MERGE_PATCH,
    Client,
    ConnectionFailure,
    Gone,
    ListerWatcher,
    Object,
    ResourceClient,
    WatchEvent,
)
from minikube_py.client.ratelimit import TokenBucket
from minikube_py.client.rest import RESTClient
from minikube_py.client.retry import RetryPolicy

__all__ = [
    "ADDED",
    "APPLY_PATCH",
    "BOOKMARK",
    "DELETED",
    "ERROR",
    "JSON_PATCH",
    "MERGE_PATCH",
    "MODIFIED",
    "STRATEGIC_MERGE_PATCH",
    "Client",
    "ClientConfig",
    "ConnectionFailure",
    "Gone",
    "KubeconfigError",
    "ListerWatcher",
    "Object",
    "RESTClient",
    "ResourceClient",
    "RetryPolicy",
    "TokenBucket",
    "WatchEvent",
    "load_kubeconfig",
]
