"""``minikube-py up``: the whole cluster in one process, in the foreground.

``up`` prepares the data directory, the cluster PKI and ``admin.kubeconfig``, merges a
``minikube-py`` context into the user's kubeconfig (unless ``--no-kubeconfig-merge``), opens the
store, runs the apiserver on ``https://127.0.0.1:PORT`` and, once it listens, the
controller-manager and the scheduler (clients of it over HTTPS, each with its own identity).
Node agents come later; their flags are already accepted.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import os
import shlex
from collections.abc import Coroutine
from pathlib import Path
from typing import Any

from apiserver.audit.policy import Policy
from apiserver.nodeproxy import NodeConnection
from apiserver.server import listen, run_apiserver
from apiserver.serving import ServingOptions
from apiserver.storage.factory import default_store_url
from controllers.manager.builtin import builtin_registry
from controllers.manager.manager import ManagerOptions, run_controller_manager
from minikube_py.cli.apiserver import (
    DEFAULT_SECURE_PORT,
    LOOPBACK,
    STORE_HELP,
    open_store,
    port_number,
)
from minikube_py.cli.auditflags import add_up_audit_flag
from minikube_py.cli.controller_manager import add_manager_flags, manager_options
from minikube_py.cli.scheduler_cmd import add_up_scheduler_flags, scheduler_options
from minikube_py.cli.security import up_security
from minikube_py.cli.serving_flags import add_serving_flags, serving_from_args
from minikube_py.client.config import load_kubeconfig
from minikube_py.identities import (
    ensure_component_identities,
    ensure_fake_nodes_identity,
    ensure_node_identity,
)
from minikube_py.kubeconfig import (
    ADMIN_KUBECONFIG,
    CONTEXT_NAME,
    KubeconfigError,
    default_kubeconfig_path,
    merge_kubeconfig,
    write_client_kubeconfig,
)
from minikube_py.pki import ClusterPKI, ensure_cluster_pki, load_certificate_authority
from nodeagent.agent import (
    AgentOptions,
    ServingTLS,
    node_root,
    process_pod_cidr,
    run_node_agent,
)
from nodeagent.fakenodes import run_fake_nodes
from scheduler.app import SchedulerOptions, run_scheduler

logger = logging.getLogger("kubeconfig")

DEFAULT_DATA_DIR = Path("~/.minikube-py")
ADMIN_KUBECONFIG_USER = "minikube-py-admin"


NODE_ADDRESS_TYPES = ("InternalIP", "ExternalIP", "Hostname")
MAX_PROCESS_NODES = 254


class DataDirError(Exception):
    """The data directory cannot be created or written. One-line message."""


async def up(
    *,
    data_dir: Path,
    port: int,
    store_url: str | None = None,
    kubeconfig_merge: bool = True,
    audit_policy: Policy | None = None,
    manager: ManagerOptions | None = None,
    scheduling: SchedulerOptions | None = None,
    nodes: int = 0,
    fake_nodes: int = 0,
    serving: ServingOptions | None = None,
) -> None:
    """Run the cluster until cancelled. ``store_url`` None means sqlite in the data dir.
    ``nodes`` process-runtime node agents and ``fake_nodes`` simulated ones run with it.
    ``serving`` sets the apiserver's request timeouts (None: upstream's defaults).
    ``kubeconfig_merge`` merges the ``minikube-py`` context into the user's kubeconfig; a
    failure to do so is logged and does not stop the cluster.

    Inputs are checked before anything is written or logged: the data dir, then the port,
    then the store. Raises ``DataDirError``, ``ServeError``, ``StoreConfigError`` or
    ``PKIError`` on bad input.
    """
    data_dir = prepare_data_dir(data_dir)
    with contextlib.closing(listen(LOOPBACK, port)) as sock:
        async with open_store(store_url or default_store_url(data_dir)) as kv:
            pki = ensure_cluster_pki(data_dir / "pki")
            kubeconfig = data_dir / ADMIN_KUBECONFIG
            server = f"https://{LOOPBACK}:{port}"
            write_client_kubeconfig(
                kubeconfig, server=server, ca_cert=pki.ca.cert, client=pki.admin, user=ADMIN_KUBECONFIG_USER
            )
            if kubeconfig_merge:
                merge_user_kubeconfig(server, pki)
            listening = asyncio.Event()

            def announce() -> None:
                print(f"export KUBECONFIG={shlex.quote(str(kubeconfig))}", flush=True)
                listening.set()

            apiserver = run_apiserver(
                kv,
                LOOPBACK,
                port,
                pki.apiserver.cert,
                pki.apiserver.key,
                pki.ca.cert,
                nodes=NodeConnection(
                    ca_file=pki.ca.cert,
                    client_cert=pki.kubelet_client.cert,
                    client_key=pki.kubelet_client.key,
                    # as kubeadm configures it: node names need not resolve
                    preferred_address_types=NODE_ADDRESS_TYPES,
                ),
                security=up_security(data_dir, pki, audit_policy),
                serving=serving,
                sock=sock,
                on_listening=announce,
            )
            components = run_components(
                listening,
                data_dir,
                pki,
                server,
                manager or ManagerOptions(),
                scheduling or SchedulerOptions(),
                nodes,
                fake_nodes,
            )
            await serve_with_components(apiserver, components)


async def run_components(
    listening: asyncio.Event,
    data_dir: Path,
    pki: ClusterPKI,
    server: str,
    manager: ManagerOptions,
    scheduling: SchedulerOptions,
    nodes: int = 0,
    fake_nodes: int = 0,
) -> None:
    """Once the apiserver listens: the controller-manager, the scheduler and the node agents
    (``node-1..N`` on the process runtime, ``fake-1..M`` simulated by one agent), each with its
    own identity, over HTTPS on loopback like separate processes would."""
    await listening.wait()
    kubeconfigs = ensure_component_identities(data_dir, pki, server)
    ca = load_certificate_authority(pki.ca)
    agents = [
        run_node_agent(
            load_kubeconfig(ensure_node_identity(data_dir, pki, name, server)),
            AgentOptions(name, data_dir, "process", port=0, pod_cidr=process_pod_cidr(index)),
            ServingTLS.issued_by(ca, node_root(data_dir, name) / "pki"),
        )
        for index, name in ((i, f"node-{i}") for i in range(1, nodes + 1))
    ]
    if fake_nodes:
        names = [f"fake-{i}" for i in range(1, fake_nodes + 1)]
        agents.append(
            run_fake_nodes(
                load_kubeconfig(ensure_fake_nodes_identity(data_dir, pki, server)),
                names,
                data_dir,
                ServingTLS.issued_by(ca, data_dir / "nodes" / "fake-pki"),
            )
        )
    await run_together(
        run_controller_manager(
            load_kubeconfig(kubeconfigs["controller-manager"]), builtin_registry(), manager
        ),
        run_scheduler(load_kubeconfig(kubeconfigs["scheduler"]), scheduling),
        *agents,
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


def prepare_data_dir(path: Path) -> Path:
    """Create the data directory (0700) if needed; return it absolute. Raises DataDirError."""
    path = path.expanduser().absolute()
    try:
        path.mkdir(mode=0o700, parents=True, exist_ok=True)
    except OSError as err:
        reason = (err.strerror or str(err)).lower()
        raise DataDirError(f"cannot create data directory {path}: {reason}") from err
    if not os.access(path, os.W_OK | os.X_OK):
        raise DataDirError(f"data directory {path} is not writable")
    return path


def add_parser(subcommands: Any) -> None:
    """Register the ``up`` subcommand on an ``add_subparsers()`` result."""
    parser: argparse.ArgumentParser = subcommands.add_parser(
        "up",
        help="run the whole cluster in one process",
        description="Run the whole cluster in one process, in the foreground. "
        "Ctrl-C or SIGTERM stops it; state survives a restart.",
    )
    parser.add_argument(
        "--data-dir",
        type=Path,
        default=DEFAULT_DATA_DIR,
        metavar="DIR",
        help="PKI, kubeconfigs and the default store (default %(default)s)",
    )
    parser.add_argument(
        "--port",
        type=port_number,
        default=DEFAULT_SECURE_PORT,
        help="apiserver HTTPS port on 127.0.0.1 (default %(default)s)",
    )
    parser.add_argument("--store", metavar="URL", help=f"{STORE_HELP} (default sqlite:///DIR/store.db)")
    parser.add_argument(
        "--nodes",
        type=_process_nodes,
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
        "--no-kubeconfig-merge",
        action="store_true",
        help="do not merge the minikube-py cluster, user and context into the kubeconfig kubectl "
        "writes to (~/.kube/config, or the first existing file of $KUBECONFIG, or its last path); "
        "DIR/admin.kubeconfig is written either way",
    )
    add_up_audit_flag(parser)
    add_serving_flags(parser)
    add_manager_flags(parser)
    add_up_scheduler_flags(parser)
    parser.set_defaults(run=_run)


async def _run(args: argparse.Namespace) -> None:
    await up(
        data_dir=args.data_dir,
        port=args.port,
        store_url=args.store,
        kubeconfig_merge=not args.no_kubeconfig_merge,
        audit_policy=args.audit_policy_file,
        manager=manager_options(args, health_port=None),
        scheduling=scheduler_options(
            args, health_port=None if args.scheduler_secure_port < 0 else args.scheduler_secure_port
        ),
        nodes=args.nodes,
        fake_nodes=args.fake_nodes,
        serving=serving_from_args(args),
    )


def _process_nodes(text: str) -> int:
    """Each process node gets a loopback /16 (127.N.0.0), so at most 254 of them."""
    count = _count(text)
    if count > MAX_PROCESS_NODES:
        raise argparse.ArgumentTypeError(f"at most {MAX_PROCESS_NODES} process nodes (got {count})")
    return count


def _count(text: str) -> int:
    if not text.isdigit():
        raise argparse.ArgumentTypeError(f"invalid count {text!r} (want an integer >= 0)")
    return int(text)
