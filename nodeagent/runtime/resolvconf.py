"""resolv.conf files (resolv.conf(5)): read the node's (upstream kubelet's ``parseResolvConf``)
and write a sandbox's from its ``DNSConfig`` (what containerd writes for CRI's ``dns_config``
and binds read-only over each of the sandbox's containers' ``/etc/resolv.conf``).

Reading follows the kubelet: ``nameserver`` lines accumulate, the last ``search`` line wins
(trailing dots dropped) and the last ``options`` line wins; comments (``#``, ``;``) and
other keywords are ignored.
"""

from __future__ import annotations

import os
from dataclasses import replace

from nodeagent.runtime.interface import ContainerConfig, DNSConfig, Mount

MAX_RESOLV_CONF = 10 << 20  # the kubelet reads at most 10 MB
RESOLV_CONF = "/etc/resolv.conf"


def parse_resolv_conf(text: str) -> DNSConfig:
    servers: list[str] = []
    searches: list[str] = []
    options: list[str] = []
    for line in text[:MAX_RESOLV_CONF].splitlines():
        fields = line.strip().split()
        if not fields or fields[0].startswith(("#", ";")):
            continue
        if fields[0] == "nameserver" and len(fields) >= 2:
            servers.append(fields[1])
        elif fields[0] == "search":
            searches = [s.removesuffix(".") for s in fields[1:]]
        elif fields[0] == "options":
            options = fields[1:]
    return DNSConfig(tuple(servers), tuple(searches), tuple(options))


def format_resolv_conf(config: DNSConfig) -> str:
    """The file's text: one ``nameserver`` line per server, then ``search`` and ``options``
    lines when there are any (containerd's layout)."""
    lines = [f"nameserver {server}" for server in config.servers]
    if config.searches:
        lines.append("search " + " ".join(config.searches))
    if config.options:
        lines.append("options " + " ".join(config.options))
    return "".join(line + "\n" for line in lines)


def write_sandbox_resolv_conf(sandbox_dir: str, config: DNSConfig) -> str:
    """The sandbox's ``resolv.conf`` (world-readable: containers run as any user); its path."""
    os.makedirs(sandbox_dir, exist_ok=True)
    path = os.path.join(sandbox_dir, "resolv.conf")
    with open(path, "w") as f:
        f.write(format_resolv_conf(config))
    os.chmod(path, 0o644)
    return path


def with_resolv_conf(config: ContainerConfig, path: str) -> ContainerConfig:
    """``config`` with the sandbox's resolv.conf bound read-only at ``/etc/resolv.conf``, unless
    the container mounts a volume there itself."""
    if any(os.path.normpath(m.container_path) == RESOLV_CONF for m in config.mounts):
        return config
    return replace(config, mounts=[*config.mounts, Mount(path, RESOLV_CONF, read_only=True)])
