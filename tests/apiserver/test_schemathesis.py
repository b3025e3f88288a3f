"""Schemathesis over the served OpenAPI v3 documents of ``api/v1`` and ``apis/apps/v1``: every
operation, with requests generated from its parameters and body schemas, must never answer 5xx,
every 2xx JSON answer must match the schema the document declares for it, and nothing the
fuzzer stored may make the server log a traceback (the controllers act on those objects too).

Against a real ``minikube-py up`` over HTTPS with the admin client certificate. The run is
deterministic (Hypothesis derandomized: a fixed seed) and bounded (``EXAMPLES`` per operation,
no shrinking), about a minute on an idle 2-core machine. A few objects named ``fuzz`` exist in
``default`` beforehand so that item operations reach the handlers and not only 404s; namespaced
operations run in ``default``. 4xx answers are expected (generated bodies are often invalid)
and only counted. The connecting subresources (exec, attach, portforward) are left out: they
need an upgrade to SPDY or WebSocket that a plain request cannot make; so are the proxy
subresources, whose answers are the backend's (or upstream's 503 when there is none: ``no
endpoints available for service "fuzz"``), tested in ``test_proxy_*.py``. Watches are read only up
to their status line and headers (a watch streams until its timeout).
"""

from __future__ import annotations

import collections
import json
import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest
import requests
import schemathesis
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from schemathesis.specs.openapi.checks import content_type_conformance, response_schema_conformance

from minikube_py.api.unstructured import Object
from tests.cluster import Cluster, running_up

pytestmark = pytest.mark.e2e

# per operation; SCHEMATHESIS_EXAMPLES=50 for a deeper hunt by hand (the seed stays fixed)
EXAMPLES = int(os.environ.get("SCHEMATHESIS_EXAMPLES", "5"))
NAME = "fuzz"
CONNECT = ("/exec", "/attach", "/portforward", "/proxy", "/proxy/{path}")
CONTAINERS: Object = {"containers": [{"name": "c", "image": "busybox"}]}
TEMPLATE: Object = {"metadata": {"labels": {"app": NAME}}, "spec": CONTAINERS}
WORKLOAD: Object = {"selector": {"matchLabels": {"app": NAME}}, "template": TEMPLATE}
SEEDS: dict[str, list[tuple[str, Object]]] = {
    "api/v1": [
        ("configmaps", {"kind": "ConfigMap", "data": {"a": "b"}}),
        ("secrets", {"kind": "Secret", "stringData": {"a": "b"}}),
        ("serviceaccounts", {"kind": "ServiceAccount"}),
        ("services", {"kind": "Service", "spec": {"ports": [{"port": 80}]}}),
        ("pods", {"kind": "Pod", "spec": CONTAINERS}),
    ],
    "apis/apps/v1": [
        ("deployments", {"kind": "Deployment", "spec": WORKLOAD}),
        ("replicasets", {"kind": "ReplicaSet", "spec": WORKLOAD}),
        ("statefulsets", {"kind": "StatefulSet", "spec": {**WORKLOAD, "serviceName": NAME}}),
        ("daemonsets", {"kind": "DaemonSet", "spec": WORKLOAD}),
    ],
}


@dataclass
class Findings:
    """Every 5xx and schema mismatch seen, and a count of status codes."""

    codes: collections.Counter[int] = field(default_factory=collections.Counter)
    failures: list[str] = field(default_factory=list)
    serial: int = 0

    def add(self, label: str, what: str, curl: str) -> None:
        if len(self.failures) < 50:
            self.failures.append(f"{label}: {what}\n    {curl}")


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    yield from running_up(tmp_path_factory.mktemp("schemathesis"))


@pytest.fixture(scope="module")
def session(cluster: Cluster) -> Iterator[requests.Session]:
    pki = cluster.data_dir / "pki"
    with requests.Session() as session:
        session.trust_env = False  # REQUESTS_CA_BUNDLE would replace the cluster's CA
        session.verify = str(cluster.ca_file)
        session.cert = (str(pki / "admin.crt"), str(pki / "admin.key"))
        yield session


def _seed(cluster: Cluster, session: requests.Session, group_version: str) -> None:
    api_version = group_version.removeprefix("api/").removeprefix("apis/")
    for resource, body in SEEDS[group_version]:
        obj = {"apiVersion": api_version, "metadata": {"name": NAME}, **body}
        url = f"{cluster.url}/{group_version}/namespaces/default/{resource}"
        response = session.post(url, json=obj, timeout=10)
        assert response.status_code in (201, 409), response.text


def _typed(case: Any, operation: dict[str, Any], serial: int) -> None:
    """Give a generated object body its kind's ``apiVersion`` and ``kind`` and a valid name (the
    path's, or a new one on create), so that its other fields reach validation and storage
    instead of stopping at a mismatched kind or name."""
    gvk = operation.get("x-kubernetes-group-version-kind")
    if not isinstance(case.body, dict) or gvk is None or "patch" in operation["operationId"]:
        return
    if operation["x-kubernetes-action"] not in ("post", "put") or not case.body:
        return
    group, version = gvk["group"], gvk["version"]
    case.body["apiVersion"] = f"{group}/{version}" if group else version
    case.body["kind"] = gvk["kind"]
    name = (case.path_parameters or {}).get("name") or f"{NAME}-{serial}"
    case.body["metadata"] = {"name": name, "labels": {"app": NAME}}


def _request(case: Any, cluster: Cluster, session: requests.Session) -> tuple[int, str, Any]:
    """Send ``case``: (status, body text, response to validate). A watch that started is
    closed once its headers arrived (its body streams until its timeout) and not validated."""
    query = case.query if isinstance(case.query, dict) else {}
    watching = "/watch/" in case.path or str(query.get("watch", "false")).lower() not in ("false", "0")
    if not watching:
        response = case.call(
            base_url=cluster.url, session=session, timeout=30, verify=session.verify, cert=session.cert
        )
        return response.status_code, response.text, response
    kwargs = case.as_transport_kwargs(base_url=cluster.url)
    kwargs.pop("cookies", None)
    with session.request(**kwargs, stream=True, timeout=30) as streamed:
        text = "" if streamed.status_code == 200 else streamed.text
        return streamed.status_code, text, None


def _expected_server_error(code: int, text: str) -> bool:
    """Upstream's one 5xx for a well-formed request: a resourceVersion newer than the store's
    after its 3 s wait (504 Timeout, "Too large resource version")."""
    return code == 504 and "Too large resource version" in text


def _fuzz(group_version: str, cluster: Cluster, session: requests.Session) -> Findings:
    _seed(cluster, session, group_version)
    document = session.get(f"{cluster.url}/openapi/v3/{group_version}", timeout=30).json()
    schema = schemathesis.openapi.from_dict(document)
    findings = Findings()
    for result in schema.get_all_operations():
        operation = result.ok()  # type: ignore[union-attr]  # an invalid operation fails the test
        if not operation.path.endswith(CONNECT):
            declared = document["paths"][operation.path][operation.method.lower()]
            _fuzz_operation(operation, declared, cluster, session, findings)
    return findings


def _fuzz_operation(
    operation: Any, declared: dict[str, Any], cluster: Cluster, session: requests.Session, findings: Findings
) -> None:
    """``EXAMPLES`` generated requests to one operation, in ``default``; item operations other
    than DELETE also on the seeded ``fuzz`` objects."""
    fixed = {"namespace": "default"} if "{namespace}" in operation.path else {}
    strategies = [operation.as_strategy(path_parameters=fixed or None)]
    if "{name}" in operation.path and operation.method.upper() != "DELETE":
        strategies.append(operation.as_strategy(path_parameters={**fixed, "name": NAME}))

    @settings(
        max_examples=EXAMPLES,
        derandomize=True,  # the fixed seed: every run sends the same requests
        deadline=None,
        database=None,
        phases=[Phase.explicit, Phase.generate],  # no shrinking: findings are collected, not raised
        suppress_health_check=list(HealthCheck),
    )
    @given(st.one_of(strategies))
    def run(case: Any) -> None:
        findings.serial += 1
        if findings.serial % 2:  # half typed and named, half as generated
            _typed(case, declared, findings.serial)
        curl = case.as_curl_command(base_url=cluster.url)[:1000]
        try:
            code, text, response = _request(case, cluster, session)
        except requests.RequestException as err:
            findings.add(operation.label, f"no answer: {err!r}", curl)
            return
        findings.codes[code] += 1
        if code >= 500 and not _expected_server_error(code, text):
            findings.add(operation.label, f"{code} {text[:300]}", curl)
        elif response is not None and 200 <= code < 300:
            try:
                case.validate_response(
                    response, checks=[response_schema_conformance, content_type_conformance]
                )
            except Exception as err:  # schemathesis raises a group of failures
                findings.add(operation.label, f"{code} does not match its schema: {str(err)[:600]}", curl)

    run()


@pytest.mark.parametrize("group_version", ["api/v1", "apis/apps/v1"])
def test_no_server_errors(group_version: str, cluster: Cluster, session: requests.Session) -> None:
    logged = len(cluster.stderr.read_text())
    findings = _fuzz(group_version, cluster, session)
    print(group_version, json.dumps(dict(sorted(findings.codes.items()))))
    assert sum(findings.codes.values()) > 0
    assert any(200 <= code < 300 for code in findings.codes), findings.codes
    assert not findings.failures, "\n".join(findings.failures)
    # a handler's exception is answered 500 above; one in a controller acting on what the
    # fuzzer stored would only be logged
    log = cluster.stderr.read_text()[logged:]
    assert "Traceback" not in log, log[log.index("Traceback") - 500 :][:5000]
