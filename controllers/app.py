"""The controller-manager's façade, what the command line calls (and nothing inside
``controllers`` imports): its flags into ``ManagerOptions``, and every enabled controller run
from them, alone (``minikube-py controller-manager``) or inside ``up``.

The controllers themselves (``controllers.manager.builtin``, a few hundred milliseconds to
import) are imported when they run, not with the flags: ``up`` parses its flags, starts the
apiserver and loads them meanwhile (``load_controllers``, in a thread).
"""

from __future__ import annotations

import argparse

from controllers.manager.manager import ManagerOptions, run_controller_manager
from controllers.manager.registry import UnknownControllerError
from controllers.options import add_flags, add_manager_flags, manager_options
from minikube_py.client.config import ClientConfig, load_kubeconfig

__all__ = [
    "CONFIG_ERRORS",
    "ManagerOptions",
    "add_flags",
    "add_up_flags",
    "load_controllers",
    "run",
    "run_command",
    "up_options",
]

# errors of bad input, reported as one line (exit 2) without a traceback
CONFIG_ERRORS: tuple[type[Exception], ...] = (UnknownControllerError,)

add_up_flags = add_manager_flags  # ``up`` embeds a controller-manager: the same flags but the port


def up_options(args: argparse.Namespace) -> ManagerOptions:
    """The options of ``up``'s controller-manager (no health endpoint)."""
    return manager_options(args, health_port=None)


def load_controllers() -> None:
    """Import the built-in controllers now (``run`` would on its way in)."""
    import controllers.manager.builtin  # noqa: F401  (the import is the point)


async def run_command(args: argparse.Namespace) -> None:
    """``minikube-py controller-manager``: the flags' controllers until cancelled."""
    from controllers.manager.builtin import builtin_registry

    registry = builtin_registry()
    registry.select(args.controllers)  # as upstream, --controllers is checked before the kubeconfig
    config = load_kubeconfig(args.kubeconfig)
    port = None if args.secure_port < 0 else args.secure_port
    await run_controller_manager(config, registry, manager_options(args, port))


async def run(config: ClientConfig, options: ManagerOptions) -> None:
    """The built-in controllers ``options`` enable, against the apiserver of ``config``."""
    from controllers.manager.builtin import builtin_registry

    await run_controller_manager(config, builtin_registry(), options)
