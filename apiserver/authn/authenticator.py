"""The authenticator contracts and how they combine (upstream's ``authenticator.Request``,
``authenticator.Token``, ``union``, ``bearertoken`` and the authenticated-group adder).

A request authenticator looks at one request (the ASGI scope) and answers:

- a ``UserInfo``: the credential is valid and names this user;
- ``None``: the request carries no credential of its kind ("not mine");
- raises ``AuthenticationError``: it carries one of its kind that is not valid (expired,
  badly signed, unknown). Upstream never lets such a request fall back to anonymous.

Token authenticators do the same for a bearer token and the audiences the request is for.
``RequestUnion`` tries each in order: the first user wins; otherwise the errors seen are
raised together; otherwise ``None``. ``BearerToken`` turns a token union into a request
authenticator; a token that no token authenticator recognises is ``invalid bearer token``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Protocol

from starlette.types import Scope

from apiserver.request.user import ANONYMOUS, ANONYMOUS_USER, AUTHENTICATED, UNAUTHENTICATED, UserInfo

INVALID_BEARER_TOKEN = "invalid bearer token"


class AuthenticationError(Exception):
    """A presented credential is not valid; the message says why (never sent to the client,
    except in a TokenReview's ``status.error``)."""


@dataclass(frozen=True, slots=True)
class TokenResult:
    """A token's user and the audiences it was accepted for (upstream's ``Response``)."""

    user: UserInfo
    audiences: tuple[str, ...] = field(default=())


class Authenticator(Protocol):
    async def authenticate(self, scope: Scope) -> UserInfo | None:
        """The request's user, None when it is not this authenticator's kind of credential;
        raises ``AuthenticationError`` for an invalid one."""
        ...


class TokenAuthenticator(Protocol):
    async def authenticate_token(self, token: str, audiences: Sequence[str]) -> TokenResult | None:
        """The token's user, None when the token is not this authenticator's kind; raises
        ``AuthenticationError`` for one of its kind that is not valid. ``audiences``: what the
        request is for (the API audiences, or a TokenReview's)."""
        ...


def aggregate(errors: Sequence[AuthenticationError]) -> AuthenticationError:
    """One error for several, formatted like upstream's aggregate (``[a, b]``)."""
    messages = list(dict.fromkeys(str(e) for e in errors))
    return AuthenticationError(messages[0] if len(messages) == 1 else "[" + ", ".join(messages) + "]")


class RequestUnion:
    def __init__(self, authenticators: Sequence[Authenticator]) -> None:
        self.authenticators = tuple(authenticators)

    async def authenticate(self, scope: Scope) -> UserInfo | None:
        errors: list[AuthenticationError] = []
        for authenticator in self.authenticators:
            try:
                user = await authenticator.authenticate(scope)
            except AuthenticationError as err:
                errors.append(err)
                continue
            if user is not None:
                return user
        if errors:
            raise aggregate(errors)
        return None


class TokenUnion:
    def __init__(self, authenticators: Sequence[TokenAuthenticator]) -> None:
        self.authenticators = tuple(authenticators)

    async def authenticate_token(self, token: str, audiences: Sequence[str]) -> TokenResult | None:
        errors: list[AuthenticationError] = []
        for authenticator in self.authenticators:
            try:
                result = await authenticator.authenticate_token(token, audiences)
            except AuthenticationError as err:
                errors.append(err)
                continue
            if result is not None:
                return result
        if errors:
            raise aggregate(errors)
        return None


class AudienceAgnostic:
    """Tokens that name no audience (static, bootstrap) are good for the API audiences only:
    the requested audiences must include one of ``implicit``, and the result names those
    (upstream's ``WrapAudienceAgnosticToken``)."""

    def __init__(self, tokens: TokenAuthenticator, implicit: Sequence[str]) -> None:
        self.tokens, self.implicit = tokens, tuple(implicit)

    async def authenticate_token(self, token: str, audiences: Sequence[str]) -> TokenResult | None:
        requested = tuple(audiences) or self.implicit
        accepted = tuple(a for a in self.implicit if a in requested)
        if self.implicit and not accepted:
            return None
        result = await self.tokens.authenticate_token(token, audiences)
        return replace(result, audiences=accepted) if result is not None else None


def bearer_token(scope: Scope) -> str | None:
    """The token of an ``Authorization: Bearer <token>`` header; None without one (upstream
    ignores other schemes and an empty token)."""
    headers: list[tuple[bytes, bytes]] = scope.get("headers") or []
    for key, value in headers:
        if key.lower() == b"authorization":
            parts = value.decode("latin-1").strip().split(" ")
            if len(parts) == 2 and parts[0].lower() == "bearer" and parts[1]:
                return parts[1]
            return None
    return None


class BearerToken:
    """A request authenticator over a token authenticator, for ``audiences``."""

    def __init__(self, tokens: TokenAuthenticator, audiences: Sequence[str]) -> None:
        self.tokens = tokens
        self.audiences = tuple(audiences)

    async def authenticate(self, scope: Scope) -> UserInfo | None:
        token = bearer_token(scope)
        if token is None:
            return None
        result = await self.tokens.authenticate_token(token, self.audiences)
        if result is None:
            raise AuthenticationError(INVALID_BEARER_TOKEN)
        return result.user


def with_authenticated_group(user: UserInfo) -> UserInfo:
    """``user`` plus ``system:authenticated``, unless anonymous or already in it (upstream's
    ``AuthenticatedGroupAdder``)."""
    if user.name == ANONYMOUS or AUTHENTICATED in user.groups or UNAUTHENTICATED in user.groups:
        return user
    return replace(user, groups=(*user.groups, AUTHENTICATED))


class Anonymous:
    """Everyone without a credential is ``system:anonymous`` in ``system:unauthenticated``."""

    async def authenticate(self, scope: Scope) -> UserInfo | None:
        return ANONYMOUS_USER


class RequestAuthenticator:
    """What the filter runs: the credential authenticators (their user gets
    ``system:authenticated``), then, only when none was presented, anonymous if enabled
    (upstream's ``NewFailOnError``). Returns None when nobody authenticated."""

    def __init__(self, credentials: Sequence[Authenticator], *, anonymous: bool) -> None:
        self.credentials = RequestUnion(credentials)
        self.anonymous = Anonymous() if anonymous else None

    async def authenticate(self, scope: Scope) -> UserInfo | None:
        user = await self.credentials.authenticate(scope)
        if user is not None:
            return with_authenticated_group(user)
        return await self.anonymous.authenticate(scope) if self.anonymous else None
