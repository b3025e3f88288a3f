"""Per-controller credentials (upstream's ``--use-service-account-credentials``).

Each controller acts as ``kube-system/<its service account>`` so that RBAC grants it only its
``system:controller:<name>`` role, and so that audit logs and ``managedFields`` say which
controller wrote what. The controller-manager's own identity (allowed to create service
accounts and request their tokens) creates the service account when missing and requests a
bound token (TokenRequest) for it; the token is renewed once 80% of its lifetime has passed,
as client-go's cached token source does. Informers keep reading with the manager's identity.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging

from minikube_py.api.errors import ApiError
from minikube_py.api.timestamps import parse_rfc3339
from minikube_py.client.config import ClientConfig
from minikube_py.client.interfaces import Client
from minikube_py.client.resourcetypes import SERVICEACCOUNTS
from minikube_py.client.rest import RESTClient
from minikube_py.clock import Clock, RealClock

NAMESPACE = "kube-system"
TOKEN_SECONDS = 3600
REFRESH_FRACTION = 0.8
RETRY_INITIAL, RETRY_MAX = 0.5, 10.0  # seconds between tries to get a controller's first token
logger = logging.getLogger("controller-manager")


class ControllerCredentials:
    """Hands out one ``RESTClient`` per service account and keeps its token fresh (``run``)."""

    def __init__(self, root: Client, config: ClientConfig, clock: Clock | None = None) -> None:
        self._root = root
        self._config = config
        self._clock = clock or RealClock()
        self._clients: dict[str, RESTClient] = {}
        self._refresh_at: dict[str, float] = {}

    async def client_for(self, service_account: str) -> RESTClient:
        """A client acting as ``kube-system/<service_account>`` (created on first use). Until
        the apiserver issues the token (it may be starting, or briefly unavailable) this keeps
        trying, ``RETRY_INITIAL`` seconds apart doubling to ``RETRY_MAX``."""
        client = self._clients.get(service_account)
        if client is None:
            delay = RETRY_INITIAL
            while True:
                try:
                    await self._ensure_service_account(service_account)
                    token = await self._request_token(service_account)
                    break
                except ApiError as err:
                    logger.warning(
                        "cannot get a token for %s/%s: %s; retrying in %.1fs",
                        NAMESPACE,
                        service_account,
                        err,
                        delay,
                    )
                    await self._clock.sleep(delay)
                    delay = min(delay * 2, RETRY_MAX)
            config = dataclasses.replace(
                self._config, cert_file=None, cert_data=None, key_file=None, key_data=None, token=token
            )
            client = self._clients[service_account] = RESTClient(config, clock=self._clock)
        return client

    async def run(self) -> None:
        """Renew tokens until cancelled (a failed renewal is retried after 10 s)."""
        while True:
            now = self._clock.now()
            due = [sa for sa, at in self._refresh_at.items() if at <= now]
            for service_account in due:
                try:
                    token = await self._request_token(service_account)
                except ApiError as err:
                    logger.warning("cannot renew the token of %s/%s: %s", NAMESPACE, service_account, err)
                    self._refresh_at[service_account] = now + 10
                    continue
                self._clients[service_account].set_token(token)
            await self._clock.sleep(min((at - now for at in self._refresh_at.values()), default=10.0) or 1.0)

    async def close(self) -> None:
        await asyncio.gather(*(client.close() for client in self._clients.values()))

    async def _ensure_service_account(self, name: str) -> None:
        accounts = self._root.resource(SERVICEACCOUNTS, NAMESPACE)
        try:
            await accounts.create({"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": name}})
        except ApiError as err:
            if err.reason != "AlreadyExists":
                raise

    async def _request_token(self, service_account: str) -> str:
        request = {
            "apiVersion": "authentication.k8s.io/v1",
            "kind": "TokenRequest",
            "spec": {"expirationSeconds": TOKEN_SECONDS},
        }
        accounts = self._root.resource(SERVICEACCOUNTS, NAMESPACE)
        issued = await accounts.create_subresource(service_account, "token", request)
        status = issued.get("status") or {}
        expires = parse_rfc3339(status.get("expirationTimestamp")) or self._clock.now() + TOKEN_SECONDS
        now = self._clock.now()
        self._refresh_at[service_account] = now + (expires - now) * REFRESH_FRACTION
        return str(status.get("token", ""))
