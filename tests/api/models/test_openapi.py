"""OpenAPI v3 component schemas generated from the models, in upstream's shape."""

from __future__ import annotations

from typing import Any

from minikube_py.api.models import MODELS
from minikube_py.api.models.apps_deployment import Deployment
from minikube_py.api.models.base import K8sModel
from minikube_py.api.models.core_container import Container
from minikube_py.api.models.openapi import NAMED_SCALARS, SchemaSet, schema_name

APPS = "io.k8s.api.apps.v1"
CORE = "io.k8s.api.core.v1"
META = "io.k8s.apimachinery.pkg.apis.meta.v1"


def deployment_schemas() -> dict[str, Any]:
    schemas = SchemaSet()
    schemas.add(Deployment, [("apps", "v1", "Deployment")])
    schemas.add_list(Deployment, "apps", "v1", "Deployment")
    return schemas.schemas


def test_upstream_names() -> None:
    assert schema_name(Deployment) == f"{APPS}.Deployment"
    assert schema_name(Container) == f"{CORE}.Container"
    assert schema_name(MODELS[("v1", "Status")]) == f"{META}.Status"
    assert schema_name(MODELS[("events.k8s.io/v1", "Event")]) == "io.k8s.api.events.v1.Event"


def test_top_level_kind() -> None:
    schema = deployment_schemas()[f"{APPS}.Deployment"]
    assert schema["x-kubernetes-group-version-kind"] == [
        {"group": "apps", "kind": "Deployment", "version": "v1"}
    ]
    assert schema["type"] == "object" and schema["description"]
    assert schema["properties"]["spec"]["allOf"] == [{"$ref": f"#/components/schemas/{APPS}.DeploymentSpec"}]
    assert schema["properties"]["spec"]["description"] == "The desired behaviour of the deployment."
    assert schema["properties"]["apiVersion"]["type"] == "string"


def test_fields_formats_enums_and_required() -> None:
    schemas = deployment_schemas()
    spec = schemas[f"{APPS}.DeploymentSpec"]
    assert spec["required"] == ["selector", "template"]
    assert spec["properties"]["replicas"]["type"] == "integer"
    assert spec["properties"]["replicas"]["format"] == "int32"
    strategy = schemas[f"{APPS}.DeploymentStrategy"]["properties"]["type"]
    assert strategy["enum"] == ["Recreate", "RollingUpdate"] and strategy["type"] == "string"
    assert schemas[f"{META}.ObjectMeta"]["properties"]["generation"]["format"] == "int64"
    container = schemas[f"{CORE}.Container"]
    assert container["required"] == ["name"]
    assert container["properties"]["ports"]["items"] == {"$ref": f"#/components/schemas/{CORE}.ContainerPort"}
    assert container["properties"]["command"] == {
        "type": "array",
        "items": {"type": "string"},
        "description": container["properties"]["command"]["description"],
    }


def test_maps_and_named_scalars() -> None:
    schemas = deployment_schemas()
    limits = schemas[f"{CORE}.ResourceRequirements"]["properties"]["limits"]
    quantity = "io.k8s.apimachinery.pkg.api.resource.Quantity"
    assert limits["type"] == "object"
    assert limits["additionalProperties"] == {"$ref": f"#/components/schemas/{quantity}"}
    assert schemas[quantity] == NAMED_SCALARS[quantity]
    labels = schemas[f"{META}.ObjectMeta"]["properties"]["labels"]
    assert labels["additionalProperties"] == {"type": "string"}
    created = schemas[f"{META}.ObjectMeta"]["properties"]["creationTimestamp"]
    assert created["allOf"] == [{"$ref": f"#/components/schemas/{META}.Time"}]
    assert schemas[f"{META}.Time"]["format"] == "date-time"
    port = schemas[f"{CORE}.HTTPGetAction"]["properties"]["port"]
    assert port["allOf"] == [{"$ref": "#/components/schemas/io.k8s.apimachinery.pkg.util.intstr.IntOrString"}]
    fields_v1 = schemas[f"{META}.ManagedFieldsEntry"]["properties"]["fieldsV1"]
    assert fields_v1["allOf"] == [{"$ref": f"#/components/schemas/{META}.FieldsV1"}]


def test_list_kind() -> None:
    schema = deployment_schemas()[f"{APPS}.DeploymentList"]
    assert schema["x-kubernetes-group-version-kind"] == [
        {"group": "apps", "kind": "DeploymentList", "version": "v1"}
    ]
    assert schema["properties"]["items"]["items"] == {"$ref": f"#/components/schemas/{APPS}.Deployment"}
    assert schema["required"] == ["items"]


def test_every_reference_resolves() -> None:
    schemas = deployment_schemas()
    refs = set(_refs(schemas))
    assert refs and all(r.removeprefix("#/components/schemas/") in schemas for r in refs)


def test_descriptions_are_plain_text() -> None:
    for schema in deployment_schemas().values():
        for prop in schema.get("properties", {}).values():
            text = prop.get("description", "")
            assert "``" not in text and "\n" not in text


def test_extensions_callback() -> None:
    def extensions(model: type[K8sModel], name: str) -> dict[str, Any]:
        return {"x-test": name} if model is Container and name == "env" else {}

    schemas = SchemaSet(extensions)
    schemas.add(Container)
    props = schemas.schemas[f"{CORE}.Container"]["properties"]
    assert props["env"]["x-test"] == "env" and "x-test" not in props["ports"]


def _refs(value: Any) -> list[str]:
    if isinstance(value, dict):
        found = [value["$ref"]] if "$ref" in value else []
        return found + [r for v in value.values() for r in _refs(v)]
    if isinstance(value, list):
        return [r for v in value for r in _refs(v)]
    return []
