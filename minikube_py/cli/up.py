"""``minikube-py up``: the whole cluster in one process, in the foreground.

``up`` assembles the four components through their façades: it prepares the data directory,
binds the apiserver (``apiserver.app``: port, then store), writes the cluster PKI and
``admin.kubeconfig``, merges a ``minikube-py`` context into the user's kubeconfig (unless
``--no-kubeconfig-merge``), serves the apiserver on ``https://127.0.0.1:PORT`` and, once it
listens, runs its clients over HTTPS on loopback, each with its own identity: the
controller-manager (``controllers.app``), the scheduler (``scheduler.app``) and the node
agents (``nodeagent.app``).

This module is imported only when ``up`` runs (or its help is asked for); the façades with it.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import shlex
from collections.abc import Coroutine
from dataclasses import replace
from pathlib import Path
from typing import Any

import apiserver.app
import controllers.app
import scheduler.app
from minikube_py.cli.components import Components, PodNetworkError, node_components
from minikube_py.client.config import load_kubeconfig
from minikube_py.datadir import DEFAULT_DATA_DIR, DataDirError, prepare_data_dir
from minikube_py.identities import ensure_component_identities
from minikube_py.kubeconfig import (
    ADMIN_KUBECONFIG,
    CONTEXT_NAME,
    KubeconfigError,
    default_kubeconfig_path,
    merge_kubeconfig,
    write_client_kubeconfig,
)
from minikube_py.network import (
    DEFAULT_CLUSTER_CIDR,
    DEFAULT_NODE_CIDR_MASK_SIZE,
    dns_service_ip,
    loopback_network,
)
from minikube_py.pki import ClusterPKI, ensure_cluster_pki

logger = logging.getLogger("kubeconfig")

ADMIN_KUBECONFIG_USER = "minikube-py-admin"
# errors of bad input, reported as one line (exit 2) without a traceback (the node agents'
# are the shared library's: kubeconfig and PKI errors, which main reports for every command)
CONFIG_ERRORS: tuple[type[Exception], ...] = (
    DataDirError,
    PodNetworkError,
    *apiserver.app.CONFIG_ERRORS,
    *controllers.app.CONFIG_ERRORS,
    *scheduler.app.CONFIG_ERRORS,
)


async def up(
    *,
    data_dir: Path,
    cluster: apiserver.app.ClusterOptions,
    components: Components,
    kubeconfig_merge: bool = True,
) -> None:
    """Run the cluster until cancelled. ``kubeconfig_merge`` merges the ``minikube-py`` context
    into the user's kubeconfig; a failure to do so is logged and does not stop the cluster.

    Inputs are checked before anything is written or logged: the data dir, then the port,
    then the store. Raises ``DataDirError``, ``ServeError``, ``StoreConfigError`` or
    ``PKIError`` on bad input.
    """
    data_dir = prepare_data_dir(data_dir)
    components = replace(components, cluster_dns_ip=dns_service_ip(cluster.service_network.cidr))
    async with apiserver.app.cluster_apiserver(cluster, data_dir) as server:
        pki = ensure_cluster_pki(data_dir / "pki", service_ip=cluster.service_network.kubernetes_ip)
        kubeconfig = data_dir / ADMIN_KUBECONFIG
        write_client_kubeconfig(
            kubeconfig, server=server.url, ca_cert=pki.ca.cert, client=pki.admin, user=ADMIN_KUBECONFIG_USER
        )
        if kubeconfig_merge:
            merge_user_kubeconfig(server.url, pki)
        listening = asyncio.Event()

        def announce() -> None:
            print(f"export KUBECONFIG={shlex.quote(str(kubeconfig))}", flush=True)
            listening.set()

        await serve_with_components(
            server.serve(data_dir, pki, on_listening=announce),
            run_components(listening, data_dir, pki, server.url, components),
        )


async def run_components(
    listening: asyncio.Event, data_dir: Path, pki: ClusterPKI, server: str, components: Components
) -> None:
    """Once the apiserver listens: the controller-manager, the scheduler and the node agents,
    each with its own identity, over HTTPS on loopback like separate processes would."""
    await listening.wait()
    kubeconfigs = ensure_component_identities(data_dir, pki, server)
    # in a thread, so that the apiserver keeps answering while the controllers load
    await asyncio.to_thread(controllers.app.load_controllers)
    on_nodes = await node_components(data_dir, pki, server, components)
    await run_together(
        controllers.app.run(load_kubeconfig(kubeconfigs["controller-manager"]), components.manager),
        scheduler.app.run_scheduler(load_kubeconfig(kubeconfigs["scheduler"]), components.scheduling),
        *on_nodes,
    )


async def serve_with_components(
    apiserver: Coroutine[Any, Any, None], components: Coroutine[Any, Any, None]
) -> None:
    """The apiserver and its clients until one fails or both are cancelled. On the way out the
    components stop first, while the apiserver still serves (they release their leases and
    finish their last writes), then the apiserver. A failure is re-raised as itself."""
    serving = asyncio.ensure_future(apiserver)
    running = asyncio.ensure_future(components)
    try:
        done, _ = await asyncio.wait({serving, running}, return_when=asyncio.FIRST_COMPLETED)
        for task in done:
            task.result()
        raise RuntimeError("the controllers and scheduler stopped on their own")  # they run until cancelled
    finally:
        for task in (running, serving):
            task.cancel()
            # ``wait`` does not raise the task's own cancellation; a second signal to this task
            # still interrupts it
            await asyncio.wait({task})


async def run_together(*coroutines: Coroutine[Any, Any, None]) -> None:
    """Run until the first one fails or all are cancelled; a single failure is re-raised
    as itself (not as an ExceptionGroup), so configuration errors stay one line."""
    try:
        async with asyncio.TaskGroup() as tasks:
            for coroutine in coroutines:
                tasks.create_task(coroutine)
    except ExceptionGroup as group:
        if len(group.exceptions) == 1:
            raise group.exceptions[0] from None
        raise


def merge_user_kubeconfig(server: str, pki: ClusterPKI) -> None:
    """Merge the admin identity as context ``minikube-py`` into the file kubectl writes to and
    log which file that was. On failure log one error line and leave the file as it was."""
    path = default_kubeconfig_path().absolute()
    try:
        changed = merge_kubeconfig(path, server=server, ca_cert=pki.ca.cert, client=pki.admin)
    except KubeconfigError as err:
        logger.error(
            "cannot merge context %s: %s; the file is left as it was (--no-kubeconfig-merge skips this)",
            CONTEXT_NAME,
            err,
        )
        return
    if changed:
        logger.info("merged context %s into %s and made it the current context", CONTEXT_NAME, path)
    else:
        logger.info("context %s in %s is up to date and current", CONTEXT_NAME, path)


def add_flags(parser: argparse.ArgumentParser) -> None:
    """``up``'s own flags and those of the components it embeds."""
    parser.add_argument(
        "--data-dir",
        type=Path,
        default=DEFAULT_DATA_DIR,
        metavar="DIR",
        help="PKI, kubeconfigs and the default store (default %(default)s)",
    )
    apiserver.app.add_cluster_flags(parser)
    parser.add_argument(
        "--nodes",
        type=_count,
        default=1,
        metavar="N",
        help="node agents on the process runtime, node-1..N (default %(default)s)",
    )
    parser.add_argument(
        "--fake-nodes",
        type=_count,
        default=0,
        metavar="N",
        help="simulated nodes fake-1..N, served by one agent (default %(default)s)",
    )
    parser.add_argument(
        "--ingress-port",
        type=_port,
        default=80,
        metavar="PORT",
        help="the built-in ingress controller's HTTP port on 127.0.0.1 (default %(default)s; "
        "0 picks a free port; -1 runs no ingress controller)",
    )
    parser.add_argument(
        "--ingress-tls-port",
        type=_port,
        default=443,
        metavar="PORT",
        help="its HTTPS port on 127.0.0.1, certificates from the Ingresses' spec.tls Secrets "
        "(default %(default)s; 0 picks a free port; -1 serves no TLS)",
    )
    parser.add_argument(
        "--no-kubeconfig-merge",
        action="store_true",
        help="do not merge the minikube-py cluster, user and context into the kubeconfig kubectl "
        "writes to (~/.kube/config, or the first existing file of $KUBECONFIG, or its last path); "
        "DIR/admin.kubeconfig is written either way",
    )
    add_pod_network_flags(parser)
    apiserver.app.add_cluster_gate_flags(parser)
    controllers.app.add_up_flags(parser)
    scheduler.app.add_up_flags(parser)
    parser.set_defaults(run=run_command, config_errors=CONFIG_ERRORS)


def add_pod_network_flags(parser: argparse.ArgumentParser) -> None:
    """The pod network, with kube-controller-manager's flag names (its node IPAM hands out
    the node ranges upstream; here ``up`` does, in order)."""
    parser.add_argument(
        "--cluster-cidr",
        type=_cluster_cidr,
        default=DEFAULT_CLUSTER_CIDR,
        metavar="CIDR",
        help="the pod network, a loopback range; each node gets one range of it (default %(default)s)",
    )
    parser.add_argument(
        "--node-cidr-mask-size",
        type=_mask_size,
        default=DEFAULT_NODE_CIDR_MASK_SIZE,
        metavar="BITS",
        help="the prefix length of each node's range: a process node's address is its first "
        "address, its pods get the next ones (default %(default)s)",
    )


async def run_command(args: argparse.Namespace) -> None:
    components = Components(
        manager=controllers.app.up_options(args),
        scheduling=scheduler.app.up_options(args),
        nodes=args.nodes,
        fake_nodes=args.fake_nodes,
        cluster_cidr=args.cluster_cidr,
        node_cidr_mask_size=args.node_cidr_mask_size,
        ingress_port=None if args.ingress_port < 0 else args.ingress_port,
        ingress_tls_port=None if args.ingress_tls_port < 0 else args.ingress_tls_port,
    )
    components.pod_cidrs()  # nodes that do not fit are refused before anything starts
    await up(
        data_dir=args.data_dir,
        cluster=apiserver.app.cluster_options(args),
        components=components,
        kubeconfig_merge=not args.no_kubeconfig_merge,
    )


def _cluster_cidr(text: str) -> str:
    try:
        return str(loopback_network(text, "--cluster-cidr"))
    except ValueError as err:
        raise argparse.ArgumentTypeError(str(err)) from None


def _mask_size(text: str) -> int:
    if not text.isdigit() or not 8 <= int(text) <= 30:
        raise argparse.ArgumentTypeError(f"invalid --node-cidr-mask-size {text!r} (want 8 to 30)")
    return int(text)


def _port(text: str) -> int:
    """A port number, 0 (any free port) or -1 (off)."""
    if text != "-1" and not (text.isdigit() and int(text) <= 65535):
        raise argparse.ArgumentTypeError(f"invalid port {text!r} (want 0-65535, or -1 for none)")
    return int(text)


def _count(text: str) -> int:
    if not text.isdigit():
        raise argparse.ArgumentTypeError(f"invalid count {text!r} (want an integer >= 0)")
    return int(text)
