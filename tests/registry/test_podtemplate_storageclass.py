"""PodTemplate and StorageClass strategies: defaults, validation, immutability and rows as
upstream's (``pkg/registry/core/podtemplate``, ``pkg/registry/storage/storageclass``,
``pkg/apis/storage/validation``)."""

from __future__ import annotations

from typing import Any

import pytest

from apiserver.registry.resources.podtemplate import PodTemplateStrategy
from apiserver.registry.resources.storageclass import StorageClassStrategy
from minikube_py.api.builtin import builtin_scheme
from tests.registry.helpers import NOW, causes, meta, prepared_for_create

CONTAINER = {"name": "web", "image": "nginx"}
SIZE_MESSAGE = "Too long: may not be more than 262144 bytes"


def podtemplate(**template: Any) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "PodTemplate", "metadata": meta("tpl"), "template": template}


def storageclass(**fields: Any) -> dict[str, Any]:
    obj = {"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass", "metadata": meta("fast", None)}
    return {**obj, "provisioner": "example.com/fast", **fields}


def test_both_kinds_are_served_as_upstream_serves_them() -> None:
    scheme = builtin_scheme()
    templates = scheme.by_resource("", "v1", "podtemplates")
    classes = scheme.by_resource("storage.k8s.io", "v1", "storageclasses")
    assert templates is not None and templates.kind == "PodTemplate" and templates.namespaced
    assert templates.short_names == () and templates.subresources == ()
    assert classes is not None and classes.kind == "StorageClass" and not classes.namespaced
    assert classes.short_names == ("sc",) and classes.subresources == ()


def test_podtemplate_template_gets_pod_template_defaults() -> None:
    obj = podtemplate(spec={"containers": [dict(CONTAINER)]})
    prepared_for_create(PodTemplateStrategy(), obj)
    spec = obj["template"]["spec"]
    assert (spec["restartPolicy"], spec["dnsPolicy"], spec["schedulerName"]) == (
        "Always",
        "ClusterFirst",
        "default-scheduler",
    )
    assert spec["containers"][0]["imagePullPolicy"] == "Always"
    assert "enableServiceLinks" not in spec  # a pod's default, not a template's


@pytest.mark.parametrize(
    ("obj", "expected"),
    [
        (podtemplate(spec={"containers": [CONTAINER], "restartPolicy": "Never"}), []),
        (
            {"apiVersion": "v1", "kind": "PodTemplate", "metadata": meta("tpl")},
            [("FieldValueRequired", "template.spec.containers", "Required value")],
        ),
        (
            podtemplate(spec={"containers": [{"name": "Web"}]}),
            [
                (
                    "FieldValueInvalid",
                    "template.spec.containers[0].name",
                    'Invalid value: "Web": a lowercase RFC 1123 label must consist of lower case '
                    "alphanumeric characters or '-', and must start and end with an alphanumeric "
                    "character (e.g. 'my-name',  or '123-abc', regex used for validation is "
                    "'[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
                ),
                ("FieldValueRequired", "template.spec.containers[0].image", "Required value"),
            ],
        ),
        (
            podtemplate(metadata={"labels": {"a b": "x"}}, spec={"containers": [CONTAINER]}),
            [
                (
                    "FieldValueInvalid",
                    "template.metadata.labels",
                    'Invalid value: "a b": name part must consist of alphanumeric characters, '
                    "'-', '_' or '.', and must start and end with an alphanumeric character (e.g. "
                    "'MyName',  or 'my.name',  or '123-abc', regex used for validation is "
                    "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
                )
            ],
        ),
    ],
)
def test_podtemplate_validation(obj: dict[str, Any], expected: list[tuple[str, str, str]]) -> None:
    strategy = PodTemplateStrategy()
    strategy.default(obj)
    assert causes(strategy.validate(obj)) == expected


def test_podtemplate_generation_follows_the_template() -> None:
    assert PodTemplateStrategy.spec_field == "template" and PodTemplateStrategy.status_field is None


def test_podtemplate_row() -> None:
    obj = podtemplate(
        metadata={"labels": {"app": "web", "tier": "front"}},
        spec={"containers": [CONTAINER, {"name": "log", "image": "busybox"}]},
    )
    strategy = PodTemplateStrategy()
    assert [c[0] for c in strategy.table_columns()] == ["Name", "Containers", "Images", "Pod Labels"]
    assert strategy.table_cells(obj, NOW) == ["tpl", "web,log", "nginx,busybox", "app=web,tier=front"]
    assert strategy.table_cells(podtemplate(), NOW) == ["tpl", "", "", "<none>"]


def test_storageclass_defaults() -> None:
    obj = storageclass()
    prepared_for_create(StorageClassStrategy(), obj)
    assert (obj["reclaimPolicy"], obj["volumeBindingMode"]) == ("Delete", "Immediate")
    kept = storageclass(reclaimPolicy="Retain", volumeBindingMode="WaitForFirstConsumer")
    prepared_for_create(StorageClassStrategy(), kept)
    assert (kept["reclaimPolicy"], kept["volumeBindingMode"]) == ("Retain", "WaitForFirstConsumer")


@pytest.mark.parametrize(
    ("obj", "expected"),
    [
        (storageclass(parameters={"type": "ssd"}, allowVolumeExpansion=True), []),
        (
            storageclass(provisioner=""),
            [("FieldValueRequired", "provisioner", "Required value")],
        ),
        (
            storageclass(provisioner="bad provisioner!"),
            [
                (
                    "FieldValueInvalid",
                    "provisioner",
                    'Invalid value: "bad provisioner!": name part must consist of alphanumeric '
                    "characters, '-', '_' or '.', and must start and end with an alphanumeric "
                    "character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for "
                    "validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
                )
            ],
        ),
        (
            storageclass(reclaimPolicy="Recycle"),
            [
                (
                    "FieldValueNotSupported",
                    "reclaimPolicy",
                    'Unsupported value: "Recycle": supported values: "Delete", "Retain"',
                )
            ],
        ),
        (
            storageclass(volumeBindingMode="Later"),
            [
                (
                    "FieldValueNotSupported",
                    "volumeBindingMode",
                    'Unsupported value: "Later": supported values: "Immediate", "WaitForFirstConsumer"',
                )
            ],
        ),
        (
            storageclass(parameters={"": "x"}),
            [("FieldValueInvalid", "parameters", 'Invalid value: "": field can not be empty.')],
        ),
        (
            storageclass(parameters={"big": "x" * 262142}),
            [("FieldValueTooLong", "parameters", SIZE_MESSAGE)],
        ),
        (storageclass(parameters={"big": "x" * 262141}), []),
    ],
)
def test_storageclass_validation(obj: dict[str, Any], expected: list[tuple[str, str, str]]) -> None:
    strategy = StorageClassStrategy()
    strategy.default(obj)
    assert causes(strategy.validate(obj)) == expected


def test_storageclass_too_many_parameters() -> None:
    obj = storageclass(parameters={f"k{i}": "v" for i in range(513)})
    strategy = StorageClassStrategy()
    strategy.default(obj)
    assert causes(strategy.validate(obj)) == [
        ("FieldValueTooLong", "parameters", "Too long: may not be more than 512 bytes")
    ]


def test_storageclass_provisioning_fields_are_fixed() -> None:
    strategy = StorageClassStrategy()
    old = storageclass(parameters={"type": "ssd"})
    strategy.default(old)
    new = storageclass(
        provisioner="example.com/slow",
        parameters={"type": "hdd"},
        reclaimPolicy="Retain",
        volumeBindingMode="WaitForFirstConsumer",
        allowVolumeExpansion=True,
        mountOptions=["ro"],
    )
    strategy.default(new)
    assert causes(strategy.validate_update(new, old)) == [
        ("FieldValueForbidden", "parameters", "Forbidden: updates to parameters are forbidden."),
        ("FieldValueForbidden", "provisioner", "Forbidden: updates to provisioner are forbidden."),
        ("FieldValueForbidden", "reclaimPolicy", "Forbidden: updates to reclaimPolicy are forbidden."),
        (
            "FieldValueInvalid",
            "volumeBindingMode",
            'Invalid value: "WaitForFirstConsumer": field is immutable',
        ),
    ]
    relabelled = storageclass(parameters={"type": "ssd"}, allowVolumeExpansion=True, mountOptions=["ro"])
    strategy.default(relabelled)
    assert strategy.validate_update(relabelled, old) == []  # the rest may change


def test_storageclass_row() -> None:
    strategy = StorageClassStrategy()
    assert [c[0] for c in strategy.table_columns()] == [
        "Name",
        "Provisioner",
        "ReclaimPolicy",
        "VolumeBindingMode",
        "AllowVolumeExpansion",
        "Age",
    ]
    obj = storageclass()
    assert strategy.table_cells(obj, NOW) == [
        "fast",
        "example.com/fast",
        "Delete",
        "Immediate",
        "false",
        "60m",
    ]
    obj = storageclass(reclaimPolicy="Retain", allowVolumeExpansion=True)
    obj["metadata"]["annotations"] = {"storageclass.kubernetes.io/is-default-class": "true"}
    assert strategy.table_cells(obj, NOW)[:5] == [
        "fast (default)",
        "example.com/fast",
        "Retain",
        "Immediate",
        "true",
    ]
