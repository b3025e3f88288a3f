"""Record the request bodies real kubectl sends, against a throwaway plain-HTTP fake apiserver.

kubectl >= 1.32 writes protobuf for typed-client writes; 1.31 writes JSON for the same command. The
fixtures in ``fixtures/`` come from here: ``python -m tests.api.protobuf.capture`` rewrites them. The
fake answers discovery, ``/version``, empty OpenAPI and every POST with a plausible JSON object.
"""

from __future__ import annotations

import datetime
import json
import shlex
import shutil
import subprocess
import tempfile
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

KUBECTL = shutil.which("kubectl") or "kubectl"
KUBECTL_DIR = Path(KUBECTL).resolve().parent
FIXTURES = Path(__file__).parent / "fixtures"

# group-version -> [(resource, kind, namespaced)]
RESOURCES: dict[str, list[tuple[str, str, bool]]] = {
    "v1": [
        ("namespaces", "Namespace", False),
        ("configmaps", "ConfigMap", True),
        ("secrets", "Secret", True),
        ("serviceaccounts", "ServiceAccount", True),
        ("serviceaccounts/token", "TokenRequest", True),
        ("services", "Service", True),
        ("resourcequotas", "ResourceQuota", True),
        ("pods", "Pod", True),
    ],
    "apps/v1": [("deployments", "Deployment", True)],
    "batch/v1": [("jobs", "Job", True), ("cronjobs", "CronJob", True)],
    "rbac.authorization.k8s.io/v1": [
        ("roles", "Role", True),
        ("rolebindings", "RoleBinding", True),
        ("clusterroles", "ClusterRole", False),
        ("clusterrolebindings", "ClusterRoleBinding", False),
    ],
    "policy/v1": [("poddisruptionbudgets", "PodDisruptionBudget", True)],
    "scheduling.k8s.io/v1": [("priorityclasses", "PriorityClass", False)],
    "networking.k8s.io/v1": [("ingresses", "Ingress", True)],
    "authorization.k8s.io/v1": [
        ("selfsubjectaccessreviews", "SelfSubjectAccessReview", False),
        ("selfsubjectrulesreviews", "SelfSubjectRulesReview", False),
    ],
    "authentication.k8s.io/v1": [("selfsubjectreviews", "SelfSubjectReview", False)],
}
REPLY_STATUS = {
    "SelfSubjectAccessReview": {"allowed": True},
    "SelfSubjectRulesReview": {"resourceRules": [], "nonResourceRules": [], "incomplete": False},
    "SelfSubjectReview": {"userInfo": {"username": "admin"}},
    "TokenRequest": {"token": "fake-token", "expirationTimestamp": "2030-01-01T00:00:00Z"},
}


@dataclass(frozen=True, slots=True)
class Request:
    """One recorded write."""

    method: str
    path: str
    content_type: str
    body: bytes


def _resource_list(group_version: str) -> dict[str, Any]:
    verbs = ["create", "delete", "get", "list", "patch", "update", "watch"]
    resources = [
        {"name": name, "singularName": "", "namespaced": namespaced, "kind": kind, "verbs": verbs}
        for name, kind, namespaced in RESOURCES[group_version]
    ]
    return {
        "kind": "APIResourceList",
        "apiVersion": "v1",
        "groupVersion": group_version,
        "resources": resources,
    }


def _discovery(path: str) -> Any:
    if path == "/version":
        return {"major": "1", "minor": "32", "gitVersion": "v1.32.0", "platform": "linux/amd64"}
    if path == "/api":
        return {"kind": "APIVersions", "versions": ["v1"]}
    if path == "/apis":
        groups = []
        for gv in RESOURCES:
            if "/" in gv:
                entry = {"groupVersion": gv, "version": gv.split("/")[1]}
                groups.append({"name": gv.split("/")[0], "versions": [entry], "preferredVersion": entry})
        return {"kind": "APIGroupList", "apiVersion": "v1", "groups": groups}
    if path == "/openapi/v3":
        return {"paths": {}}
    gv = path.removeprefix("/api/").removeprefix("/apis/")
    return _resource_list(gv) if gv in RESOURCES else None


def _kind_for(path: str) -> tuple[str, str]:
    parts = path.split("?")[0].strip("/").split("/")
    gv = parts[1] if parts[0] == "api" else "/".join(parts[1:3])
    rest = parts[2:] if parts[0] == "api" else parts[3:]
    if rest[:1] == ["namespaces"] and len(rest) > 2:
        rest = rest[2:]
    resource = "/".join([rest[0], *rest[2:3]])
    kind = next(k for name, k, _ in RESOURCES[gv] if name == resource)
    return ("authentication.k8s.io/v1" if kind == "TokenRequest" else gv), kind


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    recorded: list[Request]

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def _reply(self, code: int, body: bytes, content_type: str = "application/json") -> None:
        self.send_response(code)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self) -> None:
        path = self.path.split("?")[0]
        if path == "/openapi/v2":
            self._reply(200, b"", "application/octet-stream")
            return
        found = _discovery(path)
        if found is None:
            status = {
                "kind": "Status",
                "apiVersion": "v1",
                "status": "Failure",
                "reason": "NotFound",
                "code": 404,
            }
            self._reply(404, json.dumps(status).encode())
        else:
            self._reply(200, json.dumps(found).encode())

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        self.recorded.append(Request("POST", self.path, self.headers.get("Content-Type", ""), body))
        api_version, kind = _kind_for(self.path)
        reply: dict[str, Any] = {"apiVersion": api_version, "kind": kind, "metadata": {"name": "captured"}}
        if kind in REPLY_STATUS:
            reply["status"] = REPLY_STATUS[kind]
        self._reply(201, json.dumps(reply).encode())


@contextmanager
def fake_apiserver() -> Iterator[tuple[str, list[Request]]]:
    """Serve the fake on 127.0.0.1; yield its URL and the list that collects the writes."""
    recorded: list[Request] = []
    handler = type("Handler", (_Handler,), {"recorded": recorded})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", recorded
    finally:
        server.shutdown()
        server.server_close()


def _kubeconfig(directory: Path, url: str) -> Path:
    config = {
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [{"name": "fake", "cluster": {"server": url}}],
        "users": [{"name": "fake", "user": {}}],
        "contexts": [
            {"name": "fake", "context": {"cluster": "fake", "user": "fake", "namespace": "default"}}
        ],
        "current-context": "fake",
    }
    path = directory / "kubeconfig"
    path.write_text(json.dumps(config))
    return path


def run_kubectl(binary: str, args: list[str]) -> list[Request]:
    """Run one kubectl command against a fresh fake and return the writes it made."""
    with tempfile.TemporaryDirectory() as tmp, fake_apiserver() as (url, recorded):
        directory = Path(tmp)
        config = _kubeconfig(directory, url)
        command = [binary, "--kubeconfig", str(config), "--cache-dir", str(directory / "cache"), *args]
        result = subprocess.run(command, capture_output=True, text=True, timeout=60, cwd=directory)
        if result.returncode not in (0, 1):  # `auth can-i` exits 1 for "no"
            raise RuntimeError(f"{' '.join(args)}: {result.stderr.strip()}")
        return list(recorded)


def write_inputs(directory: Path) -> dict[str, str]:
    """Files the commands read, by placeholder: a non-UTF-8 blob (``binaryData``) and a TLS pair."""
    blob = directory / "blob.bin"
    blob.write_bytes(bytes(range(256)))
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "example.com")])
    now = datetime.datetime(2024, 1, 1, tzinfo=datetime.UTC)
    cert = x509.CertificateBuilder(
        name, name, key.public_key(), 1, now, now + datetime.timedelta(days=1)
    ).sign(key, hashes.SHA256())
    (directory / "tls.crt").write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    pem = key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )
    (directory / "tls.key").write_bytes(pem)
    return {"blob": str(blob), "cert": str(directory / "tls.crt"), "key": str(directory / "tls.key")}


# fixture name -> kubectl arguments (shell words); "{blob}" becomes the path of a non-UTF-8 file.
COMMANDS: dict[str, str] = {
    "configmap": "create configmap cm1 --from-literal=a=b --from-literal=empty= --from-file={blob}",
    "secret": "create secret generic s1 --from-literal=p=q --from-file={blob}",
    "secret_typed": "create secret generic s2 --type=example.com/x --from-literal=k=v",
    "secret_tls": "create secret tls tls1 --cert={cert} --key={key}",
    "secret_docker": "create secret docker-registry reg --docker-server=r.io --docker-username=u "
    "--docker-password=pw",
    "namespace": "create namespace ns1",
    "serviceaccount": "create serviceaccount sa1",
    "deployment": "create deployment web --image=nginx --replicas=3 --port=80",
    "deployment_multi": "create deployment multi --image=nginx --image=redis:7",
    "job": "create job j1 --image=busybox -- echo hi",
    "cronjob": "create cronjob cj1 --image=busybox '--schedule=*/5 * * * *' --restart=OnFailure -- date",
    "service": "create service nodeport svc1 --tcp=80:8080 --tcp=443 --node-port=30080",
    "service_external": "create service externalname ext1 --external-name=example.com",
    "quota": "create quota q1 --hard=pods=2,requests.cpu=500m,limits.memory=1Gi --scopes=NotBestEffort",
    "role": "create role r1 --verb=get,list --resource=pods,deployments.apps --resource-name=x",
    "clusterrole": "create clusterrole cr1 --verb=get --non-resource-url=/logs",
    "clusterrole_aggregated": "create clusterrole cr2 --aggregation-rule=rbac.example.com/aggregate=true",
    "rolebinding": "create rolebinding rb1 --role=r1 --user=alice --group=devs --serviceaccount=default:sa1",
    "clusterrolebinding": "create clusterrolebinding crb1 --clusterrole=cr1 --user=bob",
    "pdb": "create poddisruptionbudget pdb1 --selector=app=web --max-unavailable=30%",
    "pdb_int": "create poddisruptionbudget pdb2 --selector=app=web --min-available=2",
    "priorityclass": "create priorityclass high --value=1000 --global-default --description=urgent",
    "ingress": "create ingress ing1 --class=nginx --rule=foo.com/bar*=svc:80,tls=secret1 "
    "--default-backend=def:http",
    "can_i": "auth can-i list pods",
    "can_i_subresource": "auth can-i get deployments.apps/scale -n kube-system --as=x",
    "can_i_nonresource": "auth can-i get /logs",
    "can_i_list": "auth can-i --list -n kube-system",
    "whoami": "auth whoami",
    "token": "create token default --duration=1h --audience=a --audience=b",
    "token_bound": "create token default --bound-object-kind=Pod --bound-object-name=p1 "
    "--bound-object-uid=u-1",
}


def capture(name: str, binary: str, inputs: dict[str, str]) -> Request:
    """The single write that ``COMMANDS[name]`` makes with ``binary``; ``inputs`` fill the placeholders."""
    args = [word.format(**inputs) for word in shlex.split(COMMANDS[name])]
    writes = run_kubectl(binary, args)
    if len(writes) != 1:
        raise RuntimeError(f"{name}: expected one write, got {[w.path for w in writes]}")
    return writes[0]


def main() -> int:
    """Rewrite ``fixtures/NAME.pb`` (kubectl 1.32) and ``fixtures/NAME.json`` (kubectl 1.31)."""
    FIXTURES.mkdir(exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        inputs = write_inputs(Path(tmp))
        for name in COMMANDS:
            _capture_pair(name, inputs)
    return 0


def _capture_pair(name: str, inputs: dict[str, str]) -> None:
    """Write ``NAME.pb`` and ``NAME.json``: the same command through kubectl 1.32 and 1.31."""
    proto = capture(name, str(KUBECTL_DIR / "kubectl.1.32"), inputs)
    plain = capture(name, str(KUBECTL_DIR / "kubectl.1.31"), inputs)
    if not proto.content_type.startswith("application/vnd.kubernetes.protobuf"):
        raise RuntimeError(f"{name}: kubectl 1.32 sent {proto.content_type!r}, not protobuf")
    if not plain.content_type.startswith("application/json"):
        raise RuntimeError(f"{name}: kubectl 1.31 sent {plain.content_type!r}, not JSON")
    (FIXTURES / f"{name}.pb").write_bytes(proto.body)
    pretty = json.dumps(json.loads(plain.body), indent=2, sort_keys=True)
    (FIXTURES / f"{name}.json").write_text(pretty + "\n")
    print(f"{name}: {proto.path.split('?')[0]} {len(proto.body)} bytes")


if __name__ == "__main__":
    raise SystemExit(main())
