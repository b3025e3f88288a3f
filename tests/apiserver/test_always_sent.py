"""Fields upstream's JSON always carries (issue 13 items 16 and 17), and the guard that keeps
our models' required fields in step with upstream's, as the official Python client (generated
from upstream's OpenAPI) enforces them."""

from __future__ import annotations

import sys
from typing import Any

import httpx
import kubernetes.client as typed
import pytest

from minikube_py.api.models.base import K8sModel
from minikube_py.api.models.registry import MODELS
from minikube_py.api.models.shapes import ListOf, MapOf, fields_of

LABELS = {"app": "web"}
TEMPLATE = {"metadata": {"labels": LABELS}, "spec": {"containers": [{"name": "c", "image": "nginx"}]}}
SELECTOR = {"matchLabels": LABELS}
NEW_OBJECTS: list[tuple[str, dict[str, Any], str]] = [
    (
        "/apis/apps/v1/namespaces/default/deployments",
        {"kind": "Deployment", "spec": {"selector": SELECTOR, "template": TEMPLATE}},
        "V1Deployment",
    ),
    (
        "/apis/apps/v1/namespaces/default/replicasets",
        {"kind": "ReplicaSet", "spec": {"selector": SELECTOR, "template": TEMPLATE}},
        "V1ReplicaSet",
    ),
    (
        "/apis/apps/v1/namespaces/default/statefulsets",
        {"kind": "StatefulSet", "spec": {"selector": SELECTOR, "template": TEMPLATE, "serviceName": "web"}},
        "V1StatefulSet",
    ),
    (
        "/apis/apps/v1/namespaces/default/daemonsets",
        {"kind": "DaemonSet", "spec": {"selector": SELECTOR, "template": TEMPLATE}},
        "V1DaemonSet",
    ),
    (
        "/apis/batch/v1/namespaces/default/jobs",
        {
            "kind": "Job",
            "spec": {"template": {**TEMPLATE, "spec": {**TEMPLATE["spec"], "restartPolicy": "Never"}}},
        },
        "V1Job",
    ),
    (
        "/api/v1/namespaces/default/resourcequotas",
        {"kind": "ResourceQuota", "spec": {"hard": {"pods": "3"}}},
        "V1ResourceQuota",
    ),
]


@pytest.mark.parametrize(("url", "body", "client_model"), NEW_OBJECTS)
async def test_new_objects_have_a_status(
    api: httpx.AsyncClient, url: str, body: dict[str, Any], client_model: str
) -> None:
    version = "v1" if url.startswith("/api/") else url.split("/")[2] + "/v1"
    obj = {"apiVersion": version, "metadata": {"name": "web"}, **body}
    created = await api.post(url, json=obj)
    assert created.status_code == 201, created.text
    got = (await api.get(f"{url}/web")).json()
    [listed] = (await api.get(url)).json()["items"]
    for seen in (created.json(), got, listed):
        assert isinstance(seen.get("status"), dict), seen
    decoded = getattr(typed, client_model).from_dict(got)  # the official client's typed model
    assert decoded.status is not None


async def test_a_created_node_reports_every_node_info_field(api: httpx.AsyncClient) -> None:
    node = {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": "n1"},
        "status": {"nodeInfo": {"kubeletVersion": "v1.32.0", "architecture": "amd64"}},
    }
    created = await api.post("/api/v1/nodes", json=node)
    assert created.status_code == 201, created.text
    info = (await api.get("/api/v1/nodes/n1")).json()["status"]["nodeInfo"]
    assert info["kubeProxyVersion"] == "" and info["kubeletVersion"] == "v1.32.0"
    listed = (await api.get("/api/v1/nodes")).json()
    typed.V1NodeList.from_dict(listed)  # raised a ValidationError before the fix


async def test_status_updates_keep_required_fields(api: httpx.AsyncClient) -> None:
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}, "spec": TEMPLATE["spec"]}
    assert (await api.post("/api/v1/namespaces/default/pods", json=pod)).status_code == 201
    status = {"status": {"phase": "Running", "containerStatuses": [{"name": "c", "ready": True}]}}
    patched = await api.patch(
        "/api/v1/namespaces/default/pods/p/status",
        json=status,
        headers={"Content-Type": "application/merge-patch+json"},
    )
    assert patched.status_code == 200, patched.text
    [container] = patched.json()["status"]["containerStatuses"]
    assert (container["restartCount"], container["image"], container["imageID"]) == (0, "", "")
    typed.V1PodList.from_dict((await api.get("/api/v1/pods")).json())


# -- the guard: our required fields against upstream's -----------------------------------------

# Fields the client requires that we deliberately leave to validation or to the fill of spec:
# the top-level ``spec`` (always written, as ``{}`` at least, by ``alwayssent``) and spec-side
# fields a valid object always has.
SPEC_SIDE = {
    ("Deployment", "spec"),
    ("ReplicaSet", "spec"),
    ("StatefulSet", "spec"),
    ("DaemonSet", "spec"),
    ("CronJob", "spec"),
    ("TokenReviewSpec", "token"),
    ("ContainerRestartRule", "action"),
    ("ContainerRestartRuleOnExitCodes", "operator"),
    ("ControllerRevision", "data"),  # not required by upstream's schema, but by its validation
}


def served_models() -> set[type[K8sModel]]:
    seen: set[type[K8sModel]] = set()

    def walk(model: type[K8sModel]) -> None:
        if model in seen:
            return
        seen.add(model)
        for shape in fields_of(model).values():
            while isinstance(shape, ListOf | MapOf):
                shape = shape.item if isinstance(shape, ListOf) else shape.value
            if isinstance(shape, type):
                walk(shape)

    for model in MODELS.values():
        walk(model)
    return seen


def client_model(model: type[K8sModel]) -> Any:
    """The official client's class for ``model`` (``V1Pod``, ``CoreV1Event``...), or None."""
    package = str(vars(sys.modules[model.__module__]).get("OPENAPI_PACKAGE", "")).split(".")
    version, group = package[-1].capitalize(), package[-2].capitalize()
    for name in (f"{group}{version}{model.__name__}", f"{version}{model.__name__}"):
        if hasattr(typed, name):
            return getattr(typed, name)
    return None


def client_required(cls: Any) -> set[str]:
    names = getattr(cls, "attribute_map", {})
    return {names.get(n, n) for n, info in cls.model_fields.items() if info.is_required()}


def test_our_required_fields_cover_what_upstream_always_sends() -> None:
    missing = []
    compared = 0
    for model in served_models():
        cls = client_model(model)
        if cls is None:
            continue  # metrics.k8s.io has no typed model in the client
        compared += 1
        for name in sorted(client_required(cls) - set(model.required_fields)):
            if (model.__name__, name) not in SPEC_SIDE:
                missing.append(f"{model.__name__}.{name}")
    assert compared > 150
    assert missing == [], "add these to the models' required_fields (upstream sends them always)"
