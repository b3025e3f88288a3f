"""Each authenticator alone: valid, expired, wrongly signed, wrong audience, deleted owner,
unknown token (table-driven over an in-memory object getter)."""

from __future__ import annotations

import base64
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric import ec

from apiserver.authn import jwt
from apiserver.authn.authenticator import (
    AudienceAgnostic,
    AuthenticationError,
    BearerToken,
    RequestAuthenticator,
    TokenUnion,
)
from apiserver.authn.bootstrap import BootstrapTokens
from apiserver.authn.serviceaccount import Bound, ServiceAccountAuthenticator, TokenGenerator
from apiserver.authn.tokenfile import StaticTokens, TokenFileError
from apiserver.authn.x509 import X509Authenticator
from apiserver.request.user import UserInfo

ISSUER = "https://kubernetes.default.svc.cluster.local"
NOW = 1_800_000_000.0


class Objects:
    def __init__(self, *objects: tuple[str, dict[str, Any]]) -> None:
        self.objects = {(r, o["metadata"].get("namespace", ""), o["metadata"]["name"]): o for r, o in objects}

    async def get(self, resource: str, namespace: str, name: str) -> dict[str, Any] | None:
        return self.objects.get((resource, namespace, name))


def obj(name: str, uid: str, namespace: str = "default", **extra: Any) -> dict[str, Any]:
    meta = {"name": name, "uid": uid, **({"namespace": namespace} if namespace else {})}
    return {"metadata": meta, **extra}


SA = obj("builder", "sa-uid")
POD = obj("web", "pod-uid", spec={"serviceAccountName": "builder", "nodeName": "n1"})
NODE = obj("n1", "node-uid", namespace="")


def sa_authn(
    key: ec.EllipticCurvePrivateKey, objects: Objects, now: float = NOW
) -> ServiceAccountAuthenticator:
    return ServiceAccountAuthenticator([key.public_key()], [ISSUER], [ISSUER], objects, clock=lambda: now)


async def test_service_account_token_names_the_account_and_its_pod() -> None:
    key = ec.generate_private_key(ec.SECP256R1())
    token, expiry = TokenGenerator(key, ISSUER, clock=lambda: NOW).generate(
        SA, [ISSUER], 3600, Bound(pod=POD, node=NODE)
    )
    assert expiry == NOW + 3600
    objects = Objects(("serviceaccounts", SA), ("pods", POD), ("nodes", NODE))
    result = await sa_authn(key, objects).authenticate_token(token, [ISSUER])
    assert result is not None
    assert result.user.name == "system:serviceaccount:default:builder"
    assert result.user.uid == "sa-uid"
    assert result.user.groups == ("system:serviceaccounts", "system:serviceaccounts:default")
    extra = result.user.extra
    assert extra["authentication.kubernetes.io/pod-name"] == ["web"]
    assert extra["authentication.kubernetes.io/pod-uid"] == ["pod-uid"]
    assert extra["authentication.kubernetes.io/node-name"] == ["n1"]
    assert extra["authentication.kubernetes.io/credential-id"][0].startswith("JTI=")
    assert result.audiences == (ISSUER,)


@pytest.mark.parametrize(
    ("case", "message"),
    [
        ("expired", "service account token has expired"),
        ("wrong signature", "error in cryptographic primitive"),
        ("wrong audience", f'token audiences ["other"] is invalid for the target audiences ["{ISSUER}"]'),
        ("deleted service account", 'serviceaccounts "builder" not found'),
        ("recreated service account", "service account UID (new-uid) does not match claim (sa-uid)"),
        ("deleted pod", "service account token has been invalidated"),
    ],
)
async def test_service_account_token_rejected(case: str, message: str) -> None:
    key = ec.generate_private_key(ec.SECP256R1())
    signer = ec.generate_private_key(ec.SECP256R1()) if case == "wrong signature" else key
    audiences = ["other"] if case == "wrong audience" else [ISSUER]
    bound = Bound(pod=POD) if case == "deleted pod" else Bound()
    token, _ = TokenGenerator(signer, ISSUER, clock=lambda: NOW).generate(SA, audiences, 600, bound)
    stored = {
        "deleted service account": [],
        "recreated service account": [("serviceaccounts", obj("builder", "new-uid"))],
    }.get(case, [("serviceaccounts", SA)])
    now = NOW + 600 + 61 if case == "expired" else NOW
    with pytest.raises(AuthenticationError) as raised:
        await sa_authn(key, Objects(*stored), now).authenticate_token(token, [ISSUER])
    assert str(raised.value) == message


async def test_tokens_of_other_issuers_or_not_jwts_are_not_mine() -> None:
    key = ec.generate_private_key(ec.SECP256R1())
    other, _ = TokenGenerator(key, "https://elsewhere", clock=lambda: NOW).generate(SA, [ISSUER], 600)
    authn = sa_authn(key, Objects(("serviceaccounts", SA)))
    assert await authn.authenticate_token(other, [ISSUER]) is None
    assert await authn.authenticate_token("abcdef.0123456789abcdef", [ISSUER]) is None


def test_jwt_roundtrip_and_tamper() -> None:
    key = ec.generate_private_key(ec.SECP256R1())
    token = jwt.sign({"sub": "x"}, key)
    assert jwt.verify(token, [key.public_key()]) == {"sub": "x"}
    head, _payload, signature = token.split(".")
    forged = jwt.b64url(b'{"sub":"admin"}')
    with pytest.raises(jwt.JWTError):
        jwt.verify(f"{head}.{forged}.{signature}", [key.public_key()])


def test_static_token_file(tmp_path: Path) -> None:
    path = tmp_path / "tokens.csv"
    path.write_text('t1,alice,1001,"dev,ops"\nt2,bob,1002\n,nobody,3\n')
    tokens = StaticTokens.from_csv(path)
    assert tokens.users["t1"] == UserInfo("alice", ("dev", "ops"), "1001")
    assert tokens.users["t2"] == UserInfo("bob", (), "1002")
    assert "" not in tokens.users
    path.write_text("t1,alice\n")
    with pytest.raises(
        TokenFileError, match=r"must have at least 3 columns \(token, user name, unique user ID\), found 2"
    ):
        StaticTokens.from_csv(path)


def secret(name_id: str, **data: str) -> dict[str, Any]:
    encoded = {k.replace("_", "-"): base64.b64encode(v.encode()).decode() for k, v in data.items()}
    return {
        "metadata": {"name": f"bootstrap-token-{name_id}", "namespace": "kube-system", "uid": "u"},
        "type": "bootstrap.kubernetes.io/token",
        "data": encoded,
    }


VALID = {
    "token_id": "abcdef",
    "token_secret": "0123456789abcdef",
    "usage_bootstrap_authentication": "true",
    "auth_extra_groups": "system:bootstrappers:kubeadm:default-node-token",
    "expiration": "2030-01-01T00:00:00Z",
}


@pytest.mark.parametrize(
    ("case", "changes", "token", "accepted"),
    [
        ("valid", {}, "abcdef.0123456789abcdef", True),
        ("wrong secret", {}, "abcdef.0123456789abcdee", False),
        ("expired", {"expiration": "2020-01-01T00:00:00Z"}, "abcdef.0123456789abcdef", False),
        (
            "not for authentication",
            {"usage_bootstrap_authentication": "false"},
            "abcdef.0123456789abcdef",
            False,
        ),
        ("bad extra group", {"auth_extra_groups": "system:masters"}, "abcdef.0123456789abcdef", False),
        ("unknown id", {}, "zzzzzz.0123456789abcdef", False),
    ],
)
async def test_bootstrap_tokens(case: str, changes: dict[str, str], token: str, accepted: bool) -> None:
    stored = secret("abcdef", **{**VALID, **changes})
    authn = BootstrapTokens(Objects(("secrets", stored)), clock=lambda: NOW)
    result = await authn.authenticate_token(token, [])
    if not accepted:
        assert result is None
        return
    assert result is not None
    assert result.user.name == "system:bootstrap:abcdef"
    assert result.user.groups == ("system:bootstrappers", "system:bootstrappers:kubeadm:default-node-token")


def scope(
    headers: Sequence[tuple[bytes, bytes]] = (), subject: list[tuple[str, str]] | None = None
) -> dict[str, Any]:
    out: dict[str, Any] = {"type": "http", "headers": list(headers)}
    if subject is not None:
        out["extensions"] = {"tls": {"client_subject": subject}}
    return out


async def test_request_authenticator_order_and_anonymous() -> None:
    tokens = AudienceAgnostic(StaticTokens({"t1": UserInfo("alice", ("dev",))}), [ISSUER])
    both = RequestAuthenticator(
        [X509Authenticator(), BearerToken(TokenUnion([tokens]), [ISSUER])], anonymous=True
    )
    cert = [("organizationName", "system:masters"), ("commonName", "admin")]
    assert await both.authenticate(scope(subject=cert)) == UserInfo(
        "admin", ("system:masters", "system:authenticated")
    )
    alice = await both.authenticate(scope([(b"authorization", b"Bearer t1")]))
    assert alice == UserInfo("alice", ("dev", "system:authenticated"))
    anonymous = await both.authenticate(scope())
    assert anonymous == UserInfo("system:anonymous", ("system:unauthenticated",))
    with pytest.raises(AuthenticationError, match=r"^invalid bearer token$"):
        await both.authenticate(scope([(b"authorization", b"Bearer nope")]))
    closed = RequestAuthenticator([X509Authenticator()], anonymous=False)
    assert await closed.authenticate(scope()) is None


def signed(key: ec.EllipticCurvePrivateKey, **changes: Any) -> str:
    """A valid token for SA with ``changes`` to its claims (None removes a claim)."""
    token, _ = TokenGenerator(key, ISSUER, clock=lambda: NOW).generate(SA, [ISSUER], 600)
    claims = {**jwt.unverified_claims(token), **changes}
    return jwt.sign({k: v for k, v in claims.items() if v is not None}, key)


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"exp": str(int(NOW) - 3600)}, "go-jose/go-jose/jwt: expected number for numeric date"),
        ({"exp": "never"}, "go-jose/go-jose/jwt: expected number for numeric date"),
        ({"exp": True}, "go-jose/go-jose/jwt: expected number for numeric date"),
        ({"exp": [NOW]}, "go-jose/go-jose/jwt: expected number for numeric date"),
        ({"exp": 10**400}, "go-jose/go-jose/jwt: expected number for numeric date"),
        ({"nbf": "0"}, "go-jose/go-jose/jwt: expected number for numeric date"),
        ({"iat": {"t": 1}}, "go-jose/go-jose/jwt: expected number for numeric date"),
        ({"iat": NOW + 3600}, "service account token is issued in the future"),
        ({"nbf": NOW + 3600}, "service account token is not valid yet"),
        ({"aud": 5}, "go-jose/go-jose/jwt: expected string or array value to unmarshal to Audience"),
        (
            {"aud": [ISSUER, 5]},
            "go-jose/go-jose/jwt: expected string or array value to unmarshal to Audience",
        ),
        ({"sub": 7}, "json: cannot unmarshal number into Go struct field Claims.sub of type string"),
        ({"jti": ["x"]}, "json: cannot unmarshal array into Go struct field Claims.jti of type string"),
    ],
)
async def test_claims_of_the_wrong_type_refuse_the_token(changes: dict[str, Any], message: str) -> None:
    """Issue 13 item 6: an ``exp`` that was a string was skipped, so the token never expired."""
    key = ec.generate_private_key(ec.SECP256R1())
    with pytest.raises(AuthenticationError) as raised:
        await sa_authn(key, Objects(("serviceaccounts", SA))).authenticate_token(
            signed(key, **changes), [ISSUER]
        )
    assert str(raised.value) == message


async def test_null_or_absent_time_claims_are_unset() -> None:
    key = ec.generate_private_key(ec.SECP256R1())
    authn = sa_authn(key, Objects(("serviceaccounts", SA)), now=NOW + 10**6)  # long after exp
    for token in (signed(key, exp=None, nbf=None, iat=None), signed(key, exp=NOW + 2 * 10**6, iat=NOW)):
        assert await authn.authenticate_token(token, [ISSUER]) is not None
