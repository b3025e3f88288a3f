"""Webhooks end to end: ``up`` (which enables both webhook plugins) with real kubectl, a real
HTTPS webhook server, and the audit log's annotations."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

from minikube_py import jsonutil
from tests.cluster import Cluster, free_port, kubectl, start_up
from tests.webhook_server import WebhookServer, deny, patch

CONFIGMAPS = [
    {"operations": ["CREATE"], "apiGroups": [""], "apiVersions": ["v1"], "resources": ["configmaps"]}
]


def webhook(name: str, server: WebhookServer, path: str, **fields: Any) -> dict[str, Any]:
    return {
        "name": name,
        "clientConfig": {"url": server.url(path), "caBundle": server.ca_bundle},
        "rules": CONFIGMAPS,
        "sideEffects": "None",
        "admissionReviewVersions": ["v1"],
        "namespaceSelector": {"matchLabels": {"webhooks": "on"}},
        **fields,
    }


def apply(cluster: Cluster, tmp: Path, obj: dict[str, Any]) -> None:
    path = tmp / f"{obj['metadata']['name']}.json"
    path.write_text(json.dumps(obj))
    done = kubectl(cluster, "apply", "-f", str(path))
    assert done.returncode == 0, done.stderr


def audit_annotations(cluster: Cluster, name: str, timeout: float = 5.0) -> dict[str, str]:
    """The annotations of the audited create of configmap ``name`` (written by a background thread)."""
    log, deadline = cluster.data_dir / "audit.log", time.monotonic() + timeout
    while time.monotonic() < deadline:
        lines = log.read_bytes().splitlines() if log.exists() else []
        for event in map(jsonutil.loads, lines):
            ref = event.get("objectRef") or {}
            if (ref.get("name"), event.get("verb"), event.get("stage")) == (
                name,
                "create",
                "ResponseComplete",
            ):
                annotations: dict[str, str] = event.get("annotations") or {}
                return annotations
        time.sleep(0.05)
    return {}


def wait_for_webhooks(cluster: Cluster, server: WebhookServer, timeout: float = 5.0) -> None:
    """Dry-run creates until the webhooks answer (the plugins read configurations from the
    watch cache, a moment behind the store)."""
    deadline = time.monotonic() + timeout
    while not server.seen and time.monotonic() < deadline:
        kubectl(cluster, "create", "configmap", "probe", "--dry-run=server")
        time.sleep(0.05)
    server.seen.clear()


@pytest.mark.e2e
def test_kubectl_through_webhooks(tmp_path: Path) -> None:
    server = WebhookServer()
    server.handle("/label", patch([{"op": "add", "path": "/metadata/labels", "value": {"checked": "true"}}]))
    server.handle("/deny", deny("configmaps named forbidden are not allowed"))
    cluster = start_up(tmp_path, free_port())
    try:
        cluster.wait_ready()
        with server.in_thread():
            mutating = {
                "apiVersion": "admissionregistration.k8s.io/v1",
                "kind": "MutatingWebhookConfiguration",
                "metadata": {"name": "label"},
                "webhooks": [
                    webhook(
                        "label.example.com",
                        server,
                        "/label",
                        objectSelector={"matchExpressions": [{"key": "deny", "operator": "DoesNotExist"}]},
                    )
                ],
            }
            validating = {
                "apiVersion": "admissionregistration.k8s.io/v1",
                "kind": "ValidatingWebhookConfiguration",
                "metadata": {"name": "deny"},
                "webhooks": [
                    webhook(
                        "deny.example.com",
                        server,
                        "/deny",
                        objectSelector={"matchExpressions": [{"key": "deny", "operator": "Exists"}]},
                    )
                ],
            }
            assert kubectl(cluster, "label", "namespace", "default", "webhooks=on").returncode == 0
            apply(cluster, tmp_path, mutating)
            apply(cluster, tmp_path, validating)
            wait_for_webhooks(cluster, server)

            assert kubectl(cluster, "create", "configmap", "plain", "--from-literal=a=b").returncode == 0
            labels = kubectl(cluster, "get", "configmap", "plain", "-o", "jsonpath={.metadata.labels}")
            assert json.loads(labels.stdout) == {"checked": "true"}
            assert kubectl(cluster, "create", "configmap", "elsewhere", "-n", "kube-public").returncode == 0
            # kube-public is not selected (names and namespaces in the list, so a failure says who called)
            seen = [
                (s.path, s.review["request"].get("namespace"), s.review["request"].get("name"))
                for s in server.seen
            ]
            assert seen == [("/label", "default", "plain")]

            path = tmp_path / "forbidden.json"
            forbidden = {
                "apiVersion": "v1",
                "kind": "ConfigMap",
                "metadata": {"name": "forbidden", "labels": {"deny": "1"}},
            }
            path.write_text(json.dumps(forbidden))
            refused = kubectl(cluster, "create", "-f", str(path))
            assert refused.returncode != 0
            assert (
                'Error from server (Forbidden): error when creating "' + str(path) + '": admission webhook '
                '"deny.example.com" denied the request: configmaps named forbidden are not allowed'
            ) in refused.stderr
            annotations = audit_annotations(cluster, "plain")
    finally:
        cluster.stop()
    mutation = json.loads(annotations["mutation.webhook.admission.k8s.io/round_0_index_0"])
    assert mutation == {"configuration": "label", "webhook": "label.example.com", "mutated": True}
