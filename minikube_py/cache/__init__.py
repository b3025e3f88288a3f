"""client-go's tools/cache in miniature (ARCHITECTURE §3): Reflector, thread-safe Indexer,
SharedInformer and SharedInformerFactory. Objects from these caches are shared: copy before
mutating; handlers must be quick (see ``informer``'s module doc for the guarantees)."""

from minikube_py.cache.backoff import Backoff
from minikube_py.cache.factory import FilteredListerWatcher, SharedInformerFactory
from minikube_py.cache.informer import (
    EventHandlerFuncs,
    ResourceEventHandler,
    SharedInformer,
    wait_for_cache_sync,
)
from minikube_py.cache.reflector import Reflector, StoreSink
from minikube_py.cache.store import (
    NAMESPACE_INDEX,
    DeletedFinalStateUnknown,
    Indexer,
    IndexFunc,
    KeyFunc,
    deletion_handling_meta_namespace_key,
    final_state,
    meta_namespace_key,
    namespace_index_func,
    split_meta_namespace_key,
)

__all__ = [
    "NAMESPACE_INDEX",
    "Backoff",
    "DeletedFinalStateUnknown",
    "EventHandlerFuncs",
    "FilteredListerWatcher",
    "IndexFunc",
    "Indexer",
    "KeyFunc",
    "Reflector",
    "ResourceEventHandler",
    "SharedInformer",
    "SharedInformerFactory",
    "StoreSink",
    "deletion_handling_meta_namespace_key",
    "final_state",
    "meta_namespace_key",
    "namespace_index_func",
    "split_meta_namespace_key",
    "wait_for_cache_sync",
]
