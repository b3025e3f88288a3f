"""The apiserver's façade, what the command line calls (and nothing inside ``apiserver``
imports): its flags into options, and the server run from them, alone (``minikube-py
apiserver``) or as the first part of ``up``.

``up`` binds first, then prepares the cluster, then serves: ``cluster_apiserver`` listens on
``127.0.0.1:PORT`` and opens the store (the inputs users get wrong are checked before anything
is written), ``ClusterAPIServer.serve`` runs the server with every gate configured from the
data dir and the cluster PKI.
"""

from __future__ import annotations

import argparse
import contextlib
import logging
import socket
from collections.abc import AsyncIterator, Callable, Coroutine
from pathlib import Path
from typing import Any

from apiserver.authn.config import AuthenticationConfigError
from apiserver.nodeproxy import NodeConnection
from apiserver.options.security import up_security
from apiserver.options.serverrun import (
    LOOPBACK,
    ClusterOptions,
    ServerRunOptions,
    add_cluster_flags,
    add_cluster_gate_flags,
    add_server_run_flags,
    cluster_options,
    server_run_options,
)
from apiserver.server import ServeError, check_tls_files, listen, run_apiserver
from apiserver.storage.errors import StoreConfigError
from apiserver.storage.factory import default_store_url, running_store
from apiserver.storage.kv import KV
from minikube_py.pki import ClusterPKI

__all__ = [
    "CONFIG_ERRORS",
    "ClusterAPIServer",
    "ClusterOptions",
    "ServerRunOptions",
    "add_cluster_flags",
    "add_cluster_gate_flags",
    "add_flags",
    "cluster_apiserver",
    "cluster_options",
    "run",
    "run_command",
]

logger = logging.getLogger("apiserver")

# errors of bad input, reported as one line (exit 2) without a traceback
CONFIG_ERRORS: tuple[type[Exception], ...] = (StoreConfigError, ServeError, AuthenticationConfigError)
# as kubeadm configures it: node names need not resolve
NODE_ADDRESS_TYPES = ("InternalIP", "ExternalIP", "Hostname")

add_flags = add_server_run_flags


async def run_command(args: argparse.Namespace) -> None:
    """``minikube-py apiserver``: the flags' options, served until cancelled."""
    await run(server_run_options(args))


async def run(options: ServerRunOptions) -> None:
    """Serve until cancelled. Checks the TLS files, then the address, then the store, before
    any work. Raises ``ServeError`` or ``StoreConfigError`` on bad input."""
    check_tls_files(options.cert_file, options.key_file, options.client_ca_file)
    with contextlib.closing(listen(options.bind_address, options.port)) as sock:
        async with open_store(options.store_url) as kv:
            await run_apiserver(
                kv,
                options.bind_address,
                options.port,
                options.cert_file,
                options.key_file,
                options.client_ca_file,
                sock=sock,
                security=options.security,
                serving=options.serving,
                service_network=options.service_network,
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


class ClusterAPIServer:
    """``up``'s apiserver, bound to ``url`` over an open store, not serving yet."""

    def __init__(self, options: ClusterOptions, sock: socket.socket, kv: KV) -> None:
        self.options, self.sock, self.kv = options, sock, kv
        self.url = f"https://{LOOPBACK}:{options.port}"

    def serve(
        self, data_dir: Path, pki: ClusterPKI, on_listening: Callable[[], None]
    ) -> Coroutine[Any, Any, None]:
        """The server until cancelled, every gate configured from ``data_dir`` and ``pki``;
        ``on_listening`` is called once it accepts connections."""
        return run_apiserver(
            self.kv,
            LOOPBACK,
            self.options.port,
            pki.apiserver.cert,
            pki.apiserver.key,
            pki.ca.cert,
            nodes=NodeConnection(
                ca_file=pki.ca.cert,
                client_cert=pki.kubelet_client.cert,
                client_key=pki.kubelet_client.key,
                preferred_address_types=NODE_ADDRESS_TYPES,
            ),
            security=up_security(data_dir, pki, self.options.audit_policy),
            serving=self.options.serving,
            service_network=self.options.service_network,
            sock=self.sock,
            on_listening=on_listening,
        )


@contextlib.asynccontextmanager
async def cluster_apiserver(options: ClusterOptions, data_dir: Path) -> AsyncIterator[ClusterAPIServer]:
    """Listen on ``127.0.0.1:PORT``, then open the store (default: sqlite in ``data_dir``);
    both closed on exit. Raises ``ServeError`` or ``StoreConfigError``."""
    with contextlib.closing(listen(LOOPBACK, options.port)) as sock:
        async with open_store(options.store_url or default_store_url(data_dir)) as kv:
            yield ClusterAPIServer(options, sock, kv)
