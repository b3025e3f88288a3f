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

Private keys are written 0600, certificates 0644, each atomically (temp file, then rename). The
key and certificate primitives this layout is built from are in ``pkiutil``.
"""

from __future__ import annotations

import ipaddress
import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

from cryptography import x509
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from minikube_py.pkiutil import (
    ADMIN_GROUPS,
    ADMIN_USER,
    APISERVER_COMMON_NAME,
    APISERVER_DNS_NAMES,
    APISERVER_IP_ADDRESSES,
    APISERVER_LOOPBACK_ADDRESSES,
    BACKDATE,
    CA_COMMON_NAME,
    CA_VALIDITY,
    KUBELET_CLIENT_GROUPS,
    KUBELET_CLIENT_USER,
    LEAF_VALIDITY,
    CertificateAuthority,
    CertKeyPair,
    PKIError,
    PrivateKey,
    error_reason,
    issue_client_certificate,
    issue_serving_certificate,
    key_pem,
    load_certificate_authority,
    load_key,
    load_pair,
    matches,
    new_certificate_authority,
    write_file,
    write_pair,
)

# The primitives' names stay importable from here, where the cluster PKI's users look for them.
__all__ = [
    "ADMIN_GROUPS",
    "ADMIN_USER",
    "APISERVER_COMMON_NAME",
    "APISERVER_DNS_NAMES",
    "APISERVER_IP_ADDRESSES",
    "BACKDATE",
    "CA_COMMON_NAME",
    "CA_VALIDITY",
    "KUBELET_CLIENT_GROUPS",
    "KUBELET_CLIENT_USER",
    "LEAF_VALIDITY",
    "RENEW_BEFORE",
    "CertKeyPair",
    "CertificateAuthority",
    "ClusterPKI",
    "PKIError",
    "PrivateKey",
    "ensure_client_certificate",
    "ensure_cluster_pki",
    "issue_client_certificate",
    "issue_serving_certificate",
    "load_certificate_authority",
    "new_certificate_authority",
    "write_file",
]

logger = logging.getLogger("pki")

# A leaf this close to expiry is reissued.
RENEW_BEFORE = timedelta(days=30)


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


def ensure_cluster_pki(
    pki_dir: Path, *, now: datetime | None = None, service_ip: str | None = None
) -> ClusterPKI:
    """Create what is missing under ``pki_dir`` and reuse what is there (see module docstring).

    The serving certificate names ``localhost``, ``kubernetes``, ``kubernetes.default``,
    ``kubernetes.default.svc``, ``kubernetes.default.svc.cluster.local``, ``127.0.0.1``, ``::1``
    and ``service_ip``, the ``kubernetes`` Service's address (so a pod reaching the API
    through the Service verifies it); one naming another Service address is reissued. With
    ``service_ip`` None any one Service address will do (a new certificate gets the default
    range's): callers that only want the paths leave a running cluster's certificate alone.

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
        wanted=lambda cert: _serving_names_fit(_serving_names(cert), service_ip),
        issue=lambda: issue_serving_certificate(ca, ip_addresses=_serving_ips(service_ip), now=now),
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


# CA and service-account roots


def _ensure_ca(pair: CertKeyPair, now: datetime) -> CertificateAuthority:
    present = [p for p in (pair.cert, pair.key) if p.exists()]
    if len(present) == 1:
        missing = pair.key if present[0] == pair.cert else pair.cert
        raise PKIError(f"{present[0]} exists but {missing} does not: restore it or remove both")
    if present:
        return load_certificate_authority(pair)
    ca = new_certificate_authority(now=now)
    write_pair(pair, ca.certificate, ca.key)
    logger.info("created cluster CA %s", pair.cert)
    return ca


def _ensure_service_account_keys(pki_dir: Path) -> tuple[Path, Path]:
    key_path, pub_path = pki_dir / "sa.key", pki_dir / "sa.pub"
    if key_path.exists():
        try:
            key = load_key(key_path)
        except (OSError, ValueError) as err:
            raise PKIError(f"cannot load service-account key {key_path}: {error_reason(err)}") from err
    else:
        key = ec.generate_private_key(ec.SECP256R1())
        write_file(key_path, key_pem(key))
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
    write_pair(pair, certificate, key)
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
        certificate, key = load_pair(pair)
        certificate.verify_directly_issued_by(ca.certificate)
    except (OSError, ValueError, TypeError, InvalidSignature):
        return "replacing one that is unreadable or not from the cluster CA"
    if not matches(certificate, key):
        return "replacing one whose key does not match"
    if certificate.not_valid_after_utc - now < RENEW_BEFORE:
        return "replacing one that expires soon"
    if not wanted(certificate):
        return "replacing one with other names"
    return None


def _serving_names(certificate: x509.Certificate) -> tuple[set[str], set[str]]:
    try:
        sans = certificate.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    except x509.ExtensionNotFound:
        return set(), set()
    ips = {str(ip) for ip in sans.get_values_for_type(x509.IPAddress)}
    return set(sans.get_values_for_type(x509.DNSName)), ips


def _serving_ips(service_ip: str | None) -> tuple[str, ...]:
    return APISERVER_IP_ADDRESSES if service_ip is None else (*APISERVER_LOOPBACK_ADDRESSES, service_ip)


def _serving_names_fit(names: tuple[set[str], set[str]], service_ip: str | None) -> bool:
    dns_names, ips = names
    loopback = {str(ipaddress.ip_address(ip)) for ip in APISERVER_LOOPBACK_ADDRESSES}
    if dns_names != set(APISERVER_DNS_NAMES) or not loopback <= ips:
        return False
    if service_ip is None:
        return len(ips - loopback) == 1
    return ips == loopback | {str(ipaddress.ip_address(service_ip))}


def _client_identity(certificate: x509.Certificate) -> tuple[str, list[str]]:
    subject = certificate.subject
    names = [str(a.value) for a in subject.get_attributes_for_oid(NameOID.COMMON_NAME)]
    groups = [str(a.value) for a in subject.get_attributes_for_oid(NameOID.ORGANIZATION_NAME)]
    return (names[0] if names else ""), groups


# the directory


def _make_private_dir(path: Path) -> None:
    try:
        path.mkdir(mode=0o700, parents=True, exist_ok=True)
    except OSError as err:
        raise PKIError(f"cannot create {path}: {error_reason(err)}") from err
