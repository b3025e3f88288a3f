"""Services and EndpointSlices for the DNS tests, as the API serves them."""

from __future__ import annotations

from typing import Any

from nodeagent.dns.records import ClusterRecords


def service(
    name: str,
    namespace: str = "default",
    cluster_ip: str = "127.96.0.20",
    ports: list[dict[str, Any]] | None = None,
    **spec: Any,
) -> dict[str, Any]:
    return {
        "metadata": {"name": name, "namespace": namespace},
        "spec": {"clusterIP": cluster_ip, "ports": ports or [{"name": "http", "port": 80}], **spec},
    }


def endpoint(ip: str, hostname: str = "", ready: bool | None = True) -> dict[str, Any]:
    ep: dict[str, Any] = {"addresses": [ip], "conditions": {} if ready is None else {"ready": ready}}
    if hostname:
        ep["hostname"] = hostname
    return ep


def endpoint_slice(
    name: str, service_name: str, endpoints: list[dict[str, Any]], namespace: str = "default"
) -> dict[str, Any]:
    return {
        "metadata": {
            "name": name,
            "namespace": namespace,
            "labels": {"kubernetes.io/service-name": service_name},
        },
        "addressType": "IPv4",
        "endpoints": endpoints,
    }


def cluster() -> ClusterRecords:
    """A ClusterIP Service ``web`` (ports http/80, metrics/9090 UDP and an unnamed one), a
    headless ``db`` with three endpoints (``db-0``, one without hostname, one not ready), a
    headless ``tolerant`` publishing not-ready addresses, an ExternalName ``ext`` and ``inner``
    (a CNAME to ``web``), an empty headless ``empty``."""
    records = ClusterRecords()
    ports = [{"name": "http", "port": 80}, {"name": "metrics", "port": 9090, "protocol": "UDP"}, {"port": 81}]
    records.set_service(service("web", ports=ports))
    records.set_service(service("db", cluster_ip="None", ports=[{"name": "pg", "port": 5432}]))
    records.set_slice(
        "default/db-abc",
        endpoint_slice(
            "db-abc",
            "db",
            [
                endpoint("127.1.0.2", "db-0"),
                endpoint("127.1.0.3"),
                endpoint("127.1.0.4", "db-2", ready=False),
            ],
        ),
    )
    records.set_service(service("tolerant", cluster_ip="None", publishNotReadyAddresses=True))
    records.set_slice(
        "default/tolerant-x", endpoint_slice("tolerant-x", "tolerant", [endpoint("127.1.0.9", ready=False)])
    )
    records.set_service(service("ext", cluster_ip="", type="ExternalName", externalName="www.example.com"))
    records.set_service(
        service("inner", cluster_ip="", type="ExternalName", externalName="web.default.svc.cluster.local")
    )
    records.set_service(service("empty", cluster_ip="None"))
    return records
