"""The catalog: every served resource with its strategy, storage (a watch cache each) and
store. Discovery, routing and OpenAPI are generated from it."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

from apiserver import namespacepolicy
from apiserver.lookup import Change, Lister, WatchCache
from apiserver.registry.listers import StoreLister, convert
from apiserver.registry.resources.service import ServiceStrategy
from apiserver.registry.resources.serviceallocator import ServiceNetwork
from apiserver.registry.store import Admission, GenericStore
from apiserver.registry.strategies import StrategyRegistry, builtin_strategies, strategy_for
from apiserver.registry.strategy import Strategy
from apiserver.storage.cacher import Cacher, Indexer
from apiserver.storage.errors import KeyNotFoundError
from apiserver.storage.keys import object_key, resource_prefix
from apiserver.storage.kv import KV
from apiserver.storage.objects import KVObjectStorage
from minikube_py.api import errors
from minikube_py.api.scheme import ResourceType, Scheme
from minikube_py.api.unstructured import Object

__all__ = ["Catalog", "indexers", "strategy_for"]


def indexers(strategy: Strategy) -> dict[str, Indexer]:
    """The watch cache's indexers for ``strategy.indexed_fields``: each field's value as the
    field selector reads it (``selectable_fields``), so an index lookup and the predicate agree."""

    def indexer(field: str) -> Indexer:
        return lambda obj: strategy.selectable_fields(obj).get(field, "")

    return {field: indexer(field) for field in strategy.indexed_fields}


class Catalog:
    """Stores by (group, version, resource); ``run`` keeps every watch cache in sync. Every
    served kind gets a store with its own strategy (``strategies``), unless that strategy says
    the kind is stored nowhere. Services get their addresses from ``service_network`` (the
    apiserver's ``--service-cluster-ip-range`` and ``--service-node-port-range``)."""

    def __init__(
        self,
        kv: KV,
        strategies: StrategyRegistry | None = None,
        service_network: ServiceNetwork | None = None,
    ) -> None:
        strategies = strategies or builtin_strategies()
        self.service_network = service_network or ServiceNetwork()
        self.scheme: Scheme = strategies.scheme()
        self.kv = kv
        storage = KVObjectStorage(kv)
        self._cachers: dict[str, Cacher] = {}
        self._stores: dict[tuple[str, str, str], GenericStore] = {}
        self._namespaces_admitted = False  # NamespaceLifecycle admission checks them instead
        for rt in self.scheme:
            strategy_class = strategies.strategy_class(rt)
            if not strategy_class.stored:
                continue
            prefix = resource_prefix(rt.resource)
            cacher = self._cachers.get(prefix) or Cacher(storage, prefix, indexers=indexers(strategy_class()))
            self._cachers[prefix] = cacher
            strategy = strategy_class.for_storage(cacher.objects)
            if isinstance(strategy, ServiceStrategy):
                strategy.use_network(self.service_network)
            store = GenericStore(rt, strategy, cacher, self.check_namespace)
            self._stores[(rt.group, rt.version, rt.resource)] = store

    def store(self, group: str, version: str, resource: str) -> GenericStore | None:
        return self._stores.get((group, version, resource))

    def returns_deleted_object(self, rt: ResourceType) -> bool:
        """Whether DELETE answers with the object (not a ``Status``), as OpenAPI documents it."""
        store = self.store(rt.group, rt.version, rt.resource)
        return store is not None and store.strategy.return_deleted_object

    def __iter__(self) -> Iterator[GenericStore]:
        return iter(self._stores.values())

    async def run(self) -> None:
        """Run every watch cache until cancelled."""
        async with asyncio.TaskGroup() as tasks:
            for cacher in self._cachers.values():
                tasks.create_task(cacher.run())

    async def wait_ready(self) -> None:
        await asyncio.gather(*(c.wait_ready() for c in self._cachers.values()))

    def install_admission(self, chain: Admission) -> None:
        """Every store runs ``chain``; with NamespaceLifecycle in it, that plugin owns the
        namespace check."""
        self._namespaces_admitted = namespacepolicy.ADMISSION_PLUGIN in chain
        for store in self._stores.values():
            store.admission = chain

    async def check_namespace(self, namespace: str, rt: ResourceType, name: str) -> None:
        """Namespaced objects need an existing namespace that is not being deleted (without
        NamespaceLifecycle admission, which does the same)."""
        if self._namespaces_admitted:
            return
        cacher = self._cachers[resource_prefix("namespaces")]
        key = object_key("namespaces", namespace)
        ns: Object | None
        try:
            ns = await cacher.get(key, resource_version="0")
        except KeyNotFoundError:
            try:  # the cache may lag a namespace created a moment ago: ask the store (upstream too)
                ns = await cacher.get(key)
            except KeyNotFoundError:
                ns = None
        refusal = namespacepolicy.refusal(ns, rt, namespace, name, creating=True)
        if refusal is not None:
            raise refusal

    # apiserver.lookup: what admission plugins, authenticators and authorizers read

    def resource_types(self) -> Iterator[ResourceType]:
        return iter(self.scheme)

    def serves(self, group: str, version: str, resource: str) -> bool:
        return (group, version, resource) in self._stores

    def _served(self, group: str, version: str, resource: str) -> GenericStore:
        found = self._stores.get((group, version, resource))
        if found is None:
            raise errors.internal(f"{resource}.{group or 'core'} is not served")
        return found

    def lister(self, group: str, version: str, resource: str) -> Lister:
        return StoreLister(self._served(group, version, resource))

    def watch_cache(self, group: str, version: str, resource: str) -> WatchCache:
        storage = self._served(group, version, resource).storage
        assert isinstance(storage, Cacher), f"{resource} has no watch cache"
        return storage

    def equivalents(self, rt: ResourceType) -> list[ResourceType]:
        prefix = resource_prefix(rt.resource)
        return [
            store.rt
            for store in self._stores.values()
            if store.rt != rt and store.prefix("") == prefix and store.rt.namespaced == rt.namespaced
        ]

    def convert(self, obj: Object | None, source: ResourceType, target: ResourceType) -> Object | None:
        return convert(obj, self._store_of(source), self._store_of(target))

    def default(self, rt: ResourceType, obj: Object) -> None:
        store = self._store_of(rt)
        if store is not None:
            store.strategy.default(obj)

    def _store_of(self, rt: ResourceType) -> GenericStore | None:
        return self._stores.get((rt.group, rt.version, rt.resource))

    async def guaranteed_update(
        self, group: str, version: str, resource: str, namespace: str, name: str, change: Change
    ) -> None:
        store = self._served(group, version, resource)
        await store.storage.guaranteed_update(store.key(namespace, name), change)
