"""Key and certificate primitives of the cluster PKI (kubeadm's ``pkiutil``): the names its
certificates carry, EC P-256 keys, a self-signed CA, serving and client leaves issued by it, and
PEM files read and written atomically. What goes where, and when it is reissued, is ``pki``'s.

Every key is EC P-256 (so service-account tokens will be ES256). Private keys are written 0600,
certificates 0644, each atomically (temp file, then rename).
"""

from __future__ import annotations

import ipaddress
import os
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

from minikube_py.network import DEFAULT_SERVICE_CIDR, kubernetes_service_ip

CA_COMMON_NAME = "minikube-py-ca"
APISERVER_COMMON_NAME = "kube-apiserver"
APISERVER_DNS_NAMES = (
    "localhost",
    "kubernetes",
    "kubernetes.default",
    "kubernetes.default.svc",
    "kubernetes.default.svc.cluster.local",
)
# loopback, and the `kubernetes` Service IP (the first address of the service range, as upstream)
APISERVER_LOOPBACK_ADDRESSES = ("127.0.0.1", "::1")
APISERVER_IP_ADDRESSES = (*APISERVER_LOOPBACK_ADDRESSES, kubernetes_service_ip(DEFAULT_SERVICE_CIDR))
ADMIN_USER = "kubernetes-admin"
ADMIN_GROUPS = ("system:masters",)
# The identity the apiserver presents to node agents (kubeadm's apiserver-kubelet-client).
KUBELET_CLIENT_USER = "kube-apiserver-kubelet-client"
KUBELET_CLIENT_GROUPS = ("kubeadm:cluster-admins",)

CA_VALIDITY = timedelta(days=3650)
LEAF_VALIDITY = timedelta(days=365)
# Like client-go's self-signed helpers: valid an hour earlier to tolerate clock skew.
BACKDATE = timedelta(hours=1)

PrivateKey = ec.EllipticCurvePrivateKey


class PKIError(Exception):
    """A PKI file cannot be read, trusted or written. The message is one line."""


@dataclass(frozen=True, slots=True)
class CertKeyPair:
    """Paths of a PEM certificate and its PEM private key."""

    cert: Path
    key: Path


@dataclass(frozen=True, slots=True)
class CertificateAuthority:
    certificate: x509.Certificate
    key: PrivateKey


def load_certificate_authority(pair: CertKeyPair) -> CertificateAuthority:
    """Load a CA pair; raise PKIError when it is unreadable or the key does not match."""
    try:
        certificate, key = load_pair(pair)
    except (OSError, ValueError) as err:
        raise PKIError(f"cannot load cluster CA {pair.cert}: {error_reason(err)}") from err
    if not matches(certificate, key):
        raise PKIError(f"cluster CA key {pair.key} does not match {pair.cert}")
    return CertificateAuthority(certificate, key)


def new_certificate_authority(
    common_name: str = CA_COMMON_NAME, *, now: datetime | None = None
) -> CertificateAuthority:
    """A self-signed CA valid for ``CA_VALIDITY``."""
    now = now or datetime.now(UTC)
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common_name)])
    key_usage = _key_usage(signs_certificates=True)
    certificate = (
        _builder(name, name, key.public_key(), now, CA_VALIDITY)
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .add_extension(key_usage, critical=True)
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), critical=False)
        .sign(key, hashes.SHA256())
    )
    return CertificateAuthority(certificate, key)


def issue_serving_certificate(
    ca: CertificateAuthority,
    *,
    dns_names: Sequence[str] = APISERVER_DNS_NAMES,
    ip_addresses: Sequence[str] = APISERVER_IP_ADDRESSES,
    now: datetime | None = None,
) -> tuple[x509.Certificate, PrivateKey]:
    """A serverAuth certificate for the apiserver with the given subject alternative names."""
    sans: list[x509.GeneralName] = [x509.DNSName(n) for n in dns_names]
    sans += [x509.IPAddress(ipaddress.ip_address(ip)) for ip in ip_addresses]
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, APISERVER_COMMON_NAME)])
    return _issue_leaf(
        ca,
        subject,
        ExtendedKeyUsageOID.SERVER_AUTH,
        now or datetime.now(UTC),
        x509.SubjectAlternativeName(sans),
    )


def issue_client_certificate(
    ca: CertificateAuthority,
    *,
    user: str,
    groups: Sequence[str] = (),
    now: datetime | None = None,
) -> tuple[x509.Certificate, PrivateKey]:
    """A clientAuth certificate: CN is the user name, each O a group (upstream's x509 authn)."""
    attributes = [x509.NameAttribute(NameOID.ORGANIZATION_NAME, g) for g in groups]
    attributes.append(x509.NameAttribute(NameOID.COMMON_NAME, user))
    subject = x509.Name(attributes)
    return _issue_leaf(ca, subject, ExtendedKeyUsageOID.CLIENT_AUTH, now or datetime.now(UTC))


def write_file(path: Path, data: bytes, *, mode: int = 0o600) -> None:
    """Replace ``path`` atomically with ``data``, created with ``mode`` (0600: a secret)."""
    tmp = path.with_name(f".{path.name}.tmp")
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, mode)
        with os.fdopen(fd, "wb") as f:
            os.fchmod(f.fileno(), mode)
            f.write(data)
        os.replace(tmp, path)
    except OSError as err:
        raise PKIError(f"cannot write {path}: {error_reason(err)}") from err


# certificate contents


def _key_usage(*, signs_certificates: bool) -> x509.KeyUsage:
    """Digital signatures always (ECDSA); certificate and CRL signing for the CA only."""
    return x509.KeyUsage(
        digital_signature=True,
        content_commitment=False,
        key_encipherment=False,
        data_encipherment=False,
        key_agreement=False,
        key_cert_sign=signs_certificates,
        crl_sign=signs_certificates,
        encipher_only=False,
        decipher_only=False,
    )


def _issue_leaf(
    ca: CertificateAuthority,
    subject: x509.Name,
    usage: x509.ObjectIdentifier,
    now: datetime,
    sans: x509.SubjectAlternativeName | None = None,
) -> tuple[x509.Certificate, PrivateKey]:
    key = ec.generate_private_key(ec.SECP256R1())
    key_usage = _key_usage(signs_certificates=False)
    ca_ski = ca.certificate.extensions.get_extension_for_class(x509.SubjectKeyIdentifier).value
    builder = (
        _builder(subject, ca.certificate.subject, key.public_key(), now, LEAF_VALIDITY)
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(key_usage, critical=True)
        .add_extension(x509.ExtendedKeyUsage([usage]), critical=False)
        .add_extension(x509.AuthorityKeyIdentifier.from_issuer_subject_key_identifier(ca_ski), critical=False)
    )
    if sans is not None:
        builder = builder.add_extension(sans, critical=False)
    return builder.sign(ca.key, hashes.SHA256()), key


# files and encodings


def _builder(
    subject: x509.Name,
    issuer: x509.Name,
    public_key: ec.EllipticCurvePublicKey,
    now: datetime,
    validity: timedelta,
) -> x509.CertificateBuilder:
    return (
        x509.CertificateBuilder()
        .subject_name(subject)
        .issuer_name(issuer)
        .public_key(public_key)
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - BACKDATE)
        .not_valid_after(now + validity)
    )


def load_pair(pair: CertKeyPair) -> tuple[x509.Certificate, PrivateKey]:
    """The certificate and key of ``pair``; OSError or ValueError when unreadable."""
    return x509.load_pem_x509_certificate(pair.cert.read_bytes()), load_key(pair.key)


def load_key(path: Path) -> PrivateKey:
    key = serialization.load_pem_private_key(path.read_bytes(), password=None)
    if not isinstance(key, ec.EllipticCurvePrivateKey):
        raise ValueError(f"{path} is not an EC private key")
    return key


def write_pair(pair: CertKeyPair, certificate: x509.Certificate, key: PrivateKey) -> None:
    write_file(pair.key, key_pem(key))
    write_file(pair.cert, certificate.public_bytes(serialization.Encoding.PEM), mode=0o644)


def key_pem(key: PrivateKey) -> bytes:
    return key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )


def matches(certificate: x509.Certificate, key: PrivateKey) -> bool:
    """Whether ``key`` is the private half of ``certificate``'s public key."""
    spki = serialization.PublicFormat.SubjectPublicKeyInfo
    mine = key.public_key().public_bytes(serialization.Encoding.DER, spki)
    return certificate.public_key().public_bytes(serialization.Encoding.DER, spki) == mine


def error_reason(err: Exception) -> str:
    """``err`` as the one-line cause a ``PKIError`` message ends with."""
    if isinstance(err, OSError) and err.strerror:
        return err.strerror.lower()
    return str(err).splitlines()[0] if str(err) else type(err).__name__
