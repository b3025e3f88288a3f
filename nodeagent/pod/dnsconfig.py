"""A pod's resolver configuration (upstream kubelet's ``pkg/kubelet/network/dns``): the
``DNSConfig`` its sandbox gets, which the runtime writes as the containers' ``/etc/resolv.conf``.

By ``dnsPolicy``:

- ``ClusterFirst`` (the default): the cluster DNS (``--cluster-dns``) as the only nameserver,
  the search path ``<ns>.svc.<domain> svc.<domain> <domain>`` followed by the node's search
  domains, ``options ndots:5``. A pod on the host network falls back to ``Default``; without
  ``--cluster-dns`` too, with a ``MissingClusterDNS`` warning on the pod (upstream's words).
- ``ClusterFirstWithHostNet``: ``ClusterFirst`` even on the host network.
- ``Default``: the node's resolv.conf (``--resolv-conf``; "" means ``nameserver 127.0.0.1``
  and ``search .``, as upstream).
- ``None``: nothing but the pod's ``dnsConfig``.

Then ``dnsConfig`` is merged in (nameservers and searches appended without duplicates, options
by name with the pod's winning) and the result cut to the resolver's limits (3 nameservers,
32 search domains, 2048 characters, none over 253), each cut a ``DNSConfigForming`` warning.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path

from minikube_py.api.unstructured import Object
from minikube_py.events import Recorder
from nodeagent.runtime.interface import DNSConfig
from nodeagent.runtime.resolvconf import parse_resolv_conf

DEFAULT_OPTIONS = ("ndots:5",)
MAX_NAMESERVERS = 3
MAX_SEARCHES = 32
MAX_SEARCH_CHARS = 2048
MAX_DOMAIN = 253


class DNSConfigurer:
    """``cluster_dns``: the cluster DNS servers (kubelet ``--cluster-dns``); ``domain``: the
    cluster domain (``--cluster-domain``); ``resolv_conf``: the node's file (``--resolv-conf``)."""

    def __init__(
        self,
        cluster_dns: Sequence[str] = (),
        domain: str = "cluster.local",
        resolv_conf: str = "/etc/resolv.conf",
        recorder: Recorder | None = None,
    ) -> None:
        self.cluster_dns = tuple(cluster_dns)
        self.domain = domain.rstrip(".")
        self.resolv_conf = resolv_conf
        self.recorder = recorder

    def host_config(self) -> DNSConfig:
        if not self.resolv_conf:
            return DNSConfig()
        try:
            return parse_resolv_conf(Path(self.resolv_conf).read_text())
        except OSError:
            return DNSConfig()

    def pod_dns(self, pod: Object) -> DNSConfig:
        spec = pod.get("spec") or {}
        host = self.host_config()
        policy = spec.get("dnsPolicy") or "ClusterFirst"
        host_network = bool(spec.get("hostNetwork"))
        if policy == "None":
            config = DNSConfig()
        elif policy == "ClusterFirstWithHostNet" or (policy == "ClusterFirst" and not host_network):
            config = self._cluster_first(pod, host)
        else:
            config = self._host(host)
        config = append_dns_config(config, spec.get("dnsConfig"))
        return self._fit(pod, config)

    def _cluster_first(self, pod: Object, host: DNSConfig) -> DNSConfig:
        if not self.cluster_dns:
            policy, fallback = "ClusterFirst", "Default"
            message = (
                f'kubelet does not have ClusterDNS IP configured and cannot create Pod using "{policy}" '
                f'policy. Falling back to "{fallback}" policy.'
            )
            self._warn(pod, "MissingClusterDNS", f'pod: "{_pod_ref(pod)}". {message}')
            return self._host(host)
        namespace = (pod.get("metadata") or {}).get("namespace", "default")
        searches: Sequence[str] = host.searches
        if self.domain:
            cluster = (f"{namespace}.svc.{self.domain}", f"svc.{self.domain}", self.domain)
            searches = _unique([*cluster, *host.searches])
        return DNSConfig(self.cluster_dns, tuple(searches), DEFAULT_OPTIONS)

    def _host(self, host: DNSConfig) -> DNSConfig:
        if not self.resolv_conf:  # upstream: no resolv.conf means the node's own resolver
            return DNSConfig(("127.0.0.1",), (".",), ())
        return host

    def _fit(self, pod: Object, config: DNSConfig) -> DNSConfig:
        servers = list(config.servers)
        if len(servers) > MAX_NAMESERVERS:
            servers = servers[:MAX_NAMESERVERS]
            line = " ".join(servers)
            message = (
                "Nameserver limits were exceeded, some nameservers have been omitted, "
                f"the applied nameserver line is: {line}"
            )
            self._warn(pod, "DNSConfigForming", message)
        searches = list(config.searches)
        cut = len(searches) > MAX_SEARCHES
        searches = [s for s in searches[:MAX_SEARCHES] if len(s) <= MAX_DOMAIN]
        cut = cut or len(searches) < min(len(config.searches), MAX_SEARCHES)
        while searches and len(" ".join(searches)) > MAX_SEARCH_CHARS:
            searches.pop()
            cut = True
        if cut:
            line = " ".join(searches)
            message = (
                "Search Line limits were exceeded, some search paths have been omitted, "
                f"the applied search line is: {line}"
            )
            self._warn(pod, "DNSConfigForming", message)
        return DNSConfig(tuple(servers), tuple(searches), tuple(config.options))

    def _warn(self, pod: Object, reason: str, message: str) -> None:
        if self.recorder is not None:
            self.recorder.event(pod, "Warning", reason, message)


def append_dns_config(config: DNSConfig, pod_config: Object | None) -> DNSConfig:
    """Upstream's ``appendDNSConfig``: the pod's ``dnsConfig`` merged into ``config``."""
    if not pod_config:
        return config
    servers = _unique([*config.servers, *(str(s) for s in pod_config.get("nameservers") or [])])
    searches = _unique([*config.searches, *(str(s) for s in pod_config.get("searches") or [])])
    options: dict[str, str] = {}
    for option in config.options:
        name, _, value = option.partition(":")
        options[name] = value
    for option in pod_config.get("options") or []:
        if isinstance(option, dict) and option.get("name"):
            options[str(option["name"])] = str(option.get("value") or "")
    merged = tuple(f"{name}:{value}" if value else name for name, value in options.items())
    return DNSConfig(tuple(servers), tuple(searches), merged)


def _unique(values: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(values))


def _pod_ref(pod: Object) -> str:
    meta = pod.get("metadata") or {}
    return f"{meta.get('name', '')}_{meta.get('namespace', '')}({meta.get('uid', '')})"
