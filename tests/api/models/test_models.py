"""The models load upstream JSON and write it back unchanged, with upstream's field names."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from pydantic import ValidationError

from minikube_py.api.builtin import builtin_scheme
from minikube_py.api.models import MODELS, K8sModel, group_version_kinds, model_for
from minikube_py.api.models.apps_deployment import Deployment
from minikube_py.api.models.base import json_name
from minikube_py.api.models.core_objects import ConfigMap
from minikube_py.api.models.core_podstatus import PodStatus
from minikube_py.api.models.core_volume import Volume
from tests.api.models.objects import CLUSTER_ROLE, DEPLOYMENT, NODE, POD_STATUS, SERVICE


@pytest.mark.parametrize("obj", [DEPLOYMENT, NODE, CLUSTER_ROLE, SERVICE], ids=lambda o: o["kind"])
def test_round_trip_is_identity(obj: dict[str, Any]) -> None:
    model = model_for(obj["apiVersion"], obj["kind"])
    assert model is not None
    assert model.model_validate(copy.deepcopy(obj)).to_dict() == obj


def test_nested_values_are_typed() -> None:
    deploy = Deployment.model_validate(DEPLOYMENT)
    assert deploy.spec and deploy.spec.template and deploy.spec.template.spec
    container = deploy.spec.template.spec.containers[0]  # type: ignore[index]
    assert container.resources and container.resources.limits == {"cpu": "500m", "memory": "128Mi"}
    assert container.readiness_probe and container.readiness_probe.http_get
    assert container.readiness_probe.http_get.port == "http"
    assert deploy.spec.strategy and deploy.spec.strategy.rolling_update
    assert deploy.spec.strategy.rolling_update.max_unavailable == 0
    status = PodStatus.model_validate(POD_STATUS)
    assert status.pod_ip == "10.244.1.7" and status.host_ips and status.host_ips[0].ip == "10.0.0.5"


def test_construct_by_attribute_name_dumps_json_names() -> None:
    cm = ConfigMap(api_version="v1", kind="ConfigMap", data={"a": "1"}, binary_data={"b": "AAE="})
    assert cm.to_dict() == {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "data": {"a": "1"},
        "binaryData": {"b": "AAE="},
    }


def test_unknown_keys_are_kept_not_dropped() -> None:
    obj = {"apiVersion": "v1", "kind": "ConfigMap", "data": {}, "future": {"x": 1}}
    assert ConfigMap.model_validate(obj).to_dict() == obj


@pytest.mark.parametrize(
    ("attribute", "json"),
    [
        ("api_version", "apiVersion"),
        ("pod_ip", "podIP"),
        ("pod_ips", "podIPs"),
        ("host_pid", "hostPID"),
        ("host_ipc", "hostIPC"),
        ("pod_cidrs", "podCIDRs"),
        ("provider_id", "providerID"),
        ("system_uuid", "systemUUID"),
        ("non_resource_urls", "nonResourceURLs"),
        ("set_hostname_as_fqdn", "setHostnameAsFQDN"),
        ("downward_api", "downwardAPI"),
        ("continue_", "continue"),
        ("ip_families", "ipFamilies"),
    ],
)
def test_json_names(attribute: str, json: str) -> None:
    assert json_name(attribute) == json


def test_irregular_names_are_explicit_aliases() -> None:
    assert Volume.model_fields["scale_io"].alias == "scaleIO"
    node = MODELS[("v1", "Node")].model_validate(NODE)
    assert node.to_dict()["status"]["daemonEndpoints"] == {"kubeletEndpoint": {"Port": 10250}}


def test_every_served_kind_has_a_model() -> None:
    missing = [rt.kind for rt in builtin_scheme() if model_for(rt.api_version, rt.kind) is None]
    assert missing == []


def test_group_version_kinds() -> None:
    assert group_version_kinds(Deployment) == [("apps", "v1", "Deployment")]
    core_event = model_for("v1", "Event")
    assert core_event is not None and core_event is not model_for("events.k8s.io/v1", "Event")


def test_every_field_is_optional() -> None:
    for model in _all_models():
        model()  # nothing is required to load


@pytest.mark.parametrize("value", ["500m", "1Gi", "1e3", "0.5", 2, 0.25])
def test_quantities_accepted(value: str | float) -> None:
    limits = {"limits": {"cpu": value}}
    assert (
        MODELS[("v1", "Pod")]
        .model_validate({"spec": {"containers": [{"name": "c", "resources": limits}]}})
        .to_dict()["spec"]["containers"][0]["resources"]
        == limits
    )


def test_malformed_quantity_rejected() -> None:
    with pytest.raises(ValidationError, match="quantities must match the regular expression"):
        MODELS[("v1", "Pod")].model_validate(
            {"spec": {"containers": [{"name": "c", "resources": {"limits": {"cpu": "lots"}}}]}}
        )


def test_int_or_string_keeps_its_type() -> None:
    port = MODELS[("v1", "Service")].model_validate(SERVICE).to_dict()["spec"]["ports"][0]
    assert port["targetPort"] == "http" and port["port"] == 80


def _all_models() -> set[type[K8sModel]]:
    from minikube_py.api.models.shapes import ListOf, MapOf, fields_of

    seen: set[type[K8sModel]] = set()
    todo: list[Any] = list(MODELS.values())
    while todo:
        shape = todo.pop()
        if isinstance(shape, ListOf):
            todo.append(shape.item)
        elif isinstance(shape, MapOf):
            todo.append(shape.value)
        elif isinstance(shape, type) and shape not in seen:
            seen.add(shape)
            todo.extend(fields_of(shape).values())
    return seen
