"""Authentication assembled from ``SecurityConfig`` (upstream's ``BuiltInAuthenticationOptions``
-> ``authenticator.Config.New``): client certificates, then bearer tokens (static token file,
service-account tokens, bootstrap tokens, in that order), then anonymous."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa

from apiserver.authn import jwt
from apiserver.authn.authenticator import (
    AudienceAgnostic,
    Authenticator,
    BearerToken,
    RequestAuthenticator,
    TokenAuthenticator,
    TokenUnion,
)
from apiserver.authn.bootstrap import BootstrapTokens
from apiserver.authn.objects import LookupObjects, ObjectGetter
from apiserver.authn.serviceaccount import DEFAULT_ISSUER, ServiceAccountAuthenticator, TokenGenerator
from apiserver.authn.tokencache import CachedTokens
from apiserver.authn.tokenfile import StaticTokens, TokenFileError
from apiserver.authn.x509 import X509Authenticator
from apiserver.lookup import Lookup
from apiserver.security import SecurityConfig

# Where the endpoints find the ``AuthenticationSetup`` in the ASGI scope (``serviceaccounts/token``).
SETUP_KEY = "authentication"


class AuthenticationConfigError(Exception):
    """A key or token file named by the configuration cannot be used. One line."""


@dataclass(frozen=True, slots=True)
class AuthenticationSetup:
    """The request authenticator (the filter), the token authenticator (TokenReview), the
    service-account token generator (TokenRequest; None without a signing key), the API
    audiences, and where bound objects are read (None without a ``Lookup``)."""

    requests: RequestAuthenticator
    tokens: TokenAuthenticator
    generator: TokenGenerator | None
    api_audiences: tuple[str, ...]
    objects: ObjectGetter | None


def build_authentication(security: SecurityConfig, lookup: Lookup | None) -> AuthenticationSetup:
    issuers = security.service_account_issuers or (DEFAULT_ISSUER,)
    audiences = security.api_audiences or issuers
    token_authenticators: list[TokenAuthenticator] = []
    if security.token_auth_file is not None:
        try:
            static = StaticTokens.from_csv(security.token_auth_file)
            token_authenticators.append(AudienceAgnostic(static, audiences))
        except TokenFileError as err:
            raise AuthenticationConfigError(str(err)) from err
    signing_key = _signing_key(security.service_account_signing_key_file)
    keys = [_verifying_key(path) for path in security.service_account_key_files]
    if signing_key is not None:
        keys.append(signing_key.public_key())
    generator = TokenGenerator(signing_key, issuers[0]) if signing_key is not None else None
    objects = LookupObjects(lookup) if lookup is not None else None
    if objects is not None:
        if keys:
            token_authenticators.append(ServiceAccountAuthenticator(keys, issuers, audiences, objects))
        if security.bootstrap_tokens:
            token_authenticators.append(AudienceAgnostic(BootstrapTokens(objects), audiences))
    tokens = TokenUnion(token_authenticators)
    credentials: list[Authenticator] = [X509Authenticator()]
    if token_authenticators:
        cached = (
            CachedTokens(tokens, ttl=security.token_cache_ttl) if security.token_cache_ttl > 0 else tokens
        )
        credentials.append(BearerToken(cached, audiences))
    requests = RequestAuthenticator(credentials, anonymous=security.anonymous)
    return AuthenticationSetup(requests, tokens, generator, tuple(audiences), objects)


def _signing_key(path: Path | None) -> jwt.SigningKey | None:
    if path is None:
        return None
    key = _load(path, private=True)
    if not isinstance(key, ec.EllipticCurvePrivateKey | rsa.RSAPrivateKey):
        raise AuthenticationConfigError(f"{path}: not an EC or RSA private key")
    return key


def _verifying_key(path: Path) -> jwt.VerifyingKey:
    """A public key, or a private key's public half (upstream accepts both)."""
    key = _load(path, private=False)
    if isinstance(key, ec.EllipticCurvePrivateKey | rsa.RSAPrivateKey):
        return key.public_key()
    if isinstance(key, ec.EllipticCurvePublicKey | rsa.RSAPublicKey):
        return key
    raise AuthenticationConfigError(f"{path}: not an EC or RSA key")


def _load(path: Path, *, private: bool) -> object:
    try:
        data = path.read_bytes()
    except OSError as err:
        raise AuthenticationConfigError(f"cannot read {path}: {err.strerror or err}") from err
    try:
        if private or b"PRIVATE KEY" in data:
            return serialization.load_pem_private_key(data, password=None)
        return serialization.load_pem_public_key(data)
    except (ValueError, TypeError) as err:
        raise AuthenticationConfigError(f"{path}: not a PEM key") from err
