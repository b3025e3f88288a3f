"""The ``minikube-py`` entry point.

Parses the top-level command (its flags come from the command's façade, imported only when it
is chosen: ``minikube_py.cli.commands``), configures logging (one line per event, component
name first), runs one subcommand on a uvloop event loop until it returns or SIGINT/SIGTERM
cancels it (exit 0), and reports configuration errors as one line, ``minikube-py: error:
<message>``, with exit code 2 and no traceback.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import signal
import sys
from collections.abc import Callable, Coroutine, Sequence
from typing import Any, NoReturn

from minikube_py.cli.commands import COMMANDS

PROG = "minikube-py"
EXIT_CONFIG_ERROR = 2
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    configure_logging()
    import uvloop  # here, not at the top: ``--help`` and usage errors need no event loop

    try:
        with asyncio.Runner(loop_factory=uvloop.new_event_loop) as runner:
            runner.run(run_until_signalled(args.run(args)))
    except config_errors(args) as err:
        fail(str(err))
    return 0


def build_parser() -> argparse.ArgumentParser:
    """The command line; each subcommand's flags are added when it is parsed."""
    parser = _Parser(prog=PROG, description="A miniature but real Kubernetes control plane.")
    subcommands = parser.add_subparsers(
        dest="command", metavar="COMMAND", required=True, parser_class=_CommandParser
    )
    for command in COMMANDS:
        subcommands.add_parser(
            command.name, help=command.help, description=command.description, configure=command.configure
        )
    return parser


def config_errors(args: argparse.Namespace) -> tuple[type[Exception], ...]:
    """The errors of bad input, reported as one line: the shared library's and those of the
    command's components (its façades', set with its flags)."""
    from minikube_py.datadir import ClusterAccessError, DataDirError
    from minikube_py.kubeconfig import KubeconfigError
    from minikube_py.pki import PKIError

    own: tuple[type[Exception], ...] = (PKIError, DataDirError, ClusterAccessError, KubeconfigError)
    return own + tuple(getattr(args, "config_errors", ()))


async def run_until_signalled(command: Coroutine[Any, Any, None]) -> None:
    """Run ``command``; the first SIGINT or SIGTERM cancels it, which counts as a clean stop.

    A second signal cancels again, cutting a graceful shutdown short.
    """
    loop = asyncio.get_running_loop()
    task = asyncio.current_task()
    assert task is not None
    received: list[signal.Signals] = []

    def stop(sig: signal.Signals) -> None:
        logging.getLogger(PROG).info("received %s, stopping", sig.name)
        received.append(sig)
        task.cancel()

    for sig in STOP_SIGNALS:
        loop.add_signal_handler(sig, stop, sig)
    try:
        await command
    except asyncio.CancelledError:
        if not received:
            raise
        while task.uncancel():  # one per signal received
            pass
    finally:
        for sig in STOP_SIGNALS:
            loop.remove_signal_handler(sig)


def configure_logging(level: int = logging.INFO) -> None:
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(_EventFormatter())
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level)
    # httpx logs every request at INFO; the components' own lines say what matters
    logging.getLogger("httpx").setLevel(logging.WARNING)


def fail(message: str) -> NoReturn:
    """Print ``minikube-py: error: <message>`` as one line and exit 2."""
    sys.stderr.write(f"{PROG}: error: {' '.join(message.split())}\n")
    sys.exit(EXIT_CONFIG_ERROR)


class _Parser(argparse.ArgumentParser):
    """Usage errors are configuration errors too: one line, exit 2."""

    def error(self, message: str) -> NoReturn:
        fail(message)


class _CommandParser(_Parser):
    """A subcommand's parser, whose flags ``configure`` adds on first use (parsing, help,
    usage), so that choosing one command imports only what that command needs."""

    def __init__(
        self, *args: Any, configure: Callable[[argparse.ArgumentParser], None] | None = None, **kwargs: Any
    ):
        super().__init__(*args, **kwargs)
        self._configure = configure

    def _configured(self) -> None:
        configure, self._configure = self._configure, None
        if configure is not None:
            configure(self)

    def parse_known_args(  # type: ignore[override]
        self, args: Sequence[str] | None = None, namespace: argparse.Namespace | None = None
    ) -> tuple[argparse.Namespace, list[str]]:
        self._configured()
        return super().parse_known_args(args, namespace)

    def format_usage(self) -> str:
        self._configured()
        return super().format_usage()

    def format_help(self) -> str:
        self._configured()
        return super().format_help()


class _EventFormatter(logging.Formatter):
    """``<component> <message>``, ``<component> <level>: <message>`` from WARNING up; the
    component is the logger name. Newlines in messages are escaped (tracebacks are kept)."""

    def format(self, record: logging.LogRecord) -> str:
        message = record.getMessage()
        if record.levelno >= logging.WARNING:
            message = f"{record.levelname.lower()}: {message}"
        line = f"{record.name} {message}".replace("\n", "\\n")
        if record.exc_info:
            line += "\n" + self.formatException(record.exc_info)
        return line


def entry_point() -> NoReturn:
    """The console script: ``main``, then leave at once. A cluster's heap (millions of cached
    objects) takes the interpreter seconds to tear down after a clean stop, past the few seconds
    a SIGTERM may take; everything that must persist is closed by then, so flush and exit."""
    code = main()
    logging.shutdown()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


if __name__ == "__main__":
    entry_point()
