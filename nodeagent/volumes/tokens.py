"""Bound service account tokens for projected volumes (upstream's kubelet token manager).

A token is requested through the TokenRequest API (``serviceaccounts/<sa>/token``) bound to
the pod (``boundObjectRef``), cached per pod, audience and lifetime, and renewed once 80% of
its lifetime has passed (or after 24 h), as upstream's ``requiresRefresh`` without jitter.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from minikube_py.api.errors import ApiError
from minikube_py.api.timestamps import parse_rfc3339
from minikube_py.client.interfaces import Client
from minikube_py.client.resourcetypes import SERVICEACCOUNTS
from minikube_py.clock import Clock

DEFAULT_EXPIRATION_SECONDS = 3600  # the apiserver's default for a projected token
REFRESH_FRACTION = 0.8
MAX_TTL = 24 * 3600.0

TokenKey = tuple[str, str, str, str, int]  # pod uid, namespace, service account, audience, seconds


class TokenRequestError(Exception):
    """The token could not be issued; ``str()`` is upstream's ``failed to fetch token: ...``."""


@dataclass(frozen=True)
class IssuedToken:
    token: str
    expires_at: float
    refresh_at: float


class ServiceAccountTokens:
    """Issues and caches pods' tokens; ``forget_pod`` drops a pod's tokens."""

    def __init__(self, client: Client, clock: Clock) -> None:
        self._client, self._clock = client, clock
        self._tokens: dict[TokenKey, IssuedToken] = {}

    def cached(self, key: TokenKey) -> IssuedToken | None:
        return self._tokens.get(key)

    async def get_service_account_token(self, pod: Mapping[str, Any], source: Mapping[str, Any]) -> str:
        """The token for a ``serviceAccountToken`` projection of ``pod`` (cached until due)."""
        meta, spec = pod["metadata"], pod.get("spec") or {}
        seconds = int(source.get("expirationSeconds") or DEFAULT_EXPIRATION_SECONDS)
        audience = str(source.get("audience") or "")
        account = str(spec.get("serviceAccountName") or spec.get("serviceAccount") or "default")
        key = (str(meta.get("uid", "")), str(meta.get("namespace", "default")), account, audience, seconds)
        issued = self._tokens.get(key)
        if issued is None or self._clock.now() >= issued.refresh_at:
            issued = self._tokens[key] = await self._request_token(pod, key)
        return issued.token

    async def _request_token(self, pod: Mapping[str, Any], key: TokenKey) -> IssuedToken:
        _, namespace, account, audience, seconds = key
        spec: dict[str, Any] = {
            "expirationSeconds": seconds,
            "boundObjectRef": {
                "apiVersion": "v1",
                "kind": "Pod",
                "name": pod["metadata"]["name"],
                "uid": pod["metadata"].get("uid", ""),
            },
        }
        if audience:
            spec["audiences"] = [audience]
        request = {"apiVersion": "authentication.k8s.io/v1", "kind": "TokenRequest", "spec": spec}
        try:
            answer = await self._client.resource(SERVICEACCOUNTS, namespace).create_subresource(
                account, "token", request
            )
        except ApiError as err:
            raise TokenRequestError(f"failed to fetch token: {err}") from err
        now = self._clock.now()
        status, answered = answer.get("status") or {}, answer.get("spec") or {}
        ttl = float(answered.get("expirationSeconds") or seconds)
        expires = parse_rfc3339(status.get("expirationTimestamp")) or now + ttl
        refresh_at = min(expires - ttl * (1 - REFRESH_FRACTION), now + MAX_TTL * REFRESH_FRACTION)
        return IssuedToken(str(status.get("token") or ""), expires, refresh_at)

    def forget_pod(self, uid: str) -> None:
        """Drop the tokens of pod ``uid`` (its volumes are gone)."""
        for key in [k for k in self._tokens if k[0] == uid]:
            del self._tokens[key]
