"""``minikube-py apiserver``: the apiserver alone, over a store URL and given TLS files.

Start-up checks the inputs that users get wrong before doing any work, in this order: TLS
files, address, store; so a failure is reported before anything is logged.
"""

from __future__ import annotations

import argparse
import contextlib
import logging
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from apiserver.security import SecurityConfig
from apiserver.server import check_tls_files, listen
from apiserver.server import run_apiserver as run_server
from apiserver.serving import ServingOptions
from apiserver.storage.factory import running_store
from apiserver.storage.kv import KV
from minikube_py.cli.security import add_security_flags, security_from_args
from minikube_py.cli.serving_flags import add_serving_flags, serving_from_args

logger = logging.getLogger("apiserver")

DEFAULT_SECURE_PORT = 6443
LOOPBACK = "127.0.0.1"
STORE_HELP = "store URL: sqlite:///PATH, memory:// or etcd://HOST:PORT[,HOST:PORT...]"


async def run_apiserver(
    store_url: str,
    *,
    bind_address: str,
    port: int,
    cert_file: Path,
    key_file: Path,
    client_ca_file: Path,
    security: SecurityConfig | None = None,
    serving: ServingOptions | None = None,
) -> None:
    """Serve until cancelled. Raises ``ServeError`` or ``StoreConfigError`` on bad input."""
    check_tls_files(cert_file, key_file, client_ca_file)
    with contextlib.closing(listen(bind_address, port)) as sock:
        async with open_store(store_url) as kv:
            await run_server(
                kv,
                bind_address,
                port,
                cert_file,
                key_file,
                client_ca_file,
                sock=sock,
                security=security,
                serving=serving,
            )


@contextlib.asynccontextmanager
async def open_store(url: str) -> AsyncIterator[KV]:
    """The store named by ``url`` (with background compaction), closed on exit.
    Raises ``StoreConfigError``."""
    async with running_store(url) as kv:
        logger.info("storage opened %s", url)
        try:
            yield kv
        finally:
            logger.info("storage closing")


def add_parser(subcommands: Any) -> None:
    """Register the ``apiserver`` subcommand on an ``add_subparsers()`` result."""
    parser: argparse.ArgumentParser = subcommands.add_parser(
        "apiserver",
        help="run the apiserver alone",
        description="Run the apiserver alone over HTTPS, in the foreground.",
    )
    parser.add_argument("--store", metavar="URL", required=True, help=STORE_HELP)
    parser.add_argument(
        "--bind-address", default=LOOPBACK, metavar="IP", help="address to listen on (default %(default)s)"
    )
    parser.add_argument(
        "--secure-port",
        type=port_number,
        default=DEFAULT_SECURE_PORT,
        metavar="PORT",
        help="HTTPS port (default %(default)s)",
    )
    for flag, help_text in (
        ("--tls-cert-file", "serving certificate (PEM)"),
        ("--tls-private-key-file", "its private key (PEM)"),
        ("--client-ca-file", "CA that client certificates must chain to (PEM)"),
    ):
        parser.add_argument(flag, type=Path, required=True, metavar="FILE", help=help_text)
    add_security_flags(parser)
    add_serving_flags(parser)
    parser.set_defaults(run=_run)


def port_number(text: str) -> int:
    """argparse type: a TCP port, 1-65535."""
    port = int(text) if text.isdigit() else 0
    if not 1 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"invalid port {text!r} (want 1-65535)")
    return port


async def _run(args: argparse.Namespace) -> None:
    await run_apiserver(
        args.store,
        bind_address=args.bind_address,
        port=args.secure_port,
        cert_file=args.tls_cert_file,
        key_file=args.tls_private_key_file,
        client_ca_file=args.client_ca_file,
        security=security_from_args(args),
        serving=serving_from_args(args),
    )
