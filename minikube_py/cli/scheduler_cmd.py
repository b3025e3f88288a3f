"""``minikube-py scheduler --kubeconfig F``: the scheduler, leader-elected, with upstream's flag
names (``--config`` for a KubeSchedulerConfiguration, ``--leader-elect``, ``--secure-port``
for ``/healthz``, ``/metrics`` and ``/debug/pods/{namespace}/{name}``, ``--kube-api-qps`` and
``--kube-api-burst``)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from minikube_py.cli.security import flag_bool
from minikube_py.client.config import load_kubeconfig
from scheduler.app import SchedulerOptions, run_scheduler
from scheduler.framework.config import load_config
from scheduler.plugins.registry import in_tree_registry

DEFAULT_HEALTH_PORT = 10259


def add_parser(subcommands: Any) -> None:
    parser: argparse.ArgumentParser = subcommands.add_parser(
        "scheduler",
        help="run the scheduler (leader-elected)",
        description="Run the scheduler against an apiserver, with leader election.",
    )
    parser.add_argument(
        "--kubeconfig", type=Path, required=True, metavar="FILE", help="how to reach the apiserver"
    )
    add_scheduler_flags(parser, "--config")
    parser.add_argument("--kube-api-qps", type=float, default=SchedulerOptions.qps, metavar="QPS")
    parser.add_argument("--kube-api-burst", type=int, default=SchedulerOptions.burst, metavar="N")
    parser.add_argument("--leader-elect", type=flag_bool, default=True, metavar="BOOL", help="(default true)")
    parser.add_argument(
        "--secure-port",
        type=int,
        default=DEFAULT_HEALTH_PORT,
        metavar="PORT",
        help="/healthz, /metrics and /debug/pods/NS/NAME over HTTP on 127.0.0.1 (default %(default)s; "
        "0 picks a free port, -1 serves none)",
    )
    parser.set_defaults(run=_run)


def add_up_scheduler_flags(parser: argparse.ArgumentParser) -> None:
    """What ``up`` takes for its embedded scheduler."""
    add_scheduler_flags(parser)
    parser.add_argument(
        "--scheduler-secure-port",
        type=int,
        default=-1,
        metavar="PORT",
        help="serve the scheduler's /healthz, /metrics and /debug/pods/NS/NAME on 127.0.0.1:PORT "
        "(default: not served; 0 picks a free port)",
    )


def add_scheduler_flags(parser: argparse.ArgumentParser, flag: str = "--scheduler-config") -> None:
    """The scheduler's configuration file flag (``--config`` alone, ``--scheduler-config`` in ``up``)."""
    parser.add_argument(
        flag,
        dest="scheduler_config",
        type=Path,
        metavar="FILE",
        help="a KubeSchedulerConfiguration (kubescheduler.config.k8s.io/v1): profiles, plugins, weights",
    )


def scheduler_options(
    args: argparse.Namespace, health_port: int | None, leader_elect: bool = True
) -> SchedulerOptions:
    return SchedulerOptions(
        config=args.scheduler_config,
        leader_elect=leader_elect,
        health_port=health_port,
        qps=args.kube_api_qps,
        burst=args.kube_api_burst,
    )


async def _run(args: argparse.Namespace) -> None:
    if args.scheduler_config:
        load_config(
            args.scheduler_config, known_plugins=in_tree_registry()
        )  # a bad file is a one-line error before connecting
    config = load_kubeconfig(args.kubeconfig)
    port = None if args.secure_port < 0 else args.secure_port
    await run_scheduler(config, scheduler_options(args, port, args.leader_elect))
