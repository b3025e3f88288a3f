"""TLS for the agent's HTTPS API: its serving certificate.

``ensure_serving_certificate`` issues ``<directory>/kubelet.crt``/``kubelet.key`` from the cluster
CA for the node's address (its ``InternalIP``, what the apiserver dials), ``127.0.0.1`` and
``localhost``, and writes the CA to ``client-ca.crt`` for verifying callers. Without a CA the
caller passes the files (``--tls-cert-file``/``--tls-private-key-file`` plus the client CA file).

The verified client identity reaches the app through ``minikube_py.clientcert`` (shared with
the apiserver).
"""

from __future__ import annotations

from pathlib import Path

from cryptography.hazmat.primitives import serialization

from minikube_py.pki import CertificateAuthority, CertKeyPair, issue_serving_certificate, write_file

SERVING_DNS_NAMES = ("localhost",)
SERVING_IP_ADDRESSES = ("127.0.0.1",)


def ensure_serving_certificate(
    ca: CertificateAuthority, directory: Path, address: str = "127.0.0.1"
) -> tuple[CertKeyPair, Path]:
    """Issue the serving pair for ``address`` (always afresh: it is cheap) and write the client
    CA; returns the pair and the client CA file."""
    directory.mkdir(parents=True, exist_ok=True)
    addresses = tuple(dict.fromkeys((address, *SERVING_IP_ADDRESSES)))
    certificate, key = issue_serving_certificate(ca, dns_names=SERVING_DNS_NAMES, ip_addresses=addresses)
    pair = CertKeyPair(directory / "kubelet.crt", directory / "kubelet.key")
    key_pem = key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )
    write_file(pair.key, key_pem)
    write_file(pair.cert, certificate.public_bytes(serialization.Encoding.PEM), mode=0o644)
    client_ca = directory / "client-ca.crt"
    write_file(client_ca, ca.certificate.public_bytes(serialization.Encoding.PEM), mode=0o644)
    return pair, client_ca
