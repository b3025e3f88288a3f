"""``CachedTokens``: a good token is remembered for the TTL (keyed by token and audiences),
failures and unknown tokens are asked again every time."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from apiserver.authn.authenticator import AuthenticationError, TokenResult
from apiserver.authn.tokencache import CachedTokens
from apiserver.request.user import UserInfo


class CountingTokens:
    """A token authenticator that knows "good" and refuses "bad" (a test stand-in for the
    real ones, which have their own tests), counting every call."""

    def __init__(self) -> None:
        self.calls = 0

    async def authenticate_token(self, token: str, audiences: Sequence[str]) -> TokenResult | None:
        self.calls += 1
        if token == "bad":
            raise AuthenticationError("invalid")
        return TokenResult(UserInfo("alice"), tuple(audiences)) if token == "good" else None


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


async def test_a_good_token_is_remembered_for_the_ttl_only() -> None:
    inner, clock = CountingTokens(), Clock()
    cached = CachedTokens(inner, ttl=10, clock=clock)
    for _ in range(3):
        result = await cached.authenticate_token("good", ["api"])
        assert result is not None and result.user.name == "alice"
    assert inner.calls == 1
    await cached.authenticate_token("good", ["other"])  # other audiences: another entry
    assert inner.calls == 2
    clock.now += 10.5
    await cached.authenticate_token("good", ["api"])
    assert inner.calls == 3


async def test_failures_and_unknown_tokens_are_not_remembered() -> None:
    inner = CountingTokens()
    cached = CachedTokens(inner, clock=Clock())
    for _ in range(2):
        with pytest.raises(AuthenticationError):
            await cached.authenticate_token("bad", ["api"])
        assert await cached.authenticate_token("nobody", ["api"]) is None
    assert inner.calls == 4
