"""The informer handlers that keep ``ClusterRecords`` up to date: every Service and every
EndpointSlice (``discovery.k8s.io/v1``) of the cluster; a change of ``kube-system/kube-dns``
also calls ``on_kube_dns`` (its reconciler's wake-up)."""

from __future__ import annotations

from collections.abc import Callable

from minikube_py.cache import (
    DeletedFinalStateUnknown,
    EventHandlerFuncs,
    deletion_handling_meta_namespace_key,
    meta_namespace_key,
    split_meta_namespace_key,
)
from minikube_py.client.interfaces import Object
from minikube_py.client.resourcetypes import resource_type
from nodeagent.dns.kubedns import NAME, NAMESPACE
from nodeagent.dns.records import ClusterRecords

ENDPOINTSLICES = resource_type("discovery.k8s.io/v1", "endpointslices")
KUBE_DNS_KEY = f"{NAMESPACE}/{NAME}"


def service_handlers(
    records: ClusterRecords, on_kube_dns: Callable[[], None] = lambda: None
) -> EventHandlerFuncs:
    def upsert(obj: Object) -> None:
        records.set_service(obj)
        if meta_namespace_key(obj) == KUBE_DNS_KEY:
            on_kube_dns()

    def delete(obj: Object | DeletedFinalStateUnknown) -> None:
        key = deletion_handling_meta_namespace_key(obj)
        records.delete_service(*split_meta_namespace_key(key))
        if key == KUBE_DNS_KEY:
            on_kube_dns()

    return EventHandlerFuncs(add=upsert, update=lambda _old, new: upsert(new), delete=delete)


def slice_handlers(records: ClusterRecords) -> EventHandlerFuncs:
    return EventHandlerFuncs(
        add=lambda obj: records.set_slice(meta_namespace_key(obj), obj),
        update=lambda _old, new: records.set_slice(meta_namespace_key(new), new),
        delete=lambda obj: records.delete_slice(deletion_handling_meta_namespace_key(obj)),
    )
