"""The controller-manager's flags, upstream's names (``--controllers``,
``--concurrent-*-syncs``, ``--leader-elect``, ``--use-service-account-credentials``,
``--kube-api-qps``/``--kube-api-burst``, ``--root-ca-file``, ``--secure-port`` for
``/healthz`` and ``/metrics``), for ``minikube-py controller-manager --kubeconfig F`` and,
but for the last, ``up``; into ``ManagerOptions``."""

from __future__ import annotations

import argparse
import ssl
from pathlib import Path

from controllers.manager.manager import ManagerOptions
from minikube_py.flags import duration_seconds, flag_bool

DEFAULT_HEALTH_PORT = 10257
WORKER_FLAGS = {
    "deployment-controller": "concurrent_deployment_syncs",
    "replicaset-controller": "concurrent_replicaset_syncs",
    "garbage-collector-controller": "concurrent_gc_syncs",
    "namespace-controller": "concurrent_namespace_syncs",
    "serviceaccount-controller": "concurrent_serviceaccount_syncs",
    "endpoints-controller": "concurrent_endpoint_syncs",
    "endpointslice-controller": "concurrent_service_endpoint_syncs",
    "endpointslice-mirroring-controller": "mirroring_concurrent_service_endpoint_syncs",
    "job-controller": "concurrent_job_syncs",
    "ttl-after-finished-controller": "concurrent_ttl_after_finished_syncs",
    "cronjob-controller": "concurrent_cron_job_syncs",
    "statefulset-controller": "concurrent_statefulset_syncs",
}


def add_flags(parser: argparse.ArgumentParser) -> None:
    """The ``controller-manager`` command's flags."""
    parser.add_argument(
        "--kubeconfig", type=Path, required=True, metavar="FILE", help="how to reach the apiserver"
    )
    add_manager_flags(parser)
    parser.add_argument(
        "--secure-port",
        type=int,
        default=DEFAULT_HEALTH_PORT,
        metavar="PORT",
        help="/healthz and /metrics over HTTP on 127.0.0.1 (default %(default)s; 0 picks a free port, "
        "-1 serves none)",
    )


def add_manager_flags(parser: argparse.ArgumentParser) -> None:
    """The flags shared with ``up`` (which embeds a controller-manager)."""
    parser.add_argument(
        "--controllers",
        type=lambda text: [w for w in text.split(",") if w],
        default=["*"],
        metavar="NAMES",
        help="controllers to run: '*' is every controller on by default, 'foo' enables foo, "
        "'-foo' disables foo (default '*')",
    )
    for name, dest in WORKER_FLAGS.items():
        parser.add_argument(
            "--" + dest.replace("_", "-"),
            type=int,
            dest=dest,
            metavar="N",
            help=f"concurrent syncs of the {name}",
        )
    parser.add_argument("--leader-elect", type=flag_bool, default=True, metavar="BOOL", help="(default true)")
    parser.add_argument(
        "--use-service-account-credentials",
        type=flag_bool,
        default=True,
        metavar="BOOL",
        help="each controller acts as its own service account in kube-system (default true)",
    )
    parser.add_argument(
        "--node-monitor-period",
        type=duration_seconds,
        default=ManagerOptions.node_monitor_period,
        metavar="DURATION",
        help="how often node health is checked (default 5s)",
    )
    parser.add_argument(
        "--node-monitor-grace-period",
        type=duration_seconds,
        default=ManagerOptions.node_monitor_grace_period,
        metavar="DURATION",
        help="how long a node may go without a heartbeat before it is marked unhealthy (default 40s)",
    )
    parser.add_argument(
        "--root-ca-file",
        type=ca_bundle,
        dest="root_ca",
        metavar="FILE",
        help="the PEM CA bundle published to every namespace as ConfigMap kube-root-ca.crt "
        "(default: the certificate authority of the kubeconfig)",
    )
    parser.add_argument(
        "--max-endpoints-per-slice",
        type=int,
        default=ManagerOptions.max_endpoints_per_slice,
        metavar="N",
        help="the most endpoints the EndpointSlice controller puts in one slice (default %(default)s)",
    )
    parser.add_argument(
        "--kube-api-qps", type=float, default=ManagerOptions.qps, metavar="QPS", help="(default %(default)s)"
    )
    parser.add_argument(
        "--kube-api-burst", type=int, default=ManagerOptions.burst, metavar="N", help="(default %(default)s)"
    )


def ca_bundle(path: str) -> bytes:
    """The contents of ``path``, which must hold PEM certificates (upstream's ``readCA``);
    otherwise an ``ArgumentTypeError`` naming the file."""
    try:
        data = Path(path).read_bytes()
    except OSError as err:
        raise argparse.ArgumentTypeError(f"cannot read {path}: {err.strerror or err}") from err
    try:
        ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT).load_verify_locations(cadata=data.decode("ascii"))
    except (ssl.SSLError, UnicodeDecodeError, ValueError) as err:
        raise argparse.ArgumentTypeError(f"{path} holds no PEM certificates") from err
    return data


def manager_options(args: argparse.Namespace, health_port: int | None) -> ManagerOptions:
    workers = {name: getattr(args, dest) for name, dest in WORKER_FLAGS.items() if getattr(args, dest)}
    return ManagerOptions(
        controllers=args.controllers,
        workers=workers,
        leader_elect=args.leader_elect,
        use_service_account_credentials=args.use_service_account_credentials,
        health_port=health_port,
        node_monitor_period=args.node_monitor_period,
        node_monitor_grace_period=args.node_monitor_grace_period,
        qps=args.kube_api_qps,
        burst=args.kube_api_burst,
        root_ca=args.root_ca,
        max_endpoints_per_slice=args.max_endpoints_per_slice,
    )
