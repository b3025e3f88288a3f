"""minikube_py.pki: idempotent cluster PKI over a directory."""

from __future__ import annotations

import ipaddress
import ssl
import stat
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import serialization
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

from minikube_py.pki import (
    APISERVER_DNS_NAMES,
    CA_COMMON_NAME,
    LEAF_VALIDITY,
    ClusterPKI,
    PKIError,
    ensure_client_certificate,
    ensure_cluster_pki,
)
from minikube_py.pkiutil import issue_serving_certificate, load_certificate_authority, write_pair


def load(path: Path) -> x509.Certificate:
    return x509.load_pem_x509_certificate(path.read_bytes())


def eku(cert: x509.Certificate) -> list[x509.ObjectIdentifier]:
    return list(cert.extensions.get_extension_for_class(x509.ExtendedKeyUsage).value)


def snapshot(pki: ClusterPKI) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(pki.directory.iterdir())}


@pytest.fixture
def pki(tmp_path: Path) -> ClusterPKI:
    return ensure_cluster_pki(tmp_path / "pki")


def test_creates_every_file_with_private_keys_0600(pki: ClusterPKI) -> None:
    modes = {p.name: stat.S_IMODE(p.stat().st_mode) for p in pki.directory.iterdir()}
    assert modes == {
        "ca.crt": 0o644,
        "ca.key": 0o600,
        "apiserver.crt": 0o644,
        "apiserver.key": 0o600,
        "admin.crt": 0o644,
        "admin.key": 0o600,
        "apiserver-kubelet-client.crt": 0o644,
        "apiserver-kubelet-client.key": 0o600,
        "sa.key": 0o600,
        "sa.pub": 0o644,
    }
    assert stat.S_IMODE(pki.directory.stat().st_mode) == 0o700


def test_second_call_reuses_everything(pki: ClusterPKI) -> None:
    before = snapshot(pki)
    again = ensure_cluster_pki(pki.directory)
    assert again == pki
    assert snapshot(again) == before


def test_ca_is_self_signed_ten_year_ec_p256(pki: ClusterPKI) -> None:
    ca = load(pki.ca.cert)
    assert ca.subject.get_attributes_for_oid(NameOID.COMMON_NAME)[0].value == CA_COMMON_NAME
    assert ca.issuer == ca.subject
    ca.verify_directly_issued_by(ca)
    assert ca.extensions.get_extension_for_class(x509.BasicConstraints).value.ca
    assert ca.not_valid_after_utc - ca.not_valid_before_utc >= timedelta(days=3650)
    assert ca.public_key().curve.name == "secp256r1"  # type: ignore[union-attr]


def test_serving_certificate_verifies_against_ca_with_the_sans(pki: ClusterPKI) -> None:
    cert = load(pki.apiserver.cert)
    cert.verify_directly_issued_by(load(pki.ca.cert))
    sans = cert.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    assert sorted(sans.get_values_for_type(x509.DNSName)) == sorted(APISERVER_DNS_NAMES)
    assert set(sans.get_values_for_type(x509.IPAddress)) == {
        ipaddress.ip_address("127.0.0.1"),
        ipaddress.ip_address("::1"),
        ipaddress.ip_address("127.96.0.1"),  # the kubernetes Service of the default range
    }
    assert eku(cert) == [ExtendedKeyUsageOID.SERVER_AUTH]
    assert not cert.extensions.get_extension_for_class(x509.BasicConstraints).value.ca


HOSTNAMES = ["localhost", "kubernetes", "kubernetes.default", "kubernetes.default.svc"]
HOSTNAMES += ["kubernetes.default.svc.cluster.local", "127.0.0.1", "::1", "127.96.0.1"]


@pytest.mark.parametrize("hostname", HOSTNAMES)
def test_openssl_accepts_serving_certificate_for(pki: ClusterPKI, hostname: str) -> None:
    assert handshake(pki, hostname)["subject"] == ((("commonName", "kube-apiserver"),),)


def test_the_service_address_follows_the_service_range(pki: ClusterPKI) -> None:
    """A pod reaching the API at the kubernetes Service of the configured range verifies it;
    a range change reissues the certificate, and a caller that only wants the paths
    (service_ip None) leaves whichever one is there."""
    moved = ensure_cluster_pki(pki.directory, service_ip="127.70.128.1")
    assert handshake(moved, "127.70.128.1")
    with pytest.raises(ssl.SSLCertVerificationError):
        handshake(moved, "127.96.0.1")
    before = snapshot(moved)
    ensure_cluster_pki(pki.directory)
    assert snapshot(moved) == before
    ensure_cluster_pki(pki.directory, service_ip="127.70.128.1")
    assert snapshot(moved) == before


def test_a_certificate_of_an_older_version_is_reissued(tmp_path: Path) -> None:
    """Data dirs of older versions name 10.96.0.1 (the old range): up asks for the new one."""
    pki = ensure_cluster_pki(tmp_path / "pki")
    ca = load_certificate_authority(pki.ca)
    write_pair(pki.apiserver, *issue_serving_certificate(ca, ip_addresses=("127.0.0.1", "::1", "10.96.0.1")))
    ensure_cluster_pki(tmp_path / "pki", service_ip="127.96.0.1")
    assert handshake(pki, "127.96.0.1")
    with pytest.raises(ssl.SSLCertVerificationError):
        handshake(pki, "10.96.0.1")


def handshake(pki: ClusterPKI, hostname: str) -> dict[str, Any]:
    """The peer certificate a client verifying ``hostname`` against the CA accepts."""
    server = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    server.load_cert_chain(pki.apiserver.cert, pki.apiserver.key)
    client = ssl.create_default_context(cafile=str(pki.ca.cert))
    client_end, server_end = ssl.MemoryBIO(), ssl.MemoryBIO()
    c = client.wrap_bio(server_end, client_end, server_hostname=hostname)
    s = server.wrap_bio(client_end, server_end, server_side=True)
    for _ in range(10):  # drive the handshake over memory BIOs until both sides finish
        done = 0
        for side in (c, s):
            try:
                side.do_handshake()
                done += 1
            except ssl.SSLWantReadError:
                pass
        if done == 2:
            break
    peer = c.getpeercert()
    assert peer is not None
    return dict(peer)


def test_admin_client_certificate(pki: ClusterPKI) -> None:
    cert = load(pki.admin.cert)
    cert.verify_directly_issued_by(load(pki.ca.cert))
    assert cert.subject.get_attributes_for_oid(NameOID.COMMON_NAME)[0].value == "kubernetes-admin"
    orgs = [a.value for a in cert.subject.get_attributes_for_oid(NameOID.ORGANIZATION_NAME)]
    assert orgs == ["system:masters"]
    assert eku(cert) == [ExtendedKeyUsageOID.CLIENT_AUTH]


def test_kubelet_client_certificate_is_kubeadms(pki: ClusterPKI) -> None:
    cert = load(pki.kubelet_client.cert)
    cert.verify_directly_issued_by(load(pki.ca.cert))
    assert pki.kubelet_client.cert.name == "apiserver-kubelet-client.crt"
    names = [a.value for a in cert.subject.get_attributes_for_oid(NameOID.COMMON_NAME)]
    assert names == ["kube-apiserver-kubelet-client"]
    orgs = [a.value for a in cert.subject.get_attributes_for_oid(NameOID.ORGANIZATION_NAME)]
    assert orgs == ["kubeadm:cluster-admins"]
    assert eku(cert) == [ExtendedKeyUsageOID.CLIENT_AUTH]


def test_client_certificate_names_user_and_groups(pki: ClusterPKI) -> None:
    pair = ensure_client_certificate(pki, "scheduler", user="system:kube-scheduler", groups=["a", "b"])
    cert = load(pair.cert)
    assert cert.subject.get_attributes_for_oid(NameOID.COMMON_NAME)[0].value == "system:kube-scheduler"
    assert [a.value for a in cert.subject.get_attributes_for_oid(NameOID.ORGANIZATION_NAME)] == ["a", "b"]
    first = pair.cert.read_bytes()
    ensure_client_certificate(pki, "scheduler", user="system:kube-scheduler", groups=["a", "b"])
    assert pair.cert.read_bytes() == first
    ensure_client_certificate(pki, "scheduler", user="system:kube-scheduler", groups=["a"])
    assert pair.cert.read_bytes() != first


def test_service_account_key_pair_matches(pki: ClusterPKI) -> None:
    key = serialization.load_pem_private_key(pki.service_account_key.read_bytes(), None)
    public = serialization.load_pem_public_key(pki.service_account_pub.read_bytes())
    assert key.public_key() == public
    pki.service_account_pub.unlink()
    ensure_cluster_pki(pki.directory)
    assert serialization.load_pem_public_key(pki.service_account_pub.read_bytes()) == public


def test_leaf_expiring_soon_is_reissued_by_the_same_ca(pki: ClusterPKI) -> None:
    before = snapshot(pki)
    later = datetime.now(UTC) + LEAF_VALIDITY - timedelta(days=10)
    ensure_cluster_pki(pki.directory, now=later)
    after = snapshot(pki)
    assert after["ca.crt"] == before["ca.crt"]
    assert after["sa.key"] == before["sa.key"]
    assert after["apiserver.crt"] != before["apiserver.crt"]
    assert after["admin.crt"] != before["admin.crt"]
    assert load(pki.apiserver.cert).not_valid_after_utc > later + timedelta(days=300)


def test_leaves_are_reissued_when_the_ca_is_replaced(pki: ClusterPKI) -> None:
    pki.ca.cert.unlink()
    pki.ca.key.unlink()
    ensure_cluster_pki(pki.directory)
    ca = load(pki.ca.cert)
    load(pki.apiserver.cert).verify_directly_issued_by(ca)
    load(pki.admin.cert).verify_directly_issued_by(ca)


def test_corrupt_leaf_is_reissued(pki: ClusterPKI) -> None:
    pki.apiserver.cert.write_text("garbage")
    ensure_cluster_pki(pki.directory)
    load(pki.apiserver.cert).verify_directly_issued_by(load(pki.ca.cert))


@pytest.mark.parametrize(
    ("damage", "message"),
    [
        (lambda p: p.ca.key.unlink(), "exists but"),
        (lambda p: p.ca.cert.write_text("garbage"), "cannot load cluster CA"),
        (lambda p: p.service_account_key.write_text("garbage"), "cannot load service-account key"),
    ],
    ids=["half-present CA", "corrupt CA", "corrupt sa.key"],
)
def test_damaged_roots_are_errors_not_replaced(pki: ClusterPKI, damage: object, message: str) -> None:
    damage(pki)  # type: ignore[operator]
    with pytest.raises(PKIError, match=message) as err:
        ensure_cluster_pki(pki.directory)
    assert "\n" not in str(err.value)


def test_unwritable_location_is_a_pki_error(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("")
    with pytest.raises(PKIError, match="cannot create"):
        ensure_cluster_pki(tmp_path / "file" / "pki")
