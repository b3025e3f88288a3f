"""Bootstrap tokens (upstream's ``plugin/pkg/auth/authenticator/token/bootstrap``): a token
``<id>.<secret>`` (``[a-z0-9]{6}.[a-z0-9]{16}``) is valid while the Secret
``kube-system/bootstrap-token-<id>`` of type ``bootstrap.kubernetes.io/token`` holds that id
and secret, is not being deleted, has not expired (``expiration``, RFC 3339) and has
``usage-bootstrap-authentication: "true"``. The user is ``system:bootstrap:<id>`` in
``system:bootstrappers`` plus the Secret's ``auth-extra-groups``. Upstream answers every
failure with "not mine" (only logged), so the client sees ``invalid bearer token``."""

from __future__ import annotations

import base64
import binascii
import hmac
import logging
import re
import time
from collections.abc import Sequence

from apiserver.authn.authenticator import TokenResult
from apiserver.authn.objects import ObjectGetter
from apiserver.authn.serviceaccount import Clock
from apiserver.request.user import UserInfo
from minikube_py.api.timestamps import parse_rfc3339 as parse_time
from minikube_py.api.unstructured import Object

log = logging.getLogger("apiserver")

TOKEN_PATTERN = re.compile(r"^([a-z0-9]{6})\.([a-z0-9]{16})$")
EXTRA_GROUP_PATTERN = re.compile(r"^system:bootstrappers:[a-z0-9:-]{0,255}[a-z0-9]$")
SECRET_TYPE = "bootstrap.kubernetes.io/token"
SECRET_PREFIX = "bootstrap-token-"
NAMESPACE = "kube-system"
USER_PREFIX = "system:bootstrap:"
GROUP = "system:bootstrappers"


def secret_data(secret: Object) -> dict[str, str]:
    """The Secret's ``data``, base64-decoded (undecodable values are left out)."""
    out: dict[str, str] = {}
    for key, value in (secret.get("data") or {}).items():
        try:
            out[key] = base64.b64decode(value, validate=True).decode()
        except (binascii.Error, ValueError, UnicodeDecodeError):
            continue
    return out


class BootstrapTokens:
    def __init__(self, objects: ObjectGetter, clock: Clock = time.time) -> None:
        self.objects, self.clock = objects, clock

    async def authenticate_token(self, token: str, audiences: Sequence[str]) -> TokenResult | None:
        match = TOKEN_PATTERN.match(token)
        if match is None:
            return None
        token_id, token_secret = match.groups()
        name = SECRET_PREFIX + token_id
        secret = await self.objects.get("secrets", NAMESPACE, name)
        if secret is None:
            log.info("no secret %s/%s for bootstrap token %s", NAMESPACE, name, token_id)
            return None
        if secret["metadata"].get("deletionTimestamp") or secret.get("type") != SECRET_TYPE:
            return None
        data = secret_data(secret)
        if not hmac.compare_digest(data.get("token-secret", "").encode(), token_secret.encode()):
            return None
        if data.get("token-id") != token_id:
            return None
        if self._expired(data.get("expiration", "")):
            log.info("expired bootstrap token %s/%s", NAMESPACE, name)
            return None
        if data.get("usage-bootstrap-authentication") != "true":
            return None
        groups = self._groups(data.get("auth-extra-groups", ""))
        if groups is None:
            return None
        return TokenResult(UserInfo(USER_PREFIX + token_id, groups))

    def _expired(self, expiration: str) -> bool:
        if not expiration:
            return False
        expires = parse_time(expiration)
        return expires is None or self.clock() > expires

    @staticmethod
    def _groups(extra: str) -> tuple[str, ...] | None:
        groups = [GROUP]
        for group in filter(None, (g.strip() for g in extra.split(","))):
            if not EXTRA_GROUP_PATTERN.match(group):
                return None
            groups.append(group)
        return tuple(dict.fromkeys(groups))
