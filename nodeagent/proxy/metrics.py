"""The proxy's metrics: upstream's ``kubeproxy_*`` names (``pkg/proxy/metrics``) and a few of
ours (connections, bytes). The shared ``minikube_py.metrics`` has counters and gauges only;
the histograms live here and render into the same text."""

from __future__ import annotations

import bisect
from dataclasses import dataclass, field

from minikube_py.metrics import Registry

# upstream's buckets: SyncProxyRulesLatency ExponentialBuckets(0.001, 2, 15),
# NetworkProgrammingLatency: 0.25 s steps then coarser, here its first part and exponential tail
SYNC_BUCKETS = tuple(0.001 * 2**i for i in range(15))
PROGRAMMING_BUCKETS = (
    *(0.001 * 2**i for i in range(8)),
    *(0.25 * i for i in range(2, 21)),
    *(5.0 * i for i in range(2, 13)),
    *(60.0 * i for i in range(2, 6)),
)


@dataclass
class Histogram:
    name: str
    help: str
    buckets: tuple[float, ...]
    counts: list[int] = field(default_factory=list)
    total: float = 0.0
    count: int = 0

    def __post_init__(self) -> None:
        self.counts = [0] * len(self.buckets)

    def observe(self, value: float) -> None:
        index = bisect.bisect_left(self.buckets, value)
        if index < len(self.counts):
            self.counts[index] += 1
        self.total += value
        self.count += 1

    def render(self) -> list[str]:
        lines = [f"# HELP {self.name} {self.help}", f"# TYPE {self.name} histogram"]
        cumulative = 0
        for bound, count in zip(self.buckets, self.counts, strict=True):
            cumulative += count
            lines.append(f'{self.name}_bucket{{le="{bound:g}"}} {cumulative}')
        lines.append(f'{self.name}_bucket{{le="+Inf"}} {self.count}')
        lines.append(f"{self.name}_sum {self.total:g}")
        lines.append(f"{self.name}_count {self.count}")
        return lines


class ProxyRegistry(Registry):
    """A ``Registry`` that also renders histograms."""

    def __init__(self) -> None:
        super().__init__()
        self.histograms: list[Histogram] = []

    def histogram(self, name: str, help_text: str, buckets: tuple[float, ...]) -> Histogram:
        found = Histogram(name, help_text, buckets)
        self.histograms.append(found)
        return found

    def render(self) -> str:
        lines = [line for h in sorted(self.histograms, key=lambda h: h.name) for line in h.render()]
        return super().render() + "".join(line + "\n" for line in lines)


@dataclass
class Traffic:
    """Data-path counters, plain integers (the data path only adds; scrapes read them)."""

    connections: int = 0
    active: int = 0
    rejected: int = 0  # no backend answered: the client was reset at once
    dial_failures: int = 0  # a backend refused (skipped, the next one tried)
    bytes_to_backends: int = 0
    bytes_to_clients: int = 0
    udp_flows: int = 0
    udp_active_flows: int = 0
    udp_datagrams: int = 0


class ProxyMetrics:
    def __init__(self) -> None:
        self.registry = ProxyRegistry()
        r = self.registry
        self.sync_duration = r.histogram(
            "kubeproxy_sync_proxy_rules_duration_seconds", "SyncProxyRules latency in seconds", SYNC_BUCKETS
        )
        self.network_programming = r.histogram(
            "kubeproxy_network_programming_duration_seconds",
            "In Cluster Network Programming Latency in seconds",
            PROGRAMMING_BUCKETS,
        )
        # ours: from the proxy's first unsynced EndpointSlice event to the end of the sync that
        # applied it (upstream's network programming latency starts at the annotation's trigger
        # time, a pod condition's whole second: too coarse to see tens of milliseconds)
        self.endpoints_programming = r.histogram(
            "minikube_py_proxy_endpoint_change_to_programmed_seconds",
            "From an EndpointSlice change seen by the proxy to the end of the sync that applied it",
            SYNC_BUCKETS,
        )
        self.last_sync = r.gauge(
            "kubeproxy_sync_proxy_rules_last_timestamp_seconds",
            "The last time proxy rules were successfully synced",
        )
        self.endpoint_changes = r.counter(
            "kubeproxy_sync_proxy_rules_endpoint_changes_total", "Cumulative proxy rules Endpoint changes"
        )
        self.service_changes = r.counter(
            "kubeproxy_sync_proxy_rules_service_changes_total", "Cumulative proxy rules Service changes"
        )
        self.endpoint_changes.set(0)
        self.service_changes.set(0)
        self.listeners = r.gauge("minikube_py_proxy_listeners", "Addresses the proxy listens on, by protocol")
        self.bind_failures = r.counter(
            "minikube_py_proxy_bind_failures_total",
            "Frontend addresses the proxy could not bind (each attempt)",
        )
        self.traffic = Traffic()
        t = self.traffic
        for name, help_text, read in (
            ("connections_total", "TCP connections accepted", lambda: t.connections),
            ("connections_active", "TCP connections open", lambda: t.active),
            (
                "connections_rejected_total",
                "TCP connections closed because no backend answered",
                lambda: t.rejected,
            ),
            (
                "backend_dial_failures_total",
                "Backends that refused a connection (skipped)",
                lambda: t.dial_failures,
            ),
            (
                "bytes_to_backends_total",
                "Bytes forwarded from clients to backends (TCP and UDP)",
                lambda: t.bytes_to_backends,
            ),
            (
                "bytes_to_clients_total",
                "Bytes forwarded from backends to clients (TCP and UDP)",
                lambda: t.bytes_to_clients,
            ),
            (
                "udp_flows_total",
                "UDP flows opened (one per client address and frontend)",
                lambda: t.udp_flows,
            ),
            ("udp_flows_active", "UDP flows open", lambda: t.udp_active_flows),
            ("udp_datagrams_total", "UDP datagrams from clients", lambda: t.udp_datagrams),
        ):
            kind = r.gauge if name.endswith("active") else r.counter
            kind(f"minikube_py_proxy_{name}", help_text).set_func(read)
