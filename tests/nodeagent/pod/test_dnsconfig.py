"""A pod's resolv.conf by dnsPolicy (table-driven, upstream kubelet's rules), the kubelet-managed
/etc/hosts, and the sandbox config the fake runtime records through ``PodSyncer``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from minikube_py.clock import FakeClock
from minikube_py.events import FakeRecorder
from nodeagent.pod.dnsconfig import DNSConfigurer
from nodeagent.pod.etchosts import ensure_hosts_file, hosts_file_content
from nodeagent.pod.sync import PodSyncer
from nodeagent.runtime.fake import FakeRuntime
from nodeagent.runtime.interface import DNSConfig
from nodeagent.runtime.resolvconf import format_resolv_conf, parse_resolv_conf
from tests.nodeagent.pod.builders import make_pod
from tests.nodeagent.pod.test_sync_ephemeral_refresh import Environment, status

HOST = "nameserver 192.0.2.53\nnameserver 192.0.2.54\nsearch corp.example. lab.example\noptions rotate\n"
CLUSTER_SEARCH = ("default.svc.cluster.local", "svc.cluster.local", "cluster.local")


def pod(**spec: Any) -> dict[str, Any]:
    p = make_pod("c")
    p["spec"].update(spec)
    return p


@pytest.fixture
def resolv_conf(tmp_path: Path) -> str:
    path = tmp_path / "resolv.conf"
    path.write_text(HOST)
    return str(path)


CASES = [
    # (pod spec, servers, searches, options)
    ({}, ("127.96.0.10",), (*CLUSTER_SEARCH, "corp.example", "lab.example"), ("ndots:5",)),
    (
        {"dnsPolicy": "ClusterFirst"},
        ("127.96.0.10",),
        (*CLUSTER_SEARCH, "corp.example", "lab.example"),
        ("ndots:5",),
    ),
    (
        {"dnsPolicy": "ClusterFirst", "hostNetwork": True},
        ("192.0.2.53", "192.0.2.54"),
        ("corp.example", "lab.example"),
        ("rotate",),
    ),
    (
        {"dnsPolicy": "ClusterFirstWithHostNet", "hostNetwork": True},
        ("127.96.0.10",),
        (*CLUSTER_SEARCH, "corp.example", "lab.example"),
        ("ndots:5",),
    ),
    ({"dnsPolicy": "Default"}, ("192.0.2.53", "192.0.2.54"), ("corp.example", "lab.example"), ("rotate",)),
    (
        {
            "dnsPolicy": "None",
            "dnsConfig": {
                "nameservers": ["127.0.0.53"],
                "searches": ["my.dns.search.suffix"],
                "options": [{"name": "ndots", "value": "2"}, {"name": "edns0"}],
            },
        },
        ("127.0.0.53",),
        ("my.dns.search.suffix",),
        ("ndots:2", "edns0"),
    ),
    (
        {
            "dnsConfig": {
                "nameservers": ["127.96.0.10", "127.0.0.2"],
                "searches": ["cluster.local", "extra.example"],
                "options": [{"name": "ndots", "value": "1"}, {"name": "single-request"}],
            }
        },
        ("127.96.0.10", "127.0.0.2"),
        (*CLUSTER_SEARCH, "corp.example", "lab.example", "extra.example"),
        ("ndots:1", "single-request"),
    ),
]


@pytest.mark.parametrize(("spec", "servers", "searches", "options"), CASES)
def test_resolv_conf_by_dns_policy(
    resolv_conf: str,
    spec: dict[str, Any],
    servers: tuple[str, ...],
    searches: tuple[str, ...],
    options: tuple[str, ...],
) -> None:
    config = DNSConfigurer(("127.96.0.10",), "cluster.local", resolv_conf).pod_dns(pod(**spec))
    assert config == DNSConfig(servers, searches, options)


def test_cluster_first_without_cluster_dns_falls_back_with_a_warning(resolv_conf: str) -> None:
    recorder = FakeRecorder()
    config = DNSConfigurer((), "cluster.local", resolv_conf, recorder).pod_dns(pod())
    assert config.servers == ("192.0.2.53", "192.0.2.54")
    [event] = recorder.events
    assert event.startswith(
        'Warning MissingClusterDNS pod: "web_default(uid-1)". kubelet does not have ClusterDNS IP'
    )


def test_no_resolv_conf_means_the_local_resolver() -> None:
    config = DNSConfigurer((), "cluster.local", "").pod_dns(pod(dnsPolicy="Default"))
    assert config == DNSConfig(("127.0.0.1",), (".",), ())


def test_limits_cut_with_a_warning(resolv_conf: str) -> None:
    recorder = FakeRecorder()
    many = {
        "nameservers": ["127.0.0.2", "127.0.0.3", "127.0.0.4"],
        "searches": [f"s{i}.example" for i in range(40)],
    }
    config = DNSConfigurer(("127.96.0.10",), "cluster.local", resolv_conf, recorder).pod_dns(
        pod(dnsConfig=many)
    )
    assert config.servers == ("127.96.0.10", "127.0.0.2", "127.0.0.3")
    assert len(config.searches) == 32
    assert [e.split(" ", 2)[1] for e in recorder.events] == ["DNSConfigForming", "DNSConfigForming"]


def test_resolv_conf_text_round_trips() -> None:
    config = parse_resolv_conf(
        "# comment\n; also\nnameserver 10.0.0.1\nsearch a b.\nsearch c. d\noptions ndots:5 edns0\n"
    )
    assert config == DNSConfig(("10.0.0.1",), ("c", "d"), ("ndots:5", "edns0"))
    assert format_resolv_conf(config) == "nameserver 10.0.0.1\nsearch c d\noptions ndots:5 edns0\n"
    assert parse_resolv_conf(format_resolv_conf(config)) == config


def test_hosts_file_has_localhost_the_pod_and_its_aliases() -> None:
    p = pod(
        hostname="db-0",
        subdomain="db",
        hostAliases=[{"ip": "127.0.0.5", "hostnames": ["foo.local", "bar.local"]}],
    )
    text = hosts_file_content(p, ["127.1.0.7"], "db-0", "cluster.local")
    assert text.startswith(
        "# Kubernetes-managed hosts file.\n127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost"
    )
    assert "127.1.0.7\tdb-0.db.default.svc.cluster.local\tdb-0\n" in text
    assert text.endswith("\n# Entries added by HostAliases.\n127.0.0.5\tfoo.local\tbar.local\n")
    plain = hosts_file_content(pod(), ["127.1.0.7"], "web", "cluster.local")
    assert plain.endswith("fe00::2\tip6-allrouters\n127.1.0.7\tweb\n")


def test_hosts_file_is_written_in_place(tmp_path: Path) -> None:
    mount = ensure_hosts_file(tmp_path / "pod", pod(), ["127.1.0.7"], "web", "cluster.local")
    assert mount.container_path == "/etc/hosts" and not mount.read_only
    inode = Path(mount.host_path).stat().st_ino
    ensure_hosts_file(tmp_path / "pod", pod(), ["127.1.0.8"], "web", "cluster.local")
    assert Path(mount.host_path).stat().st_ino == inode  # running containers' binds see the change
    assert "127.1.0.8\tweb" in Path(mount.host_path).read_text()


async def test_the_sandbox_gets_the_pods_dns_config(resolv_conf: str) -> None:
    clock = FakeClock()
    runtime = FakeRuntime(clock, start_delay=0, start_jitter=0)
    dns = DNSConfigurer(("127.96.0.10",), "cluster.local", resolv_conf)
    syncer = PodSyncer(runtime, Environment(), FakeRecorder(), clock, dns=dns)
    await syncer.sync_pod(make_pod("c"), await status(runtime))
    [sandbox] = await runtime.list_pod_sandboxes()
    config = runtime.sandbox_config(sandbox.id)
    assert config is not None and config.dns_config is not None
    assert format_resolv_conf(config.dns_config) == (
        "nameserver 127.96.0.10\n"
        "search default.svc.cluster.local svc.cluster.local cluster.local corp.example lab.example\n"
        "options ndots:5\n"
    )
