"""The ready-made schemas: shared PodSpec, upstream's tags per kind, and schema_for."""

from __future__ import annotations

from typing import Any

import pytest

from apiserver.patch.schema import PLAIN, Fields, List, PatchSchema, Schema, fields_of
from apiserver.patch.schemas import schema_for
from apiserver.patch.strategic import apply_strategic_merge_patch
from tests.patch import named_schemas as schemas


def at(schema: Schema, *names: str) -> Schema:
    for name in names:
        schema = fields_of(schema).child(name)
    return schema


@pytest.mark.parametrize(
    ("schema", "path"),
    [
        (schemas.POD, ("spec",)),
        (schemas.DEPLOYMENT, ("spec", "template", "spec")),
        (schemas.STATEFUL_SET, ("spec", "template", "spec")),
        (schemas.JOB, ("spec", "template", "spec")),
        (schemas.CRON_JOB, ("spec", "jobTemplate", "spec", "template", "spec")),
        (schemas.POD_TEMPLATE, ("template", "spec")),
    ],
)
def test_every_pod_spec_is_the_one_definition(schema: PatchSchema, path: tuple[str, ...]) -> None:
    assert at(schema, *path) is schemas.POD_SPEC
    assert at(schema, "metadata") is schemas.OBJECT_META


def test_containers_of_every_flavour_share_the_container_schema() -> None:
    for field in ("containers", "initContainers", "ephemeralContainers"):
        node = at(schemas.POD_SPEC, field)
        assert node == List(merge_key="name", item=schemas.CONTAINER)


def test_unlisted_fields_are_plain() -> None:
    assert at(schemas.POD, "spec", "tolerations") is PLAIN
    assert at(schemas.NODE, "spec", "taints") is PLAIN
    assert at(schemas.POD, "spec", "containers", "command") is PLAIN


@pytest.mark.parametrize(
    ("group", "kind", "schema"),
    [
        ("", "Pod", schemas.POD),
        ("apps", "Deployment", schemas.DEPLOYMENT),
        ("batch", "Job", schemas.JOB),
        ("", "ServiceAccount", schemas.SERVICE_ACCOUNT),
        ("apps", "Pod", PLAIN),
        ("example.com", "Widget", PLAIN),
    ],
)
def test_schema_for(group: str, kind: str, schema: PatchSchema) -> None:
    assert schema_for(group, kind) is schema


def c(name: str, **fields: Any) -> dict[str, Any]:
    return {"name": name, **fields}


KINDS = [
    pytest.param(
        ("", "Pod"),
        {"spec": {"containers": [c("a", image="x", env=[c("E", value="1")]), c("b")]}},
        {"spec": {"containers": [c("a", env=[c("F", value="2")])]}},
        {"spec": {"containers": [c("a", image="x", env=[c("F", value="2"), c("E", value="1")]), c("b")]}},
        id="pod-containers-and-env-by-name",
    ),
    pytest.param(
        ("", "Pod"),
        {"spec": {"volumes": [c("v", emptyDir={})], "tolerations": [{"key": "a"}]}},
        {"spec": {"volumes": [c("w", secret={})], "tolerations": [{"key": "b"}]}},
        {"spec": {"volumes": [c("w", secret={}), c("v", emptyDir={})], "tolerations": [{"key": "b"}]}},
        id="pod-volumes-merge-tolerations-replace",
    ),
    pytest.param(
        ("", "Pod"),
        {"spec": {"containers": [c("a", volumeMounts=[{"mountPath": "/d", "name": "v"}])]}},
        {"spec": {"containers": [c("a", volumeMounts=[{"mountPath": "/d", "readOnly": True}])]}},
        {"spec": {"containers": [c("a", volumeMounts=[{"mountPath": "/d", "name": "v", "readOnly": True}])]}},
        id="volume-mounts-by-mount-path",
    ),
    pytest.param(
        ("", "Pod"),
        {"spec": {"hostAliases": [{"ip": "1.1.1.1", "hostnames": ["a"]}], "imagePullSecrets": [c("r")]}},
        {"spec": {"hostAliases": [{"ip": "1.1.1.1", "hostnames": ["b"]}], "imagePullSecrets": [c("s")]}},
        {
            "spec": {
                "hostAliases": [{"ip": "1.1.1.1", "hostnames": ["b"]}],
                "imagePullSecrets": [c("s"), c("r")],
            }
        },
        id="host-aliases-by-ip-image-pull-secrets-by-name",
    ),
    pytest.param(
        ("apps", "DaemonSet"),
        {"spec": {"template": {"spec": {"initContainers": [c("i", image="1")]}}}},
        {"spec": {"template": {"spec": {"initContainers": [c("i", image="2")]}}}},
        {"spec": {"template": {"spec": {"initContainers": [c("i", image="2")]}}}},
        id="daemonset-init-containers",
    ),
    pytest.param(
        ("", "Service"),
        {"spec": {"ports": [{"port": 80, "targetPort": 8080}, {"port": 443}]}},
        {"spec": {"ports": [{"port": 80, "name": "http"}]}},
        {"spec": {"ports": [{"port": 80, "targetPort": 8080, "name": "http"}, {"port": 443}]}},
        id="service-ports-by-port",
    ),
    pytest.param(
        ("", "Node"),
        {"spec": {"taints": [{"key": "a", "effect": "NoSchedule"}], "podCIDRs": ["10.0.0.0/24"]}},
        {
            "spec": {
                "taints": [{"key": "b", "effect": "NoSchedule"}],
                "podCIDRs": ["10.0.0.0/24", "fd00::/64"],
            }
        },
        {
            "spec": {
                "taints": [{"key": "b", "effect": "NoSchedule"}],
                "podCIDRs": ["10.0.0.0/24", "fd00::/64"],
            }
        },
        id="node-taints-replace-pod-cidrs-merge",
    ),
    pytest.param(
        ("", "Node"),
        {"status": {"conditions": [{"type": "Ready", "status": "False"}, {"type": "DiskPressure"}]}},
        {"status": {"conditions": [{"type": "Ready", "status": "True"}]}},
        {"status": {"conditions": [{"type": "Ready", "status": "True"}, {"type": "DiskPressure"}]}},
        id="status-conditions-by-type",
    ),
    pytest.param(
        ("", "ServiceAccount"),
        {"secrets": [c("t1")]},
        {"secrets": [c("t2")]},
        {"secrets": [c("t2"), c("t1")]},
        id="service-account-secrets-by-name",
    ),
    pytest.param(
        ("", "ConfigMap"),
        {
            "metadata": {"finalizers": ["a"], "ownerReferences": [{"uid": "1", "kind": "X"}]},
            "data": {"k": "v"},
        },
        {
            "metadata": {"$deleteFromPrimitiveList/finalizers": ["a"], "ownerReferences": [{"uid": "2"}]},
            "data": {"k": None, "j": "w"},
        },
        {
            "metadata": {"finalizers": [], "ownerReferences": [{"uid": "2"}, {"uid": "1", "kind": "X"}]},
            "data": {"j": "w"},
        },
        id="object-meta-finalizers-owner-references-data-map",
    ),
    pytest.param(
        ("example.com", "Widget"),
        {"spec": {"containers": [c("a", image="x")], "finalizers": ["f"]}},
        {"spec": {"containers": [c("b")]}},
        {"spec": {"containers": [c("b")], "finalizers": ["f"]}},
        id="unknown-kind-replaces-lists",
    ),
]


@pytest.mark.parametrize(("group_kind", "doc", "patch", "expected"), KINDS)
def test_kind_schemas_follow_upstream_tags(
    group_kind: tuple[str, str], doc: dict[str, Any], patch: dict[str, Any], expected: dict[str, Any]
) -> None:
    assert apply_strategic_merge_patch(doc, patch, schema_for(*group_kind)) == expected


def test_retain_keys_marks_follow_upstream() -> None:
    volumes = at(schemas.POD_SPEC, "volumes")
    assert isinstance(volumes, List)
    assert (volumes.merge_key, volumes.retain_keys) == ("name", True)
    # The items follow the Volume struct's own tags, as upstream's do: an ephemeral volume's claim
    # template carries ObjectMeta, whose lists merge (the table before field tags stopped at Volume).
    assert at(volumes.item, "ephemeral", "volumeClaimTemplate", "metadata") is schemas.OBJECT_META
    assert at(schemas.DEPLOYMENT, "spec", "strategy") == Fields(retain_keys=True)
