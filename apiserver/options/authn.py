"""Authentication's part of the gates' configuration: upstream's kube-apiserver flags for
``minikube-py apiserver``, and what ``up`` runs with (client certificates, service-account
tokens signed with ``pki/sa.key``, bootstrap tokens, anonymous requests), which also writes
the component kubeconfigs."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from minikube_py.datadir import admin_server
from minikube_py.identities import ensure_component_identities
from minikube_py.pki import ClusterPKI

DEFAULT_ISSUER = "https://kubernetes.default.svc.cluster.local"


def up_authentication(data_dir: Path, pki: ClusterPKI) -> dict[str, Any]:
    """``SecurityConfig`` fields for ``up``; writes the component kubeconfigs (the server is
    the one ``up`` wrote into ``admin.kubeconfig``)."""
    ensure_component_identities(data_dir, pki, admin_server(data_dir))
    return {
        "anonymous": True,
        "service_account_signing_key_file": pki.service_account_key,
        "service_account_key_files": (pki.service_account_pub,),
        "service_account_issuers": (DEFAULT_ISSUER,),
        "bootstrap_tokens": True,
    }


def add_authentication_flags(parser: argparse.ArgumentParser, flag_bool: Any) -> None:
    group = parser.add_argument_group("authentication")
    group.add_argument(
        "--anonymous-auth",
        type=flag_bool,
        nargs="?",
        const=True,
        default=True,
        metavar="BOOL",
        help="serve requests without credentials as system:anonymous (default true)",
    )
    group.add_argument(
        "--token-auth-file", type=Path, metavar="FILE", help='static tokens (CSV: token,user,uid,"groups")'
    )
    group.add_argument(
        "--service-account-key-file",
        type=Path,
        action="append",
        default=[],
        metavar="FILE",
        help="PEM key verifying service-account tokens; repeatable",
    )
    group.add_argument(
        "--service-account-signing-key-file",
        type=Path,
        metavar="FILE",
        help="PEM private key signing service-account tokens",
    )
    group.add_argument(
        "--service-account-issuer",
        action="append",
        default=[],
        metavar="URL",
        help=f"token issuer; the first signs, all are accepted; repeatable (default {DEFAULT_ISSUER})",
    )
    group.add_argument(
        "--api-audiences",
        default="",
        metavar="LIST",
        help="comma-separated API audiences (default: the issuers)",
    )
    group.add_argument(
        "--enable-bootstrap-token-auth",
        type=flag_bool,
        nargs="?",
        const=True,
        default=False,
        metavar="BOOL",
        help="accept bootstrap-token Secrets in kube-system as bearer tokens",
    )


def authentication_from_args(args: argparse.Namespace) -> dict[str, Any]:
    return {
        "anonymous": args.anonymous_auth,
        "token_auth_file": args.token_auth_file,
        "service_account_signing_key_file": args.service_account_signing_key_file,
        "service_account_key_files": tuple(args.service_account_key_file),
        "service_account_issuers": tuple(args.service_account_issuer),
        "api_audiences": tuple(a for a in args.api_audiences.split(",") if a),
        "bootstrap_tokens": args.enable_bootstrap_token_auth,
    }
