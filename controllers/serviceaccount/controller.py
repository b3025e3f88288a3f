"""The service account controller (upstream's ``ServiceAccountsController``): every active
namespace has a ServiceAccount named ``default``. A namespace is synced when it appears or
changes and when one of its ServiceAccounts is deleted; a missing account is created (an
AlreadyExists answer means another writer won, which is fine). Namespaces that are not
``Active`` (terminating) are left alone, and a create refused because the namespace started
terminating meanwhile is not an error."""

from __future__ import annotations

import logging

from minikube_py.api.errors import ApiError
from minikube_py.api.unstructured import Object
from minikube_py.cache.factory import SharedInformerFactory
from minikube_py.cache.informer import EventHandlerFuncs
from minikube_py.cache.store import DeletedFinalStateUnknown
from minikube_py.client.interfaces import Client
from minikube_py.client.resourcetypes import NAMESPACES, SERVICEACCOUNTS
from minikube_py.clock import Clock, RealClock
from minikube_py.controller import run_workers
from minikube_py.events import Recorder
from minikube_py.workqueue import RateLimitingQueue

log = logging.getLogger("serviceaccount")

DEFAULT_SERVICE_ACCOUNTS = ("default",)
NAMESPACE_TERMINATING_CAUSE = "NamespaceTerminating"


class ServiceAccountController:
    """``name`` = "serviceaccount". Informers: namespaces, serviceaccounts. Keys: namespace names."""

    name = "serviceaccount"

    def __init__(
        self,
        client: Client,
        factory: SharedInformerFactory,
        recorder: Recorder,
        *,
        clock: Clock | None = None,
        service_accounts: tuple[str, ...] = DEFAULT_SERVICE_ACCOUNTS,
    ) -> None:
        self._client = client
        self._clock = clock or RealClock()
        self._recorder = recorder
        self.service_accounts_to_ensure = service_accounts
        self.queue: RateLimitingQueue[str] = RateLimitingQueue(clock=self._clock, name="serviceaccount")
        self.namespaces = factory.informer(NAMESPACES)
        self.service_accounts = factory.informer(SERVICEACCOUNTS)
        self.namespaces.add_event_handler(
            EventHandlerFuncs(
                add=self._namespace_changed, update=lambda _old, new: self._namespace_changed(new)
            )
        )
        self.service_accounts.add_event_handler(EventHandlerFuncs(delete=self._service_account_deleted))

    def _namespace_changed(self, namespace: Object) -> None:
        self.queue.add(namespace["metadata"]["name"])

    def _service_account_deleted(self, obj: Object | DeletedFinalStateUnknown) -> None:
        account = obj.obj if isinstance(obj, DeletedFinalStateUnknown) else obj
        namespace = (account.get("metadata") or {}).get("namespace")
        if namespace:
            self.queue.add(namespace)

    async def run(self, workers: int) -> None:
        synced = [self.namespaces.has_synced, self.service_accounts.has_synced]
        await run_workers(self.name, self.queue, self.sync, workers, synced, self._clock)

    async def sync(self, key: str) -> None:
        """``syncNamespace``: create the missing default accounts of an active namespace."""
        namespace = self.namespaces.indexer.get_by_key(key)
        if namespace is None:
            return
        if (namespace.get("status") or {}).get("phase", "Active") != "Active":
            return  # terminating: creating anything would be refused (and pointless)
        failures: list[str] = []
        for name in self.service_accounts_to_ensure:
            if self.service_accounts.indexer.get_by_key(f"{key}/{name}") is not None:
                continue
            account = {
                "apiVersion": "v1",
                "kind": "ServiceAccount",
                "metadata": {"name": name, "namespace": key},
            }
            try:
                await self._client.resource(SERVICEACCOUNTS, key).create(account)
                log.info("created %s/%s", key, name)
            except ApiError as exc:
                if exc.code == 409 and exc.reason == "AlreadyExists":
                    continue
                if any(cause.reason == NAMESPACE_TERMINATING_CAUSE for cause in exc.causes):
                    continue
                failures.append(f"{key}/{name}: {exc}")
        if failures:
            raise RuntimeError("; ".join(failures))
