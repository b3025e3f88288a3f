"""``run_scheduler``: the scheduler component as one coroutine (``minikube-py scheduler``, and
inside ``up``): profiles from a KubeSchedulerConfiguration (or upstream's default profile),
one framework per profile over the in-tree plugins, informers, leader election on the Lease
``kube-system/kube-scheduler``, and ``/healthz``, ``/metrics`` and
``/debug/pods/{namespace}/{name}`` (why each node lost, in the pod's last cycle)."""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
from collections.abc import Awaitable, Callable

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from minikube_py.cache.factory import SharedInformerFactory
from minikube_py.client.config import ClientConfig, load_kubeconfig
from minikube_py.client.interfaces import Client
from minikube_py.client.rest import RESTClient
from minikube_py.clock import Clock, RealClock
from minikube_py.events import EventRecorder, Recorder
from minikube_py.healthserver import serve_health
from minikube_py.leaderelection import run_leader_elected
from scheduler.backend.cache import Snapshot
from scheduler.framework.config import ConfigError, Profile, default_profile, load_config
from scheduler.framework.interface import Handle
from scheduler.framework.registry import Registry
from scheduler.framework.runtime import Framework
from scheduler.options import SchedulerOptions, add_flags, add_up_flags, scheduler_options
from scheduler.plugins.registry import in_tree_registry
from scheduler.scheduler import Scheduler

LEASE_NAMESPACE = "kube-system"
LEASE_NAME = "kube-scheduler"
LOOPBACK = "127.0.0.1"
COMPONENT = "default-scheduler"


def build_scheduler(
    client: Client,
    factory: SharedInformerFactory,
    profiles: list[Profile],
    percentage: int | None,
    recorder: Recorder,
    clock: Clock,
) -> Scheduler:
    """One framework per profile over the in-tree plugins, sharing one snapshot."""
    snapshot = Snapshot()
    registry = Registry(in_tree_registry())
    handle = Handle(client, snapshot, recorder, clock)
    frameworks = {p.scheduler_name: Framework(p, registry, handle) for p in profiles}
    return Scheduler(
        client,
        factory,
        frameworks,
        {p.scheduler_name: p for p in profiles},
        recorder,
        clock=clock,
        percentage_of_nodes_to_score=percentage,
        snapshot=snapshot,
    )


async def run_scheduler(config: ClientConfig, options: SchedulerOptions, clock: Clock | None = None) -> None:
    """Run until cancelled. Raises ``ConfigError`` (a bad ``--config``) before connecting."""
    if options.config:
        profiles, percentage = load_config(options.config, known_plugins=in_tree_registry())
    else:
        profiles, percentage = [default_profile()], None
    clock = clock or RealClock()
    config = dataclasses.replace(
        config, qps=options.qps, burst=options.burst, user_agent="kube-scheduler/minikube-py"
    )
    client = RESTClient(config, clock=clock)
    current: list[Scheduler] = []
    try:
        async with asyncio.TaskGroup() as tasks:
            if options.health_port is not None:
                routes = [Route("/debug/pods/{namespace}/{name}", _debug_endpoint(current))]
                checks = {"ping": lambda: True}
                tasks.create_task(
                    serve_health("scheduler", LOOPBACK, options.health_port, checks, extra_routes=routes)
                )

            async def lead() -> None:
                factory = SharedInformerFactory(client, clock=clock)
                recorder = EventRecorder(client, COMPONENT, clock=clock)
                scheduler = build_scheduler(client, factory, profiles, percentage, recorder, clock)
                current[:] = [scheduler]
                async with asyncio.TaskGroup() as inner:
                    factory.start(inner)
                    inner.create_task(recorder.run())
                    inner.create_task(scheduler.run())

            await run_leader_elected(
                client,
                lead,
                namespace=LEASE_NAMESPACE,
                name=LEASE_NAME,
                identity=options.identity,
                clock=clock,
                enabled=options.leader_elect,
            )
    finally:
        await client.close()


def _debug_endpoint(current: list[Scheduler]) -> Callable[[Request], Awaitable[Response]]:
    async def explain(request: Request) -> Response:
        namespace, name = request.path_params["namespace"], request.path_params["name"]
        found = current[0].explain(namespace, name) if current else None
        if found is None:
            return JSONResponse({"message": f"no scheduling cycle recorded for pod {namespace}/{name}"}, 404)
        return JSONResponse(found)

    return explain


# the façade, what the command line calls (nothing inside ``scheduler`` imports it):
# ``minikube-py scheduler`` and the scheduler of ``up``
__all__ = [
    "CONFIG_ERRORS",
    "SchedulerOptions",
    "add_flags",
    "add_up_flags",
    "build_scheduler",
    "run_command",
    "run_scheduler",
    "up_options",
]

# errors of bad input, reported as one line (exit 2) without a traceback
CONFIG_ERRORS: tuple[type[Exception], ...] = (ConfigError,)


def up_options(args: argparse.Namespace) -> SchedulerOptions:
    """The options of ``up``'s scheduler (``--scheduler-secure-port``, default none)."""
    port = args.scheduler_secure_port
    return scheduler_options(args, health_port=None if port < 0 else port)


async def run_command(args: argparse.Namespace) -> None:
    """``minikube-py scheduler``: a bad ``--config`` is a one-line error before connecting."""
    if args.scheduler_config:
        load_config(args.scheduler_config, known_plugins=in_tree_registry())
    config = load_kubeconfig(args.kubeconfig)
    port = None if args.secure_port < 0 else args.secure_port
    await run_scheduler(config, scheduler_options(args, port, args.leader_elect))
