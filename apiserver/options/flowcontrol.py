"""Flow control from the command line: upstream's ``--max-requests-inflight``,
``--max-mutating-requests-inflight`` and ``--enable-priority-and-fairness``, with the limits'
defaults scaled to this process (``apiserver.flowcontrol.maxinflight``)."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any

from apiserver.flowcontrol.maxinflight import DEFAULT_MUTATING_LIMIT, DEFAULT_READ_ONLY_LIMIT


def add_flow_control_flags(parser: argparse.ArgumentParser, flag_bool: Callable[[str], bool]) -> None:
    flow = parser.add_argument_group("flow control")
    flow.add_argument(
        "--max-requests-inflight",
        type=int,
        default=DEFAULT_READ_ONLY_LIMIT,
        metavar="N",
        help="read-only requests in flight at once, 0 for no limit (default %(default)s)",
    )
    flow.add_argument(
        "--max-mutating-requests-inflight",
        type=int,
        default=DEFAULT_MUTATING_LIMIT,
        metavar="N",
        help="mutating requests in flight at once, 0 for no limit (default %(default)s)",
    )
    flow.add_argument(
        "--enable-priority-and-fairness",
        type=flag_bool,
        nargs="?",
        const=True,
        default=True,
        metavar="BOOL",
        help="share the sum of both limits among priority levels (default true)",
    )


def flow_control_from_args(args: argparse.Namespace) -> dict[str, Any]:
    """``SecurityConfig`` keyword arguments."""
    return {
        "max_requests_inflight": args.max_requests_inflight,
        "max_mutating_requests_inflight": args.max_mutating_requests_inflight,
        "enable_priority_and_fairness": args.enable_priority_and_fairness,
    }


def up_flow_control() -> dict[str, Any]:
    """What ``up`` runs with: priority and fairness over the default limits."""
    return {
        "max_requests_inflight": DEFAULT_READ_ONLY_LIMIT,
        "max_mutating_requests_inflight": DEFAULT_MUTATING_LIMIT,
        "enable_priority_and_fairness": True,
    }
