"""The kubelet-managed ``/etc/hosts`` of a pod (upstream ``ensureHostsFile``): written to
``<pod dir>/etc-hosts`` when a container is configured and bound over each container's
``/etc/hosts`` (unless the container mounts a volume there itself).

The file: the localhost lines, the pod IP with its hostname (``<hostname>.<subdomain>.<ns>.
svc.<domain> <hostname>`` when ``subdomain`` is set), then the ``hostAliases``. A pod on the
host network gets the node's ``/etc/hosts`` and its ``hostAliases``.
"""

from __future__ import annotations

import os
from pathlib import Path

from minikube_py.api.unstructured import Object
from nodeagent.runtime.interface import Mount

HOSTS_PATH = "/etc/hosts"
HEADER = "# Kubernetes-managed hosts file.\n"
HOST_NETWORK_HEADER = "# Kubernetes-managed hosts file (host network).\n"
LOCALHOST = (
    "127.0.0.1\tlocalhost\n"
    "::1\tlocalhost ip6-localhost ip6-loopback\n"
    "fe00::0\tip6-localnet\n"
    "fe00::0\tip6-mcastprefix\n"
    "fe00::1\tip6-allnodes\n"
    "fe00::2\tip6-allrouters\n"
)


def pod_domain(pod: Object, cluster_domain: str) -> str:
    """``<subdomain>.<ns>.svc.<domain>`` (upstream ``GeneratePodHostNameAndDomain``), or ""."""
    spec, meta = pod.get("spec") or {}, pod.get("metadata") or {}
    subdomain = spec.get("subdomain") or ""
    if not subdomain or not cluster_domain:
        return ""
    return f"{subdomain}.{meta.get('namespace', 'default')}.svc.{cluster_domain}"


def hosts_file_content(pod: Object, pod_ips: list[str], hostname: str, cluster_domain: str) -> str:
    if (pod.get("spec") or {}).get("hostNetwork"):
        return _host_network_content(pod)
    domain = pod_domain(pod, cluster_domain)
    lines = [HEADER, LOCALHOST]
    for ip in pod_ips:
        lines.append(f"{ip}\t{hostname}.{domain}\t{hostname}\n" if domain else f"{ip}\t{hostname}\n")
    lines.append(_host_aliases(pod))
    return "".join(lines)


def _host_network_content(pod: Object) -> str:
    try:
        node_hosts = Path(HOSTS_PATH).read_text()
    except OSError:
        node_hosts = ""
    return HOST_NETWORK_HEADER + node_hosts + _host_aliases(pod)


def _host_aliases(pod: Object) -> str:
    aliases = (pod.get("spec") or {}).get("hostAliases") or []
    if not aliases:
        return ""
    lines = ["\n", "# Entries added by HostAliases.\n"]
    for alias in aliases:
        if isinstance(alias, dict) and alias.get("ip"):
            lines.append(f"{alias['ip']}\t" + "\t".join(str(h) for h in alias.get("hostnames") or []) + "\n")
    return "".join(lines)


def ensure_hosts_file(
    pod_dir: Path, pod: Object, pod_ips: list[str], hostname: str, cluster_domain: str
) -> Mount:
    """Write the pod's hosts file and return its mount. Written in place, as the kubelet does:
    the running containers' binds are of this file, so a rename would leave them the old one.
    Upstream's mount is writable (root in the container may edit the pod's file); so is ours."""
    pod_dir.mkdir(parents=True, exist_ok=True)
    path = pod_dir / "etc-hosts"
    path.write_text(hosts_file_content(pod, pod_ips, hostname, cluster_domain))
    os.chmod(path, 0o644)
    return Mount(str(path), HOSTS_PATH)


def mounts_hosts(container: Object) -> bool:
    """Whether the container mounts something at ``/etc/hosts`` itself."""
    return any(
        os.path.normpath(str(m.get("mountPath") or "")) == HOSTS_PATH
        for m in container.get("volumeMounts") or []
        if isinstance(m, dict)
    )
