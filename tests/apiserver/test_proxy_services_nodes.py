"""services/proxy (the Service's port, its Endpoints, their pods) and nodes/proxy (the node
agent over HTTPS with the apiserver's client certificate) through a real apiserver on loopback,
with discovery, OpenAPI, request info and RBAC of the three subresources."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

from apiserver.authz.bootstrappolicy import cluster_roles
from apiserver.request.info import request_info
from minikube_py.pki import ensure_cluster_pki, load_certificate_authority
from tests.apiserver.proxybackend import Backend, running_backend
from tests.apiserver.test_podconnect_node import kubelet_connection, served
from tests.apiserver.test_proxy_pods import NS, create_pod, refused
from tests.kubelet_server import FakeKubelet, Reply


@dataclass
class Setup:
    api: httpx.AsyncClient
    backend: Backend
    kubelet: FakeKubelet


def service(name: str, ports: list[tuple[str, int]]) -> dict[str, Any]:
    spec = {"ports": [{"name": n, "port": p, "protocol": "TCP"} for n, p in ports]}
    return {"apiVersion": "v1", "kind": "Service", "metadata": {"name": name}, "spec": spec}


def endpoints(name: str, addresses: list[dict[str, Any]], ports: list[tuple[str, int]]) -> dict[str, Any]:
    subset = {"addresses": addresses, "ports": [{"name": n, "port": p} for n, p in ports]}
    return {"apiVersion": "v1", "kind": "Endpoints", "metadata": {"name": name}, "subsets": [subset]}


def pod_address(ip: str, pod: str) -> dict[str, Any]:
    return {"ip": ip, "targetRef": {"kind": "Pod", "namespace": "default", "name": pod}}


async def create(api: httpx.AsyncClient, resource: str, obj: dict[str, Any]) -> None:
    response = await api.post(f"{NS}/{resource}", json=obj)
    assert response.status_code == 201, response.text


@pytest.fixture
async def setup(tmp_path: Path) -> AsyncIterator[Setup]:
    pki = ensure_cluster_pki(tmp_path / "pki")
    kubelet = FakeKubelet(load_certificate_authority(pki.ca), tmp_path)
    async with running_backend() as backend, kubelet, served(kubelet_connection(pki)) as api:
        await create_pod(api, "web-1", "127.0.0.1")
        await create(api, "services", service("web", [("http", 80), ("metrics", 81)]))
        await create(
            api, "endpoints", endpoints("web", [pod_address("127.0.0.1", "web-1")], [("http", backend.port)])
        )
        yield Setup(api, backend, kubelet)


# services/proxy


@pytest.mark.parametrize("segment", ["web:80", "web:http", "http:web:http", "http:web:80"])
async def test_a_service_port_by_number_or_name_reaches_an_endpoint(setup: Setup, segment: str) -> None:
    response = await setup.api.post(f"{NS}/services/{segment}/proxy/echo/x?y=1", content=b"hello")
    assert response.status_code == 200, response.text
    [seen] = setup.backend.seen
    assert (seen.method, seen.target, seen.body) == ("POST", "/echo/x?y=1", b"hello")
    assert seen.headers["x-forwarded-uri"] == f"{NS}/services/{segment}/proxy/echo/x"


async def test_a_service_port_number_it_does_not_declare_is_a_503(setup: Setup) -> None:
    message = 'no service port 8080 found for service "web"'
    refused(await setup.api.get(f"{NS}/services/web:8080/proxy/"), 503, "ServiceUnavailable", message)


async def test_a_port_name_no_endpoint_declares_is_no_endpoints(setup: Setup) -> None:
    # port 81 is "metrics", which the endpoints lack; no port at all is the name ""
    for segment in ("web:nope", "web:81", "web"):
        message = f'no endpoints available for service "{segment}"'
        refused(await setup.api.get(f"{NS}/services/{segment}/proxy/"), 503, "ServiceUnavailable", message)
    assert not setup.backend.seen


async def test_a_service_without_endpoints_is_upstreams_503(setup: Setup) -> None:
    await create(setup.api, "services", service("empty", [("http", 80)]))
    await create(
        setup.api, "endpoints", {"apiVersion": "v1", "kind": "Endpoints", "metadata": {"name": "empty"}}
    )
    message = 'no endpoints available for service "empty"'
    refused(await setup.api.get(f"{NS}/services/empty:80/proxy/"), 503, "ServiceUnavailable", message)
    missing = await setup.api.get(f"{NS}/services/gone:http/proxy/")
    refused(missing, 404, "NotFound", 'endpoints "gone" not found')
    refused(
        await setup.api.get(f"{NS}/services/gone:80/proxy/"), 404, "NotFound", 'services "gone" not found'
    )


async def test_only_loopback_addresses_of_the_namespaces_pods_are_proxied_to(setup: Setup) -> None:
    await create_pod(setup.api, "outside", "192.0.2.9")
    addresses = [
        {"ip": "127.0.0.1"},  # no targetRef
        pod_address("192.0.2.9", "outside"),  # a pod's, off loopback
        pod_address("127.0.0.2", "web-1"),  # not the pod's IP
        {"ip": "127.0.0.1", "targetRef": {"kind": "Pod", "namespace": "other", "name": "web-1"}},
    ]
    await create(setup.api, "services", service("odd", [("http", 80)]))
    await create(setup.api, "endpoints", endpoints("odd", addresses, [("http", setup.backend.port)]))
    message = 'no endpoints available for service "odd:80"'
    refused(await setup.api.get(f"{NS}/services/odd:80/proxy/"), 503, "ServiceUnavailable", message)
    assert not setup.backend.seen


async def test_a_refusing_endpoint_is_upstreams_503(setup: Setup) -> None:
    await create(setup.api, "services", service("down", [("http", 80)]))
    await create(
        setup.api, "endpoints", endpoints("down", [pod_address("127.0.0.1", "web-1")], [("http", 9)])
    )
    message = "error trying to reach service: dial tcp 127.0.0.1:9: connect: connection refused"
    refused(await setup.api.get(f"{NS}/services/down:80/proxy/"), 503, "ServiceUnavailable", message)


async def test_the_https_scheme_speaks_tls_unverified_and_presents_no_certificate(setup: Setup) -> None:
    """As upstream's proxy transport: pods are dialled by IP, so TLS is not verified, and the
    apiserver's node agent client certificate is for node agents only."""
    setup.kubelet.reply = Reply(chunks=[b"tls ok"], content_type="text/plain")
    response = await setup.api.get(f"{NS}/pods/https:web-1:{setup.kubelet.port}/proxy/secure?x=1")
    assert (response.status_code, response.text) == (200, "tls ok")
    [seen] = setup.kubelet.seen
    assert (seen.path, seen.query, seen.client) == ("/secure", "x=1", {})


# nodes/proxy


async def test_node_proxy_reaches_the_node_agent_with_the_client_certificate(setup: Setup) -> None:
    await _node(setup.api, "n1", "127.0.0.1", setup.kubelet.port)
    setup.kubelet.reply = Reply(chunks=[b"ok"], content_type="text/plain")
    response = await setup.api.get("/api/v1/nodes/n1/proxy/healthz?verbose=1")
    assert (response.status_code, response.text) == (200, "ok")
    [seen] = setup.kubelet.seen
    assert (seen.method, seen.path, seen.query) == ("GET", "/healthz", "verbose=1")
    assert seen.client["commonName"] == "kube-apiserver-kubelet-client"
    same = await setup.api.get(f"/api/v1/nodes/n1:{setup.kubelet.port}/proxy/healthz")
    assert same.status_code == 200


async def test_node_proxy_to_another_port_is_plain_http(setup: Setup) -> None:
    await _node(setup.api, "n1", "127.0.0.1", setup.kubelet.port)
    response = await setup.api.get(f"/api/v1/nodes/n1:{setup.backend.port}/proxy/echo")
    assert (response.status_code, response.json()["target"]) == (200, "/echo")


async def test_node_proxy_refusals(setup: Setup) -> None:
    refused(await setup.api.get("/api/v1/nodes/nope/proxy/"), 404, "NotFound", 'nodes "nope" not found')
    await _node(setup.api, "far", "192.0.2.1", setup.kubelet.port)
    refused(await setup.api.get("/api/v1/nodes/far/proxy/"), 400, "BadRequest", "address not allowed")
    await _node(setup.api, "named", "localhost", setup.kubelet.port, "Hostname")  # never resolved
    refused(await setup.api.get("/api/v1/nodes/named/proxy/"), 400, "BadRequest", "address not allowed")
    await _node(setup.api, "down", "127.0.0.1", 9)
    message = "error trying to reach service: dial tcp 127.0.0.1:9: connect: connection refused"
    refused(await setup.api.get("/api/v1/nodes/down/proxy/"), 503, "ServiceUnavailable", message)


async def _node(api: httpx.AsyncClient, name: str, ip: str, port: int, kind: str = "InternalIP") -> None:
    status = {
        "addresses": [{"type": kind, "address": ip}],
        "daemonEndpoints": {"kubeletEndpoint": {"Port": port}},
    }
    node = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name}, "status": status}
    assert (await api.post("/api/v1/nodes", json=node)).status_code == 201


# discovery, OpenAPI, authorization attributes, RBAC


async def test_discovery_lists_the_proxy_subresources_as_upstream(setup: Setup) -> None:
    resources = {r["name"]: r for r in (await setup.api.get("/api/v1")).json()["resources"]}
    verbs = ["create", "delete", "get", "patch", "update"]
    for name, kind, namespaced in (
        ("pods/proxy", "PodProxyOptions", True),
        ("services/proxy", "ServiceProxyOptions", True),
        ("nodes/proxy", "NodeProxyOptions", False),
    ):
        assert resources[name] == {
            "name": name,
            "singularName": "",
            "namespaced": namespaced,
            "kind": kind,
            "verbs": verbs,
        }


async def test_openapi_documents_every_proxied_method_with_and_without_a_path(setup: Setup) -> None:
    paths = (await setup.api.get("/openapi/v3/api/v1")).json()["paths"]
    for base, middle in ((f"{NS}/pods/{{name}}", "NamespacedPod"), ("/api/v1/nodes/{name}", "Node")):
        base = base.replace("/namespaces/default/", "/namespaces/{namespace}/")
        item, with_path = paths[f"{base}/proxy"], paths[f"{base}/proxy/{{path}}"]
        methods = {"get", "put", "post", "delete", "options", "head", "patch"}
        assert methods <= set(item) and methods <= set(with_path)
        assert item["get"]["operationId"] == f"connectCoreV1Get{middle}Proxy"
        assert with_path["head"]["operationId"] == f"connectCoreV1Head{middle}ProxyWithPath"
        assert {p["name"] for p in with_path["parameters"]} >= {"name", "path"}


@pytest.mark.parametrize(
    ("method", "verb"),
    [
        ("GET", "get"),
        ("HEAD", "get"),
        ("POST", "create"),
        ("PUT", "update"),
        ("PATCH", "patch"),
        ("DELETE", "delete"),
        ("OPTIONS", "options"),
    ],
)
def test_proxy_requests_are_authorized_as_the_methods_verb_on_the_subresource(method: str, verb: str) -> None:
    info = request_info(method, "/api/v1/namespaces/ns/services/https:web:443/proxy/a/b", {"watch": "true"})
    assert (info.verb, info.resource, info.subresource, info.name, info.namespace) == (
        verb,
        "services",
        "proxy",
        "https:web:443",
        "ns",
    )


def test_rbac_grants_the_proxy_subresources_as_upstream() -> None:
    roles = {r["metadata"]["name"]: r for r in cluster_roles()}

    def allowed(role: str, verb: str, resource: str) -> bool:
        return any(
            (verb in rule.get("verbs", []) or "*" in rule.get("verbs", []))
            and resource in rule.get("resources", [])
            for rule in roles[role]["rules"]
        )

    for resource in ("pods/proxy", "services/proxy"):
        assert allowed("system:aggregate-to-edit", "get", resource)
        assert allowed("system:aggregate-to-edit", "create", resource)
    assert not allowed("system:aggregate-to-view", "get", "pods/proxy")
    assert allowed("system:kubelet-api-admin", "get", "nodes/proxy")
    assert allowed("system:kubelet-api-admin", "create", "nodes/proxy")
