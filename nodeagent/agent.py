"""One node agent: the assembly of a node's parts (upstream ``kubelet.Run``).

``run_node_agent`` serves one node: its HTTPS API (``node.server``), registration, status and
Lease (``node.heartbeats``), and its pods (``pod.podmanager``) on a runtime, all through one
client with the node's identity. Many simulated nodes in one agent: ``fakenodes``.

Files of node ``N`` live under ``<data-dir>/nodes/N`` (volumes, logs, the serving
certificate, static pod manifests).
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from minikube_py.cache.factory import SharedInformerFactory
from minikube_py.cache.informer import SharedInformer
from minikube_py.client import RESTClient
from minikube_py.client.config import ClientConfig
from minikube_py.client.resourcetypes import PODS, SERVICES
from minikube_py.clock import Clock, RealClock
from minikube_py.events import EventRecorder, Recorder
from minikube_py.pki import CertificateAuthority, CertKeyPair
from nodeagent.eviction.thresholds import DEFAULT_EVICTION_HARD
from nodeagent.housekeeping import node_housekeeping
from nodeagent.node.containerlogs import PodLogTarget
from nodeagent.node.heartbeats import NodeHeartbeats
from nodeagent.node.nodeinfo import NodeConfig, fake_node_config, process_node_config
from nodeagent.node.server import AgentServer, agent_app
from nodeagent.node.streams.target import STATUS_KEYS, stream_lookup
from nodeagent.node.tls import ensure_serving_certificate
from nodeagent.pod.containerconfig import ContainerEnvironment
from nodeagent.pod.dnsconfig import DNSConfigurer
from nodeagent.pod.mirror import CONFIG_HASH, CONFIG_MIRROR
from nodeagent.pod.podmanager import PodManager
from nodeagent.pod.staticpods import StaticPods
from nodeagent.runtime.fake import FakeRuntime
from nodeagent.runtime.interface import ContainerRuntime
from nodeagent.runtime.podip import DEFAULT_POD_CIDR, node_address
from nodeagent.runtime.process import ProcessRuntime
from nodeagent.stats.endpoint import summary_lookup
from nodeagent.stats.summary import SummaryProvider
from nodeagent.volumes import VolumeManager
from nodeagent.volumes.sourcewatch import DEFAULT_REFRESH_DELAY, SourceWatches

log = logging.getLogger("nodeagent")
USER_AGENT = "kubelet/minikube-py"
LOOPBACK = "127.0.0.1"
DEFAULT_PORT = 10250
KUBELET_QPS, KUBELET_BURST = 50.0, 100  # upstream's kubeAPIQPS and kubeAPIBurst


@dataclass(frozen=True)
class ServingTLS:
    """The API's serving pair and the CA its clients' certificates must chain to."""

    cert: CertKeyPair
    client_ca: Path

    @classmethod
    def issued_by(cls, ca: CertificateAuthority, directory: Path, address: str = LOOPBACK) -> ServingTLS:
        """A pair for the API at ``address`` (the node's address: what the apiserver dials)."""
        pair, client_ca = ensure_serving_certificate(ca, directory, address)
        return cls(pair, client_ca)


@dataclass(frozen=True)
class AgentOptions:
    node_name: str
    data_dir: Path
    runtime: str = "process"  # or "fake"
    port: int = DEFAULT_PORT  # 0: a free port
    host: str = ""  # where the API listens; "": the node's address
    pod_cidr: str = DEFAULT_POD_CIDR  # the node's range (spec.podCIDR): its pods' IPs
    node_ip: str = ""  # the node's InternalIP; "": the first address of pod_cidr
    eviction_hard: str = DEFAULT_EVICTION_HARD  # the eviction manager's hard thresholds
    # seconds from a change of a mounted ConfigMap or Secret to the refresh of its pods' files
    volume_refresh_delay: float = DEFAULT_REFRESH_DELAY
    # the pods' resolver (kubelet --cluster-dns, --cluster-domain, --resolv-conf): see pod/dnsconfig.py
    cluster_dns: tuple[str, ...] = ()
    cluster_domain: str = "cluster.local"
    resolv_conf: str = "/etc/resolv.conf"

    @property
    def address(self) -> str:
        """The node's own address (``InternalIP``)."""
        return self.node_ip or node_address(self.pod_cidr)


def node_root(data_dir: Path, node_name: str) -> Path:
    return data_dir / "nodes" / node_name


async def run_node_agent(
    config: ClientConfig, options: AgentOptions, tls: ServingTLS, clock: Clock | None = None
) -> None:
    """Serve one node until cancelled."""
    clock = clock or RealClock()
    root = node_root(options.data_dir, options.node_name)
    root.mkdir(parents=True, exist_ok=True)
    scaled = dataclasses.replace(config, user_agent=USER_AGENT, qps=KUBELET_QPS, burst=KUBELET_BURST)
    client = RESTClient(scaled, clock=clock)
    runtime: ContainerRuntime = (
        FakeRuntime(clock, pod_cidr=options.pod_cidr)
        if options.runtime == "fake"
        else ProcessRuntime(str(root / "runtime"), pod_cidr=options.pod_cidr, hidden=[str(options.data_dir)])
    )
    try:
        factory = SharedInformerFactory(client, clock=clock)
        pods = factory.informer(PODS, field_selector=f"spec.nodeName={options.node_name}")
        services = factory.informer(SERVICES)
        summaries: dict[str, SummaryProvider] = {}
        server = AgentServer(
            agent_app(
                log_lookup(pods, root),
                stats=summary_lookup(summaries),
                streams=stream_lookup(pods.indexer.get_by_key, {options.node_name: runtime}),
            ),
            cert=tls.cert,
            client_ca=tls.client_ca,
            host=options.host or options.address,
            port=options.port,
        )
        version = await runtime.version()
        if options.runtime == "fake":
            node = fake_node_config(options.node_name, port=server.port, runtime_version=version)
        else:
            node = process_node_config(
                options.node_name, data_dir=root, port=server.port, runtime_version=version
            )
        node = dataclasses.replace(node, address=options.address, pod_cidr=options.pod_cidr)
        heartbeats = NodeHeartbeats(clock=clock)
        recorder = EventRecorder(client, "kubelet", clock=clock, host=options.node_name)
        sources = SourceWatches(client, clock=clock, refresh_delay=options.volume_refresh_delay)
        dns = DNSConfigurer(options.cluster_dns, options.cluster_domain, options.resolv_conf, recorder)
        manager = pod_manager(client, node, root, runtime, recorder, clock, services, sources, dns)
        housekeeping = node_housekeeping(node, manager, recorder, clock, root, options.eviction_hard)
        summaries[node.name] = housekeeping.summaries
        heartbeats.add(client, node, signals=housekeeping.eviction.signals)
        pods.add_event_handler(manager.handlers())
        static_pods = StaticPods(client, options.node_name, root, manager, clock)
        pods.add_event_handler(static_pods.handlers())
        async with asyncio.TaskGroup() as tasks:
            tasks.create_task(server.serve())
            tasks.create_task(heartbeats.run())
            tasks.create_task(recorder.run())
            factory.start(tasks)
            tasks.create_task(manager.run())
            tasks.create_task(sources.run())
            tasks.create_task(static_pods.run())
            tasks.create_task(housekeeping.run())
    finally:
        await runtime.close()
        await client.close()


def pod_manager(
    client: RESTClient,
    node: NodeConfig,
    root: Path,
    runtime: ContainerRuntime,
    recorder: Recorder,
    clock: Clock,
    services: SharedInformer,
    sources: SourceWatches | None = None,
    dns: DNSConfigurer | None = None,
) -> PodManager:
    """A node's pod manager, its volumes under ``root``; with ``sources``, the ConfigMaps and
    Secrets its volumes show are watched and a change wakes the pods that use them."""
    volumes = VolumeManager(client, root, node_allocatable=node.allocatable, clock=clock, sources=sources)
    environment = ContainerEnvironment(
        client,
        root,
        volumes,
        host_ip=node.address,
        node_allocatable=node.allocatable,
        services=services.indexer.list,
        simulated=runtime.name == "fake",
        cluster_domain=dns.domain if dns is not None else "cluster.local",
    )
    manager = PodManager(
        client, node.name, runtime, environment, recorder, clock, host_ip=node.address, dns=dns
    )
    if sources is not None:
        sources.notify = manager.workers.wake
    return manager


def log_lookup(
    pods: SharedInformer, root: Path | None, roots: dict[str, Path] | None = None
) -> Callable[[str, str], PodLogTarget | None]:
    """The server's view of a pod: its log directory and its statuses, from the informer."""

    def lookup(namespace: str, name: str) -> PodLogTarget | None:
        pod = pods.indexer.get_by_key(f"{namespace}/{name}")
        if pod is None:
            return None
        node_dir = (
            root if root is not None else (roots or {}).get((pod.get("spec") or {}).get("nodeName", ""))
        )
        if node_dir is None:
            return None
        meta, status = pod["metadata"], pod.get("status") or {}
        statuses = [s for key in STATUS_KEYS for s in status.get(key) or []]
        # a mirror pod's containers are its static pod's, whose uid is the config hash
        annotations = meta.get("annotations") or {}
        uid = annotations.get(CONFIG_HASH, meta["uid"]) if CONFIG_MIRROR in annotations else meta["uid"]
        directory = node_dir / "logs" / f"{namespace}_{name}_{uid}"
        return PodLogTarget(uid, str(directory), statuses)

    return lookup
