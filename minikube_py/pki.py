"""The cluster PKI: a CA, the apiserver serving certificate, client certificates and the
service-account signing key pair, kept as PEM files in one ``pki/`` directory.

Every key is EC P-256 (so service-account tokens will be ES256). File names follow kubeadm:
``ca.crt``/``ca.key``, ``apiserver.crt``/``apiserver.key``, ``sa.key``/``sa.pub``, and
``<name>.crt``/``<name>.key`` for client certificates.

The ``ensure_*`` functions are idempotent:

* The CA and ``sa.key`` are roots: created only when absent, otherwise reused as they are, so a
  restart keeps every kubeconfig and token valid. A half-present or unreadable root raises
  ``PKIError`` instead of being replaced, because replacing it would silently orphan everything
  issued from it.
* A leaf certificate is derived state: it is reissued whenever it is missing, unreadable, not
  issued by the current CA, within ``RENEW_BEFORE`` of expiry, or names other identities than
  the ones asked for; otherwise the existing files are reused untouched.

Private keys are written 0600, certificates 0644, each atomically (temp file, then rename).
"""

from __future__ import annotations

import ipaddress
import logging
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

from cryptography import x509
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

logger = logging.getLogger("pki")

CA_COMMON_NAME = "minikube-py-ca"
APISERVER_COMMON_NAME = "kube-apiserver"
APISERVER_DNS_NAMES = (
    "localhost",
    "kubernetes",
    "kubernetes.default",
    "kubernetes.default.svc",
    "kubernetes.default.svc.cluster.local",
)
# loopback and the `kubernetes` Service IP (the first address of the service range), as upstream
APISERVER_IP_ADDRESSES = ("127.0.0.1", "::1", "10.96.0.1")
ADMIN_USER = "kubernetes-admin"
ADMIN_GROUPS = ("system:masters",)
# The identity the apiserver presents to node agents (kubeadm's apiserver-kubelet-client).
KUBELET_CLIENT_USER = "kube-apiserver-kubelet-client"
KUBELET_CLIENT_GROUPS = ("kubeadm:cluster-admins",)

CA_VALIDITY = timedelta(days=3650)
LEAF_VALIDITY = timedelta(days=365)
RENEW_BEFORE = timedelta(days=30)
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
class ClusterPKI:
    """Paths of everything ``ensure_cluster_pki`` guarantees to exist."""

    directory: Path
    ca: CertKeyPair
    apiserver: CertKeyPair
    admin: CertKeyPair
    service_account_key: Path
    service_account_pub: Path
    kubelet_client: CertKeyPair


@dataclass(frozen=True, slots=True)
class CertificateAuthority:
    certificate: x509.Certificate
    key: PrivateKey


def ensure_cluster_pki(pki_dir: Path, *, now: datetime | None = None) -> ClusterPKI:
    """Create what is missing under ``pki_dir`` and reuse what is there (see module docstring).

    Besides the CA, the serving certificate and the service-account keys, this issues the
    ``admin`` client certificate (CN ``kubernetes-admin``, O ``system:masters``) and
    ``apiserver-kubelet-client``, the apiserver's client certificate for node agents (CN
    ``kube-apiserver-kubelet-client``, O ``kubeadm:cluster-admins``, as kubeadm issues it).
    """
    now = now or datetime.now(UTC)
    _make_private_dir(pki_dir)
    ca_pair = CertKeyPair(pki_dir / "ca.crt", pki_dir / "ca.key")
    ca = _ensure_ca(ca_pair, now)
    apiserver = CertKeyPair(pki_dir / "apiserver.crt", pki_dir / "apiserver.key")
    _ensure_leaf(
        apiserver,
        ca,
        now,
        wanted=lambda cert: _serving_names(cert) == _serving_names_wanted(),
        issue=lambda: issue_serving_certificate(ca, now=now),
    )
    sa_key, sa_pub = _ensure_service_account_keys(pki_dir)
    admin = _ensure_client(pki_dir, ca, "admin", ADMIN_USER, ADMIN_GROUPS, now)
    kubelet_client = _ensure_client(
        pki_dir, ca, "apiserver-kubelet-client", KUBELET_CLIENT_USER, KUBELET_CLIENT_GROUPS, now
    )
    return ClusterPKI(pki_dir, ca_pair, apiserver, admin, sa_key, sa_pub, kubelet_client)


def ensure_client_certificate(
    pki: ClusterPKI,
    name: str,
    *,
    user: str,
    groups: Sequence[str] = (),
    now: datetime | None = None,
) -> CertKeyPair:
    """Ensure ``<name>.crt``/``<name>.key`` hold a client certificate for ``user`` in
    ``groups``, issued by the cluster CA (reissued under the leaf rules)."""
    ca = load_certificate_authority(pki.ca)
    return _ensure_client(pki.directory, ca, name, user, groups, now or datetime.now(UTC))


def load_certificate_authority(pair: CertKeyPair) -> CertificateAuthority:
    """Load a CA pair; raise PKIError when it is unreadable or the key does not match."""
    try:
        certificate, key = _load_pair(pair)
    except (OSError, ValueError) as err:
        raise PKIError(f"cannot load cluster CA {pair.cert}: {_reason(err)}") from err
    if not _matches(certificate, key):
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
        raise PKIError(f"cannot write {path}: {_reason(err)}") from err


# CA and service-account roots


def _ensure_ca(pair: CertKeyPair, now: datetime) -> CertificateAuthority:
    present = [p for p in (pair.cert, pair.key) if p.exists()]
    if len(present) == 1:
        missing = pair.key if present[0] == pair.cert else pair.cert
        raise PKIError(f"{present[0]} exists but {missing} does not: restore it or remove both")
    if present:
        return load_certificate_authority(pair)
    ca = new_certificate_authority(now=now)
    _write_pair(pair, ca.certificate, ca.key)
    logger.info("created cluster CA %s", pair.cert)
    return ca


def _ensure_service_account_keys(pki_dir: Path) -> tuple[Path, Path]:
    key_path, pub_path = pki_dir / "sa.key", pki_dir / "sa.pub"
    if key_path.exists():
        try:
            key = _load_key(key_path)
        except (OSError, ValueError) as err:
            raise PKIError(f"cannot load service-account key {key_path}: {_reason(err)}") from err
    else:
        key = ec.generate_private_key(ec.SECP256R1())
        write_file(key_path, _key_pem(key))
        logger.info("created service-account signing key %s", key_path)
    public = key.public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    if not pub_path.exists() or pub_path.read_bytes() != public:
        write_file(pub_path, public, mode=0o644)
    return key_path, pub_path


# leaves


def _ensure_client(
    pki_dir: Path,
    ca: CertificateAuthority,
    name: str,
    user: str,
    groups: Sequence[str],
    now: datetime,
) -> CertKeyPair:
    pair = CertKeyPair(pki_dir / f"{name}.crt", pki_dir / f"{name}.key")
    _ensure_leaf(
        pair,
        ca,
        now,
        wanted=lambda cert: _client_identity(cert) == (user, list(groups)),
        issue=lambda: issue_client_certificate(ca, user=user, groups=groups, now=now),
    )
    return pair


def _ensure_leaf(
    pair: CertKeyPair,
    ca: CertificateAuthority,
    now: datetime,
    *,
    wanted: Callable[[x509.Certificate], bool],
    issue: Callable[[], tuple[x509.Certificate, PrivateKey]],
) -> None:
    reason = _leaf_problem(pair, ca, now, wanted)
    if reason is None:
        return
    certificate, key = issue()
    _write_pair(pair, certificate, key)
    logger.info("issued %s (%s)", pair.cert, reason)


def _leaf_problem(
    pair: CertKeyPair,
    ca: CertificateAuthority,
    now: datetime,
    wanted: Callable[[x509.Certificate], bool],
) -> str | None:
    """Why the leaf must be (re)issued, or None when the existing one is fine."""
    if not pair.cert.exists() or not pair.key.exists():
        return "new"
    try:
        certificate, key = _load_pair(pair)
        certificate.verify_directly_issued_by(ca.certificate)
    except (OSError, ValueError, TypeError, InvalidSignature):
        return "replacing one that is unreadable or not from the cluster CA"
    if not _matches(certificate, key):
        return "replacing one whose key does not match"
    if certificate.not_valid_after_utc - now < RENEW_BEFORE:
        return "replacing one that expires soon"
    if not wanted(certificate):
        return "replacing one with other names"
    return None


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


def _serving_names(certificate: x509.Certificate) -> tuple[set[str], set[str]]:
    try:
        sans = certificate.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    except x509.ExtensionNotFound:
        return set(), set()
    ips = {str(ip) for ip in sans.get_values_for_type(x509.IPAddress)}
    return set(sans.get_values_for_type(x509.DNSName)), ips


def _serving_names_wanted() -> tuple[set[str], set[str]]:
    return set(APISERVER_DNS_NAMES), {str(ipaddress.ip_address(ip)) for ip in APISERVER_IP_ADDRESSES}


def _client_identity(certificate: x509.Certificate) -> tuple[str, list[str]]:
    subject = certificate.subject
    names = [str(a.value) for a in subject.get_attributes_for_oid(NameOID.COMMON_NAME)]
    groups = [str(a.value) for a in subject.get_attributes_for_oid(NameOID.ORGANIZATION_NAME)]
    return (names[0] if names else ""), groups


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


def _load_pair(pair: CertKeyPair) -> tuple[x509.Certificate, PrivateKey]:
    return x509.load_pem_x509_certificate(pair.cert.read_bytes()), _load_key(pair.key)


def _load_key(path: Path) -> PrivateKey:
    key = serialization.load_pem_private_key(path.read_bytes(), password=None)
    if not isinstance(key, ec.EllipticCurvePrivateKey):
        raise ValueError(f"{path} is not an EC private key")
    return key


def _write_pair(pair: CertKeyPair, certificate: x509.Certificate, key: PrivateKey) -> None:
    write_file(pair.key, _key_pem(key))
    write_file(pair.cert, certificate.public_bytes(serialization.Encoding.PEM), mode=0o644)


def _key_pem(key: PrivateKey) -> bytes:
    return key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )


def _matches(certificate: x509.Certificate, key: PrivateKey) -> bool:
    spki = serialization.PublicFormat.SubjectPublicKeyInfo
    mine = key.public_key().public_bytes(serialization.Encoding.DER, spki)
    return certificate.public_key().public_bytes(serialization.Encoding.DER, spki) == mine


def _make_private_dir(path: Path) -> None:
    try:
        path.mkdir(mode=0o700, parents=True, exist_ok=True)
    except OSError as err:
        raise PKIError(f"cannot create {path}: {_reason(err)}") from err


def _reason(err: Exception) -> str:
    if isinstance(err, OSError) and err.strerror:
        return err.strerror.lower()
    return str(err).splitlines()[0] if str(err) else type(err).__name__
