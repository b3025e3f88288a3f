"""``minikube-py kubeconfig --user NAME [--group G]... --out FILE``: a client certificate for
NAME (CN) in the groups (O) from the cluster CA, written with the CA and the apiserver URL
as a kubeconfig (0600). The certificate is not kept anywhere else."""

from __future__ import annotations

import argparse
from pathlib import Path

from cryptography.hazmat.primitives import serialization

from minikube_py.datadir import DEFAULT_DATA_DIR, admin_server
from minikube_py.kubeconfig import render_kubeconfig
from minikube_py.pki import CertKeyPair, issue_client_certificate, load_certificate_authority, write_file


def write_user_kubeconfig(data_dir: Path, user: str, groups: list[str], out: Path) -> None:
    """Raises ``PKIError`` (CA unusable, file unwritable) or ``ClusterAccessError``."""
    pki_dir = data_dir / "pki"
    ca = load_certificate_authority(CertKeyPair(pki_dir / "ca.crt", pki_dir / "ca.key"))
    certificate, key = issue_client_certificate(ca, user=user, groups=groups)
    content = render_kubeconfig(
        server=admin_server(data_dir),
        ca_pem=ca.certificate.public_bytes(serialization.Encoding.PEM),
        user=user,
        cert_pem=certificate.public_bytes(serialization.Encoding.PEM),
        key_pem=key.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        ),
    )
    write_file(out, content.encode())


def add_flags(parser: argparse.ArgumentParser) -> None:
    """The ``kubeconfig`` command's flags."""
    parser.add_argument("--user", required=True, metavar="NAME", help="user name (certificate CN)")
    parser.add_argument(
        "--group", action="append", default=[], metavar="G", help="a group (certificate O); repeatable"
    )
    parser.add_argument(
        "--data-dir",
        type=Path,
        default=DEFAULT_DATA_DIR,
        metavar="DIR",
        help="cluster data dir (default %(default)s)",
    )
    parser.add_argument("--out", type=Path, required=True, metavar="FILE", help="kubeconfig to write")
    parser.set_defaults(run=_run)


async def _run(args: argparse.Namespace) -> None:
    write_user_kubeconfig(args.data_dir.expanduser(), args.user, args.group, args.out)
