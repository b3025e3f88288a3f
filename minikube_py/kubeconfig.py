"""Write kubeconfig files: one cluster, one user with an embedded client certificate, and one
context, set as the current context.

The YAML is written by hand (no YAML dependency): every scalar is a JSON string, which is also
a valid YAML double-quoted scalar, so names and URLs never need escaping rules of their own.
Merging into ``~/.kube/config`` is not implemented yet.
"""

from __future__ import annotations

import base64
import json
from pathlib import Path

from minikube_py.pki import CertKeyPair, write_file

CLUSTER_NAME = "minikube-py"
CONTEXT_NAME = "minikube-py"
ADMIN_KUBECONFIG = "admin.kubeconfig"


def render_kubeconfig(
    *,
    server: str,
    ca_pem: bytes,
    user: str,
    cert_pem: bytes,
    key_pem: bytes,
    cluster: str = CLUSTER_NAME,
    context: str = CONTEXT_NAME,
) -> str:
    """A ``kind: Config`` document whose current context reaches ``server`` as ``user``."""
    q = json.dumps
    return f"""\
apiVersion: v1
kind: Config
clusters:
- name: {q(cluster)}
  cluster:
    server: {q(server)}
    certificate-authority-data: {_b64(ca_pem)}
users:
- name: {q(user)}
  user:
    client-certificate-data: {_b64(cert_pem)}
    client-key-data: {_b64(key_pem)}
contexts:
- name: {q(context)}
  context:
    cluster: {q(cluster)}
    user: {q(user)}
current-context: {q(context)}
preferences: {{}}
"""


def write_client_kubeconfig(
    path: Path, *, server: str, ca_cert: Path, client: CertKeyPair, user: str
) -> None:
    """Write (0600, atomically) a kubeconfig embedding the CA and the client pair's PEM data.

    ``user`` names the kubeconfig user entry; the identity itself is the certificate's.
    """
    content = render_kubeconfig(
        server=server,
        ca_pem=ca_cert.read_bytes(),
        user=user,
        cert_pem=client.cert.read_bytes(),
        key_pem=client.key.read_bytes(),
    )
    write_file(path, content.encode())


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")
