"""The apiserver's request limits on the command line (upstream's names and defaults), for
``minikube-py apiserver`` and ``up`` alike: ``--request-timeout`` (a Go duration, default
``1m0s``; ``0`` turns it off) and ``--min-request-timeout`` (seconds, default 1800)."""

from __future__ import annotations

import argparse
from collections.abc import Callable

from apiserver.serving import MIN_REQUEST_TIMEOUT, REQUEST_TIMEOUT, ServingOptions
from minikube_py.flags import duration_seconds


def add_serving_flags(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--request-timeout",
        type=_non_negative(duration_seconds),
        default=REQUEST_TIMEOUT,
        metavar="DURATION",
        help="how long a request may take before it is answered 504 Timeout; watches, logs, exec, "
        "attach, port-forward and proxy requests are exempt (default 1m0s; 0: no limit)",
    )
    parser.add_argument(
        "--min-request-timeout",
        type=_non_negative(int),
        default=int(MIN_REQUEST_TIMEOUT),
        metavar="SECONDS",
        help="the least a watch without timeoutSeconds lasts; each lasts a random time between this "
        "and twice this, to spread re-watches out (default %(default)s)",
    )


def serving_from_args(args: argparse.Namespace) -> ServingOptions:
    """The ``ServingOptions`` the flags ask for."""
    return ServingOptions(request_timeout=args.request_timeout, min_request_timeout=args.min_request_timeout)


def _non_negative(parse: Callable[[str], float]) -> Callable[[str], float]:
    """An argparse ``type``: ``parse``, refusing values below 0."""

    def parsed(text: str) -> float:
        try:
            value = float(parse(text))
        except ValueError as err:
            raise argparse.ArgumentTypeError(f"invalid value {text!r}") from err
        if value < 0:
            raise argparse.ArgumentTypeError(f"invalid value {text!r} (must not be negative)")
        return value

    return parsed
