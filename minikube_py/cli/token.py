"""``minikube-py token create [--ttl DURATION]``: a bootstrap token (kubeadm's
``token create``). It writes the Secret ``kube-system/bootstrap-token-<id>`` through the
apiserver, as the admin of the data dir, and prints ``<id>.<secret>``."""

from __future__ import annotations

import argparse
import base64
import secrets
import ssl
import string
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx

from minikube_py.datadir import DEFAULT_DATA_DIR, ClusterAccessError, admin_server
from minikube_py.flags import parse_duration

DEFAULT_TTL = "24h0m0s"
DEFAULT_GROUPS = "system:bootstrappers:kubeadm:default-node-token"
ALPHABET = string.ascii_lowercase + string.digits


def new_token() -> tuple[str, str]:
    return "".join(secrets.choice(ALPHABET) for _ in range(6)), "".join(
        secrets.choice(ALPHABET) for _ in range(16)
    )


def bootstrap_secret(
    token_id: str, token_secret: str, ttl: timedelta, groups: str, description: str, now: datetime
) -> dict[str, Any]:
    data = {"token-id": token_id, "token-secret": token_secret}
    if description:
        data["description"] = description
    if ttl > timedelta(0):
        data["expiration"] = (now + ttl).strftime("%Y-%m-%dT%H:%M:%SZ")
    data |= {"usage-bootstrap-authentication": "true", "usage-bootstrap-signing": "true"}
    if groups:
        data["auth-extra-groups"] = groups
    return {
        "apiVersion": "v1",
        "kind": "Secret",
        "metadata": {"name": f"bootstrap-token-{token_id}", "namespace": "kube-system"},
        "type": "bootstrap.kubernetes.io/token",
        "data": {k: base64.b64encode(v.encode()).decode() for k, v in data.items()},
    }


def create_token(data_dir: Path, ttl: timedelta, groups: str, description: str) -> str:
    """Create the Secret; return ``<id>.<secret>``. Raises ``ClusterAccessError``."""
    pki = data_dir / "pki"
    server = admin_server(data_dir)
    token_id, token_secret = new_token()
    secret = bootstrap_secret(token_id, token_secret, ttl, groups, description, datetime.now(UTC))
    try:
        context = ssl.create_default_context(cafile=str(pki / "ca.crt"))
        context.load_cert_chain(str(pki / "admin.crt"), str(pki / "admin.key"))
        with httpx.Client(base_url=server, verify=context, timeout=10) as client:
            response = client.post("/api/v1/namespaces/kube-system/secrets", json=secret)
    except (OSError, ssl.SSLError, httpx.HTTPError) as err:
        raise ClusterAccessError(f"cannot reach the apiserver at {server}: {err}") from err
    if response.status_code != 201:
        try:
            message = response.json().get("message", response.text)
        except ValueError:
            message = response.text
        raise ClusterAccessError(f"creating the bootstrap token failed: {message}")
    return f"{token_id}.{token_secret}"


def add_flags(parser: argparse.ArgumentParser) -> None:
    """The ``token`` command's actions and their flags."""
    actions = parser.add_subparsers(dest="token_command", metavar="ACTION", required=True)
    create = actions.add_parser(
        "create", help="create a bootstrap token", description="Create a bootstrap token and print it."
    )
    create.add_argument(
        "--ttl",
        type=_duration,
        default=DEFAULT_TTL,
        metavar="DURATION",
        help="lifetime, 0 = never expires (default %(default)s)",
    )
    create.add_argument("--groups", default=DEFAULT_GROUPS, help="extra groups (default %(default)s)")
    create.add_argument("--description", default="", help="a human-readable description")
    create.add_argument(
        "--data-dir",
        type=Path,
        default=DEFAULT_DATA_DIR,
        metavar="DIR",
        help="cluster data dir (default %(default)s)",
    )
    create.set_defaults(run=_run)


def _duration(text: str) -> timedelta:
    try:
        return parse_duration(text)
    except ValueError as err:
        raise argparse.ArgumentTypeError(str(err)) from None


async def _run(args: argparse.Namespace) -> None:
    ttl: timedelta = args.ttl  # argparse applies ``type`` to the string default too
    print(create_token(args.data_dir.expanduser(), ttl, args.groups, args.description), flush=True)
