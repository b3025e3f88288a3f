"""``run_controller_manager``: the controller-manager as one coroutine (ARCHITECTURE §5).

Order of events, as upstream's kube-controller-manager:
1. select the controllers (``--controllers``; an unknown name fails before anything starts);
2. serve ``/healthz`` and ``/metrics`` (when a port is given);
3. become the leader of the ``kube-system/kube-controller-manager`` Lease (unless leader
   election is off); losing the lease stops every controller, and the manager campaigns
   again (upstream exits and is restarted by its supervisor; in ``up`` there is none);
4. build each controller with its own client (its service account's credentials) and an
   event recorder, over one shared informer factory read with the manager's identity;
5. start the informers, then each controller's workers.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from controllers.manager.credentials import ControllerCredentials
from controllers.manager.registry import ControllerContext, ControllerRegistry, ControllerSpec
from minikube_py.cache.factory import SharedInformerFactory
from minikube_py.client.config import ClientConfig
from minikube_py.client.interfaces import Client
from minikube_py.client.rest import RESTClient
from minikube_py.clock import Clock, RealClock
from minikube_py.events import EventRecorder
from minikube_py.healthserver import serve_health
from minikube_py.leaderelection import default_identity, run_leader_elected
from minikube_py.metrics import REGISTRY

LEASE_NAMESPACE = "kube-system"
LEASE_NAME = "kube-controller-manager"
LOOPBACK = "127.0.0.1"
logger = logging.getLogger("controller-manager")


@dataclass(frozen=True)
class ManagerOptions:
    """``controllers``: the ``--controllers`` words; ``workers``: concurrent syncs by
    controller name (else the controller's default); ``health_port`` None serves no health
    endpoint (0 picks a free port). ``qps``/``burst`` pace each client: client-go's defaults
    (5/10) and kube-controller-manager's (20/30) throttle a 1,000-pod ReplicaSet to ~49 s; the
    apiserver here serves far more, so the defaults are higher. ``root_ca`` (the contents of
    ``--root-ca-file``) is the CA bundle published to every namespace; None means the CA of the
    manager's kubeconfig."""

    controllers: Sequence[str] = ("*",)
    workers: Mapping[str, int] = field(default_factory=dict)
    leader_elect: bool = True
    use_service_account_credentials: bool = True
    health_port: int | None = None
    node_monitor_period: float = 5.0
    node_monitor_grace_period: float = 40.0
    qps: float = 1000.0
    burst: int = 2000
    identity: str = field(default_factory=default_identity)
    root_ca: bytes | None = field(default=None, repr=False)
    max_endpoints_per_slice: int = 100


async def run_controller_manager(
    config: ClientConfig,
    registry: ControllerRegistry,
    options: ManagerOptions,
    clock: Clock | None = None,
) -> None:
    """Run until cancelled. Raises ``UnknownControllerError``, or ``KubeconfigError`` when the
    kubeconfig's CA file cannot be read, before connecting."""
    selected = registry.select(options.controllers)
    if options.root_ca is None:  # upstream: --root-ca-file defaults to the kubeconfig's CA
        options = dataclasses.replace(options, root_ca=config.ca_bundle() or b"")
    clock = clock or RealClock()
    config = dataclasses.replace(
        config, qps=options.qps, burst=options.burst, user_agent="kube-controller-manager/minikube-py"
    )
    root = RESTClient(config, clock=clock)
    logger.info("starting controllers: %s", ", ".join(spec.name for spec in selected) or "(none)")
    try:
        async with asyncio.TaskGroup() as tasks:
            if options.health_port is not None:
                checks = {"ping": lambda: True}
                tasks.create_task(serve_health("controller-manager", LOOPBACK, options.health_port, checks))
            await _lead(root, config, selected, options, clock)
    finally:
        await root.close()


async def _lead(
    root: RESTClient,
    config: ClientConfig,
    selected: list[ControllerSpec],
    options: ManagerOptions,
    clock: Clock,
) -> None:
    leading = REGISTRY.gauge(
        "leader_election_master_status",
        "Gauge of if the reporting system is master of the relevant lease, "
        "0 indicates backup, 1 indicates master.",
    )

    async def controllers() -> None:
        leading.set(1, name=LEASE_NAME)
        try:
            await run_controllers(root, config, selected, options, clock)
        finally:
            leading.set(0, name=LEASE_NAME)

    if not selected:
        logger.info("no controllers selected; not campaigning for the lease")
        await asyncio.Event().wait()
    await run_leader_elected(
        root,
        controllers,
        namespace=LEASE_NAMESPACE,
        name=LEASE_NAME,
        identity=options.identity,
        clock=clock,
        enabled=options.leader_elect,
    )


async def run_controllers(
    root: Client, config: ClientConfig, selected: list[ControllerSpec], options: ManagerOptions, clock: Clock
) -> None:
    """Build and run the selected controllers until cancelled."""
    factory = SharedInformerFactory(root, clock=clock)
    credentials = (
        ControllerCredentials(root, config, clock) if options.use_service_account_credentials else None
    )
    try:
        async with asyncio.TaskGroup() as tasks:
            for spec in selected:
                client = await credentials.client_for(spec.service_account) if credentials else root
                recorder = EventRecorder(client, spec.service_account, clock=clock)
                context = ControllerContext(
                    client,
                    factory,
                    recorder,
                    clock,
                    node_monitor_period=options.node_monitor_period,
                    node_monitor_grace_period=options.node_monitor_grace_period,
                    root_ca=options.root_ca or b"",
                    max_endpoints_per_slice=options.max_endpoints_per_slice,
                )
                controller = spec.new(context)
                tasks.create_task(recorder.run(), name=f"{spec.name}-events")
                tasks.create_task(
                    controller.run(options.workers.get(spec.name, spec.workers)), name=spec.name
                )
            factory.start(tasks)
            if credentials is not None:
                tasks.create_task(credentials.run(), name="controller-credentials")
    finally:
        if credentials is not None:
            with contextlib.suppress(Exception):
                await credentials.close()
