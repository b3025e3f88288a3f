"""Service-account tokens: JWTs the apiserver signs with the service-account key and
accepts back (upstream's ``pkg/serviceaccount`` claims, generator and validator).

A token's claims: ``iss``, ``sub`` (``system:serviceaccount:<ns>:<name>``), ``aud``, ``exp``,
``iat``, ``nbf``, ``jti`` and ``kubernetes.io`` with the namespace, the service account's name
and uid and, for bound tokens, the pod, secret or node (and a pod's node). A token is valid
while it is unexpired (one minute of leeway), for one of the requested audiences, and while
the service account and the bound objects exist with the same uids and are not being
deleted. Tokens from other issuers, or that are not JWTs, are "not mine".
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from apiserver.authn import jwt
from apiserver.authn.authenticator import AuthenticationError, TokenResult
from apiserver.authn.objects import ObjectGetter
from apiserver.request.user import UserInfo
from minikube_py.api.field_errors import go_quote_slice
from minikube_py.api.timestamps import parse_rfc3339 as parse_time
from minikube_py.api.unstructured import Object
from minikube_py.uid import new_uuid

SERVICE_ACCOUNT_PREFIX = "system:serviceaccount:"
ALL_SERVICE_ACCOUNTS = "system:serviceaccounts"
DEFAULT_ISSUER = "https://kubernetes.default.svc.cluster.local"
LEEWAY_SECONDS = 60  # go-jose's DefaultLeeway
POD_NAME, POD_UID = "authentication.kubernetes.io/pod-name", "authentication.kubernetes.io/pod-uid"
NODE_NAME, NODE_UID = "authentication.kubernetes.io/node-name", "authentication.kubernetes.io/node-uid"
CREDENTIAL_ID = "authentication.kubernetes.io/credential-id"

Clock = Callable[[], float]


def username(namespace: str, name: str) -> str:
    return f"{SERVICE_ACCOUNT_PREFIX}{namespace}:{name}"


def group_names(namespace: str) -> tuple[str, str]:
    return ALL_SERVICE_ACCOUNTS, f"{ALL_SERVICE_ACCOUNTS}:{namespace}"


def _ref(obj: Object) -> dict[str, str]:
    return {"name": obj["metadata"]["name"], "uid": obj["metadata"].get("uid", "")}


@dataclass(frozen=True, slots=True)
class Bound:
    """What a token is bound to besides its service account (at most one of pod, secret,
    node; ``node`` also for a pod's node)."""

    pod: Object | None = None
    secret: Object | None = None
    node: Object | None = None


class TokenGenerator:
    """Signs service-account tokens for ``issuer`` with ``key``."""

    def __init__(self, key: jwt.SigningKey, issuer: str, clock: Clock = time.time) -> None:
        self.key, self.issuer, self.clock = key, issuer, clock

    def generate(
        self, sa: Object, audiences: Sequence[str], expiration_seconds: int, bound: Bound = Bound()
    ) -> tuple[str, int]:
        """The token and its expiry (seconds since the epoch)."""
        now = int(self.clock())
        expiry = now + expiration_seconds
        meta = sa["metadata"]
        private: dict[str, Any] = {"namespace": meta["namespace"]}
        if bound.node is not None:
            private["node"] = _ref(bound.node)
        if bound.pod is not None:
            private["pod"] = _ref(bound.pod)
        elif bound.secret is not None:
            private["secret"] = _ref(bound.secret)
        private["serviceaccount"] = _ref(sa)
        claims = {
            "aud": list(audiences),
            "exp": expiry,
            "iat": now,
            "iss": self.issuer,
            "jti": new_uuid(),
            "kubernetes.io": private,
            "nbf": now,
            "sub": username(meta["namespace"], meta["name"]),
        }
        return jwt.sign(claims, self.key), expiry


class ServiceAccountAuthenticator:
    """Accepts tokens from ``issuers`` signed by one of ``keys`` (see the module docstring)."""

    def __init__(
        self,
        keys: list[jwt.VerifyingKey],
        issuers: Sequence[str],
        implicit_audiences: Sequence[str],
        objects: ObjectGetter,
        clock: Clock = time.time,
    ) -> None:
        self.keys, self.issuers = keys, tuple(issuers)
        self.implicit_audiences = tuple(implicit_audiences)
        self.objects, self.clock = objects, clock

    async def authenticate_token(self, token: str, audiences: Sequence[str]) -> TokenResult | None:
        try:
            unverified = jwt.unverified_claims(token)
        except jwt.JWTError:
            return None
        if unverified.get("iss") not in self.issuers:
            return None
        try:
            claims = jwt.verify(token, self.keys)
        except jwt.JWTError as err:
            raise AuthenticationError(str(err)) from None
        _check_claim_types(claims)
        accepted = self._audiences(claims, audiences)
        user = await self._validate(claims)
        return TokenResult(user, accepted)

    def _audiences(self, claims: dict[str, Any], requested: Sequence[str]) -> tuple[str, ...]:
        aud = claims.get("aud")
        token_audiences = [aud] if isinstance(aud, str) else list(aud or [])
        if not token_audiences:
            token_audiences = list(self.implicit_audiences)  # a legacy token: API audiences only
        requested = list(requested) or list(self.implicit_audiences)
        accepted = tuple(a for a in token_audiences if a in requested)
        if not accepted and self.implicit_audiences:
            raise AuthenticationError(
                f"token audiences {go_quote_slice(token_audiences)} is invalid for the target audiences "
                f"{go_quote_slice(requested)}"
            )
        return accepted

    async def _validate(self, claims: dict[str, Any]) -> UserInfo:
        now = self.clock()
        # _check_claim_types made each of these a number or absent (null counts as absent)
        if claims.get("exp") is not None and now > claims["exp"] + LEEWAY_SECONDS:
            raise AuthenticationError("service account token has expired")
        if claims.get("nbf") is not None and now < claims["nbf"] - LEEWAY_SECONDS:
            raise AuthenticationError("service account token is not valid yet")
        if claims.get("iat") is not None and now < claims["iat"] - LEEWAY_SECONDS:
            raise AuthenticationError("service account token is issued in the future")
        private = claims.get("kubernetes.io")
        if not isinstance(private, dict) or not isinstance(private.get("serviceaccount"), dict):
            raise AuthenticationError("service account token claims could not be validated")
        namespace, sa_ref = str(private.get("namespace", "")), private["serviceaccount"]
        sa = await self.objects.get("serviceaccounts", namespace, str(sa_ref.get("name", "")))
        if sa is None:
            raise AuthenticationError(f'serviceaccounts "{sa_ref.get("name", "")}" not found')
        uid = sa["metadata"].get("uid", "")
        if uid != sa_ref.get("uid"):
            raise AuthenticationError(
                f"service account UID ({uid}) does not match claim ({sa_ref.get('uid')})"
            )
        if self._deleted(sa, now):
            raise AuthenticationError(f"service account {namespace}/{sa_ref.get('name')} has been deleted")
        extra: dict[str, list[str]] = {}
        for resource, kind in (("secrets", "secret"), ("pods", "pod"), ("nodes", "node")):
            ref = private.get(kind)
            if not isinstance(ref, dict):
                continue
            if resource != "nodes" or "pod" not in private:  # a pod's node is informational
                await self._check_bound(resource, kind, "" if kind == "node" else namespace, ref, now)
            if kind in ("pod", "node"):
                names = (POD_NAME, POD_UID) if kind == "pod" else (NODE_NAME, NODE_UID)
                extra[names[0]], extra[names[1]] = [str(ref.get("name", ""))], [str(ref.get("uid", ""))]
        if claims.get("jti"):
            extra[CREDENTIAL_ID] = [f"JTI={claims['jti']}"]
        meta = sa["metadata"]
        return UserInfo(username(namespace, meta["name"]), group_names(namespace), meta.get("uid", ""), extra)

    async def _check_bound(
        self, resource: str, kind: str, namespace: str, ref: dict[str, Any], now: float
    ) -> None:
        obj = await self.objects.get(resource, namespace, str(ref.get("name", "")))
        if obj is None or self._deleted(obj, now):
            raise AuthenticationError("service account token has been invalidated")
        uid = obj["metadata"].get("uid", "")
        if uid != ref.get("uid"):
            label = kind.capitalize() if kind != "secret" else "secret"
            raise AuthenticationError(
                f"{label} UID ({uid}) does not match service account {kind} ref claim ({ref.get('uid')})"
            )

    @staticmethod
    def _deleted(obj: Object, now: float) -> bool:
        """Being deleted since before ``now`` minus the leeway (upstream's rule)."""
        deleted_at = parse_time(obj["metadata"].get("deletionTimestamp"))
        return deleted_at is not None and deleted_at < now - LEEWAY_SECONDS


NUMERIC_DATE_ERROR = "go-jose/go-jose/jwt: expected number for numeric date"
AUDIENCE_ERROR = "go-jose/go-jose/jwt: expected string or array value to unmarshal to Audience"


def _check_claim_types(claims: dict[str, Any]) -> None:
    """Upstream decodes the claims into go-jose's typed ``jwt.Claims`` before validating
    anything, so a claim of the wrong JSON type fails the token (401), never skips a check:
    ``exp``/``nbf``/``iat`` are NumericDates (a finite number, or null), ``aud`` a string or a
    list of strings, ``iss``/``sub``/``jti`` strings."""
    for name in ("exp", "nbf", "iat"):
        value = claims.get(name)
        if value is None:
            continue
        if isinstance(value, bool) or not isinstance(value, int | float) or not _finite(value):
            raise AuthenticationError(NUMERIC_DATE_ERROR)
    aud = claims.get("aud")
    audiences = [] if aud is None else [aud] if isinstance(aud, str) else aud
    if not isinstance(audiences, list) or not all(isinstance(a, str) for a in audiences):
        raise AuthenticationError(AUDIENCE_ERROR)
    for name in ("iss", "sub", "jti"):
        value = claims.get(name)
        if value is not None and not isinstance(value, str):
            what = _json_type(value)
            raise AuthenticationError(
                f"json: cannot unmarshal {what} into Go struct field Claims.{name} of type string"
            )


def _json_type(value: Any) -> str:
    """Go's name for a JSON value's type in an unmarshalling error."""
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int | float):
        return "number"
    return "array" if isinstance(value, list) else "object"


def _finite(value: float) -> bool:
    try:
        return math.isfinite(float(value))  # Go's ParseFloat refuses what overflows a float64
    except OverflowError:
        return False
