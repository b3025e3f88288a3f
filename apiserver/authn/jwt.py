"""Compact JWS (JWT) signing and verification with ``cryptography``: ES256 for EC P-256 keys
(the cluster's ``sa.key``), RS256 for RSA keys. Only what service-account tokens need."""

from __future__ import annotations

import base64
import hashlib
import json
from typing import Any

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, padding, rsa
from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature, encode_dss_signature

SigningKey = ec.EllipticCurvePrivateKey | rsa.RSAPrivateKey
VerifyingKey = ec.EllipticCurvePublicKey | rsa.RSAPublicKey
P256_BYTES = 32


class JWTError(Exception):
    """Not a well-formed JWT, or its signature does not verify."""


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def b64url_decode(text: str) -> bytes:
    try:
        return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
    except ValueError as err:
        raise JWTError("malformed base64url") from err


def algorithm(key: SigningKey | VerifyingKey) -> str:
    return "RS256" if isinstance(key, rsa.RSAPrivateKey | rsa.RSAPublicKey) else "ES256"


def key_id(public: VerifyingKey) -> str:
    """Upstream's ``kid``: the unpadded base64url SHA-256 of the DER public key."""
    der = public.public_bytes(serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo)
    return b64url(hashlib.sha256(der).digest())


def sign(claims: dict[str, Any], key: SigningKey) -> str:
    header = {"alg": algorithm(key), "kid": key_id(key.public_key())}
    signing_input = f"{b64url(_json(header))}.{b64url(_json(claims))}".encode()
    if isinstance(key, rsa.RSAPrivateKey):
        signature = key.sign(signing_input, padding.PKCS1v15(), hashes.SHA256())
    else:
        r, s = decode_dss_signature(key.sign(signing_input, ec.ECDSA(hashes.SHA256())))
        signature = r.to_bytes(P256_BYTES, "big") + s.to_bytes(P256_BYTES, "big")
    return f"{signing_input.decode()}.{b64url(signature)}"


def unverified_claims(token: str) -> dict[str, Any]:
    """The payload without checking the signature (to route a token by its issuer)."""
    parts = token.split(".")
    if len(parts) != 3:
        raise JWTError("not a compact JWS")
    header, claims = _object(parts[0]), _object(parts[1])
    if header.get("alg") not in ("ES256", "RS256"):
        raise JWTError("unsupported signing algorithm")
    return claims


def verify(token: str, keys: list[VerifyingKey]) -> dict[str, Any]:
    """The claims when one of ``keys`` verifies the signature, else ``JWTError``."""
    claims = unverified_claims(token)
    head, payload, signature = token.split(".")
    alg = _object(head).get("alg")
    signing_input, raw = f"{head}.{payload}".encode(), b64url_decode(signature)
    for key in keys:
        if algorithm(key) != alg:
            continue
        try:
            if isinstance(key, rsa.RSAPublicKey):
                key.verify(raw, signing_input, padding.PKCS1v15(), hashes.SHA256())
            else:
                if len(raw) != 2 * P256_BYTES:
                    continue
                r, s = int.from_bytes(raw[:P256_BYTES], "big"), int.from_bytes(raw[P256_BYTES:], "big")
                key.verify(encode_dss_signature(r, s), signing_input, ec.ECDSA(hashes.SHA256()))
        except InvalidSignature:
            continue
        return claims
    raise JWTError("error in cryptographic primitive")


def _json(value: dict[str, Any]) -> bytes:
    return json.dumps(value, separators=(",", ":")).encode()


def _object(segment: str) -> dict[str, Any]:
    try:
        value = json.loads(b64url_decode(segment))
    except (ValueError, UnicodeDecodeError) as err:
        raise JWTError("malformed JSON segment") from err
    if not isinstance(value, dict):
        raise JWTError("a JWT segment must be a JSON object")
    return value
