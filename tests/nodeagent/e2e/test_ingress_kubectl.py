"""The built-in ingress controller inside ``up --ingress-port 0``, driven with real kubectl:
its class exists and is the default, ``kubectl create ingress`` gets it and the controller's
address in its status, two Deployments of the demo ``nginx`` image behind two Services are
reached by their hosts (``a.localhost``, ``b.localhost``) on 127.0.0.1:P, an unknown host is
404 and a missing Service 503 (logged once); kubectl 1.27, 1.32 and 1.33 print the rows; TLS
with a ``kubectl create secret tls`` Secret."""

from __future__ import annotations

import json
import re
import socket
import ssl
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from cryptography.hazmat.primitives import serialization

from minikube_py.pkiutil import issue_serving_certificate, key_pem, new_certificate_authority
from tests.cluster import KUBECTL_DIR, Cluster, eventually, kubectl, running_up
from tests.cluster import kubectl_json as get
from tests.cluster import kubectl_ok as ok

pytestmark = pytest.mark.e2e

PORT = 18090  # the nginx containers' port (process pods may not bind below 1024)


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    flags = ["--nodes", "1", "--ingress-port", "0", "--ingress-tls-port", "0"]
    yield from running_up(tmp_path_factory.mktemp("ingress"), flags=flags)


def _announced(cluster: Cluster, scheme: str) -> int:
    pattern = rf"^ingress: {scheme}://127\.0\.0\.1:(\d+)$"
    found = eventually(lambda: re.search(pattern, cluster.stdout.read_text(), re.M), f"up's {scheme} line")
    return int(found.group(1))


@pytest.fixture(scope="module")
def ingress_port(cluster: Cluster) -> int:
    return _announced(cluster, "http")


@pytest.fixture(scope="module")
def tls_port(cluster: Cluster) -> int:
    return _announced(cluster, "https")


def endpoint_slice(cluster: Cluster, service: str) -> None:
    """The EndpointSlice of ``service``'s ready pods, written here: this branch has no
    EndpointSlice controller yet (a slice not managed by it is left alone once it exists)."""
    pods = eventually(
        lambda: [p for p in get(cluster, "pods", "-l", f"app={service}")["items"] if _ready(p)],
        f"{service} ready",
    )
    body: dict[str, Any] = {
        "apiVersion": "discovery.k8s.io/v1",
        "kind": "EndpointSlice",
        "metadata": {"name": f"{service}-test", "labels": {"kubernetes.io/service-name": service}},
        "addressType": "IPv4",
        "ports": [{"name": "", "port": PORT, "protocol": "TCP"}],
        "endpoints": [{"addresses": [p["status"]["podIP"]], "conditions": {"ready": True}} for p in pods],
    }
    ok(cluster, "apply", "-f", "-", stdin=json.dumps(body))


def _ready(pod: dict[str, Any]) -> bool:
    conditions = pod.get("status", {}).get("conditions") or []
    return any(c["type"] == "Ready" and c["status"] == "True" for c in conditions)


@pytest.fixture(scope="module")
def web(cluster: Cluster) -> None:
    for name in ("a", "b"):
        ok(cluster, "create", "deployment", name, "--image=nginx", f"--port={PORT}")
        ok(cluster, "expose", "deployment", name, "--port=80", f"--target-port={PORT}")
        endpoint_slice(cluster, name)
    ok(cluster, "create", "ingress", "web", "--rule=a.localhost/*=a:80", "--rule=b.localhost/*=b:80")


def test_the_class_is_the_default_and_named_by_new_ingresses(cluster: Cluster, web: None) -> None:
    classes = ok(cluster, "get", "ingressclass").splitlines()
    assert classes[0].split() == ["NAME", "CONTROLLER", "PARAMETERS", "AGE"]
    assert classes[1].split()[:3] == ["minikube-py", "minikube-py.io/ingress-controller", "<none>"]
    annotations = get(cluster, "ingressclass", "minikube-py")["metadata"]["annotations"]
    assert annotations["ingressclass.kubernetes.io/is-default-class"] == "true"
    assert get(cluster, "ingress", "web")["spec"]["ingressClassName"] == "minikube-py"


def test_status_and_rows_name_the_controllers_address(
    cluster: Cluster, web: None, ingress_port: int, tls_port: int
) -> None:
    ports = [{"port": ingress_port, "protocol": "TCP"}, {"port": tls_port, "protocol": "TCP"}]
    wanted = {"ingress": [{"ip": "127.0.0.1", "ports": ports}]}
    eventually(lambda: get(cluster, "ing", "web")["status"]["loadBalancer"] == wanted, "the status")
    for minor in ("1.27", "1.33", None):
        binary = str(KUBECTL_DIR / f"kubectl.{minor}") if minor else "kubectl"
        rows = kubectl(cluster, "get", "ing", binary=binary).stdout.splitlines()
        assert rows[0].split() == ["NAME", "CLASS", "HOSTS", "ADDRESS", "PORTS", "AGE"], minor
        assert rows[1].split()[:5] == ["web", "minikube-py", "a.localhost,b.localhost", "127.0.0.1", "80"], (
            minor
        )
    described = eventually(lambda: _described_with_sync(cluster), "the Sync event")
    assert re.search(r"^Address:\s+127\.0\.0\.1$", described, re.M)
    assert re.search(r"^Ingress Class:\s+minikube-py$", described, re.M)
    assert re.search(r"a\.localhost\s*\n\s+/\s+a:80", described)


def _described_with_sync(cluster: Cluster) -> str | None:
    described = ok(cluster, "describe", "ing", "web")
    return described if re.search(r"Normal\s+Sync\s+.*Scheduled for sync", described) else None


def test_two_hosts_reach_their_own_deployments(cluster: Cluster, web: None, ingress_port: int) -> None:
    with httpx.Client(base_url=f"http://127.0.0.1:{ingress_port}") as http:
        for host in ("a", "b"):
            answer = eventually(
                lambda h=host: _got(http, f"{h}.localhost", f"/probe-{h}"), f"{host} through the ingress"
            )  # type: ignore[misc]
            assert "Welcome to nginx!" in answer.text
        assert http.get("/", headers={"Host": "c.localhost"}).status_code == 404
    logs = {name: ok(cluster, "logs", f"deployment/{name}") for name in ("a", "b")}
    assert "GET /probe-a " in logs["a"] and "GET /probe-b " not in logs["a"]
    assert "GET /probe-b " in logs["b"] and "GET /probe-a " not in logs["b"]


def _got(http: httpx.Client, host: str, path: str) -> httpx.Response | None:
    answer = http.get(path, headers={"Host": host})
    return answer if answer.status_code == 200 else None


def test_a_missing_service_is_503_logged_once(cluster: Cluster, web: None, ingress_port: int) -> None:
    ok(cluster, "create", "ingress", "gone", "--rule=gone.localhost/*=nowhere:80")
    with httpx.Client(base_url=f"http://127.0.0.1:{ingress_port}") as http:
        eventually(lambda: http.get("/", headers={"Host": "gone.localhost"}).status_code == 503, "503")
        assert [http.get("/", headers={"Host": "gone.localhost"}).status_code for _ in range(3)] == [503] * 3
    line = 'ingress default/gone: answering 503: service "default/nowhere" does not exist'
    assert cluster.stderr.read_text().count(line) == 1


def test_an_ingress_without_path_type_is_refused_with_upstreams_message(cluster: Cluster) -> None:
    bad = {
        "apiVersion": "networking.k8s.io/v1",
        "kind": "Ingress",
        "metadata": {"name": "bad"},
        "spec": {
            "rules": [
                {
                    "http": {
                        "paths": [
                            {"path": "/", "backend": {"service": {"name": "a", "port": {"number": 80}}}}
                        ]
                    }
                }
            ]
        },
    }
    result = kubectl(cluster, "create", "-f", "-", stdin=json.dumps(bad))
    assert result.returncode == 1
    assert (
        'The Ingress "bad" is invalid: spec.rules[0].http.paths[0].pathType: '
        "Required value: pathType must be specified" in result.stderr
    )


@pytest.mark.parametrize("minor", ["1.27", "1.33"])
def test_older_and_newer_kubectl_create_and_describe(cluster: Cluster, web: None, minor: str) -> None:
    binary = str(KUBECTL_DIR / f"kubectl.{minor}")
    name = "v" + minor.replace(".", "")
    created = kubectl(cluster, "create", "ingress", name, f"--rule={name}.localhost/api=a:80", binary=binary)
    assert created.returncode == 0, created.stderr
    path = get(cluster, "ing", name)["spec"]["rules"][0]["http"]["paths"][0]
    assert (path["path"], path["pathType"]) == ("/api", "Exact")  # kubectl's rule without '*'
    described = kubectl(cluster, "describe", "ing", name, binary=binary)
    assert described.returncode == 0 and re.search(r"/api\s+a:80", described.stdout), described.stderr


def test_api_resources_and_explain(cluster: Cluster) -> None:
    rows = {line.split()[0]: line.split() for line in ok(cluster, "api-resources").splitlines()[1:]}
    assert rows["ingresses"][1:] == ["ing", "networking.k8s.io/v1", "true", "Ingress"]
    assert rows["ingressclasses"][1:] == ["networking.k8s.io/v1", "false", "IngressClass"]
    explained = ok(cluster, "explain", "ingress.spec.rules.http.paths.pathType")
    assert "FIELD: pathType" in explained and "Exact" in explained


def test_tls_from_a_kubectl_made_secret(cluster: Cluster, web: None, tls_port: int, tmp_path: Path) -> None:
    ca = new_certificate_authority("e2e ingress CA")
    certificate, key = issue_serving_certificate(ca, dns_names=["secure.localhost"], ip_addresses=[])
    (tmp_path / "tls.crt").write_bytes(certificate.public_bytes(serialization.Encoding.PEM))
    (tmp_path / "tls.key").write_bytes(key_pem(key))
    ok(
        cluster,
        "create",
        "secret",
        "tls",
        "secure-tls",
        f"--cert={tmp_path / 'tls.crt'}",
        f"--key={tmp_path / 'tls.key'}",
    )
    ok(cluster, "create", "ingress", "secure", "--rule=secure.localhost/*=a:80,tls=secure-tls")
    context = ssl.create_default_context(
        cadata=ca.certificate.public_bytes(serialization.Encoding.PEM).decode()
    )

    def fetch() -> bytes | None:
        address = ("127.0.0.1", tls_port)
        try:
            with (
                socket.create_connection(address, timeout=10) as raw,
                context.wrap_socket(raw, server_hostname="secure.localhost") as tls,
            ):
                tls.sendall(b"GET /secure HTTP/1.1\r\nHost: secure.localhost\r\nConnection: close\r\n\r\n")
                answer = b"".join(iter(lambda: tls.recv(65536), b""))
        except (
            ssl.SSLCertVerificationError
        ):  # the controller has not read the Secret yet: its fake certificate
            return None
        return answer if answer.startswith(b"HTTP/1.1 200 ") else None

    assert b"Welcome to nginx!" in eventually(fetch, "the page over TLS with the secret's certificate")
    rows = ok(cluster, "get", "ing", "secure").splitlines()
    assert rows[1].split()[4:6] == ["80,", "443"]  # kubectl's PORTS for an Ingress with TLS
