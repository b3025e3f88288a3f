"""``CachedTokens``: successful token authentications remembered for a few seconds (upstream's
cached token authenticator, ``--authentication-token-cache-ttl`` 10 s for successes; failures
are not cached, as upstream's default).

Verifying a service-account JWT (a signature check plus reads of the service account and the
bound object) costs far more than the request it guards; like upstream, a token that was good
stays good for up to the TTL, so a deleted service account's token may work for that long.
Keys are SHA-256 digests of the token (tokens themselves are not kept) plus the audiences.
"""

from __future__ import annotations

import hashlib
import time
from collections import OrderedDict
from collections.abc import Callable, Sequence

from apiserver.authn.authenticator import TokenAuthenticator, TokenResult

SUCCESS_TTL_SECONDS = 10.0
MAX_ENTRIES = 4096


class CachedTokens:
    def __init__(
        self,
        tokens: TokenAuthenticator,
        ttl: float = SUCCESS_TTL_SECONDS,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.tokens = tokens
        self.ttl = ttl
        self.clock = clock
        self._entries: OrderedDict[tuple[bytes, tuple[str, ...]], tuple[float, TokenResult]] = OrderedDict()

    async def authenticate_token(self, token: str, audiences: Sequence[str]) -> TokenResult | None:
        key = (hashlib.sha256(token.encode()).digest(), tuple(audiences))
        now = self.clock()
        hit = self._entries.get(key)
        if hit is not None and hit[0] > now:
            return hit[1]
        result = await self.tokens.authenticate_token(token, audiences)
        if result is not None and self.ttl > 0:
            self._entries[key] = (now + self.ttl, result)
            self._entries.move_to_end(key)
            while len(self._entries) > MAX_ENTRIES:
                self._entries.popitem(last=False)
        elif hit is not None:
            del self._entries[key]
        return result
