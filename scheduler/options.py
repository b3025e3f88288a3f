"""The scheduler's options and flags: ``minikube-py scheduler --kubeconfig F`` takes upstream's
flag names (``--config`` for a KubeSchedulerConfiguration, ``--leader-elect``, ``--secure-port``
for ``/healthz``, ``/metrics`` and ``/debug/pods/{namespace}/{name}``, ``--kube-api-qps`` and
``--kube-api-burst``)."""

from __future__ import annotations

import argparse
from dataclasses import dataclass, field
from pathlib import Path

from minikube_py.flags import flag_bool
from minikube_py.leaderelection import default_identity

DEFAULT_HEALTH_PORT = 10259


@dataclass(frozen=True)
class SchedulerOptions:
    """``config``: a KubeSchedulerConfiguration file (None: upstream's default profile);
    ``health_port`` None serves no endpoint (0: a free port); ``qps``/``burst`` pace the client."""

    config: Path | None = None
    leader_elect: bool = True
    health_port: int | None = None
    qps: float = 1000.0
    burst: int = 2000
    identity: str = field(default_factory=default_identity)


def add_flags(parser: argparse.ArgumentParser) -> None:
    """The ``scheduler`` command's flags."""
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


def add_up_flags(parser: argparse.ArgumentParser) -> None:
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
