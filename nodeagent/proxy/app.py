"""One service proxy: its client (identity ``system:kube-proxy``, or whatever the kubeconfig
holds), informers, proxier and its two HTTP endpoints (upstream ``cmd/kube-proxy``'s
``ProxyServer``)."""

from __future__ import annotations

import asyncio
import dataclasses
import logging
from dataclasses import dataclass

from minikube_py.cache.factory import SharedInformerFactory
from minikube_py.client import RESTClient
from minikube_py.client.config import ClientConfig
from minikube_py.clock import Clock, RealClock
from nodeagent.proxy.healthz import bind, healthz_app, metrics_app, serve
from nodeagent.proxy.network import AsyncioNetwork, Network
from nodeagent.proxy.proxier import Proxier, ProxyConfig

log = logging.getLogger("proxy")

USER_AGENT = "kube-proxy/minikube-py"
DEFAULT_HEALTHZ_ADDRESS = "127.0.0.1:10256"
DEFAULT_METRICS_ADDRESS = "127.0.0.1:10249"
PROXY_QPS, PROXY_BURST = 5.0, 10  # upstream's clientConnection defaults (the writes are LB statuses)


@dataclass(frozen=True)
class ProxyOptions:
    config: ProxyConfig = dataclasses.field(default_factory=ProxyConfig)
    healthz_bind_address: str = DEFAULT_HEALTHZ_ADDRESS  # port 0: a free port
    metrics_bind_address: str = DEFAULT_METRICS_ADDRESS


class ServiceProxy:
    """Binds its HTTP endpoints when built (``healthz_port``/``metrics_port`` are known at
    once); ``run`` serves until cancelled and then closes every listener and connection."""

    def __init__(
        self,
        client_config: ClientConfig,
        options: ProxyOptions,
        *,
        clock: Clock | None = None,
        network: Network | None = None,
    ) -> None:
        self.clock = clock or RealClock()
        scaled = dataclasses.replace(client_config, user_agent=USER_AGENT, qps=PROXY_QPS, burst=PROXY_BURST)
        self.client = RESTClient(scaled, clock=self.clock)
        self.factory = SharedInformerFactory(self.client, clock=self.clock)
        self.proxier = Proxier(
            self.client, self.factory, options.config, network or AsyncioNetwork(), self.clock
        )
        self._healthz = bind(options.healthz_bind_address)
        try:
            self._metrics = bind(options.metrics_bind_address)
        except OSError:
            self._healthz.close()
            raise

    @property
    def healthz_port(self) -> int:
        return int(self._healthz.getsockname()[1])

    @property
    def metrics_port(self) -> int:
        return int(self._metrics.getsockname()[1])

    async def run(self) -> None:
        nodes = self.proxier.config.node_names
        log.info("proxy: serving services for %s", ", ".join(sorted(nodes)) if nodes else "every node")
        try:
            async with asyncio.TaskGroup() as tasks:
                tasks.create_task(serve(healthz_app(self.proxier.health), self._healthz, "/healthz"))
                tasks.create_task(
                    serve(metrics_app(self.proxier.metrics.registry), self._metrics, "/metrics")
                )
                self.factory.start(tasks)
                tasks.create_task(self.proxier.run())
        finally:
            self._healthz.close()
            self._metrics.close()
            await self.client.close()


async def run_proxy(client_config: ClientConfig, options: ProxyOptions) -> None:
    """Serve until cancelled."""
    await ServiceProxy(client_config, options).run()
