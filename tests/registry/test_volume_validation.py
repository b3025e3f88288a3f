"""PersistentVolume and PersistentVolumeClaim validation as upstream's
(``pkg/apis/core/validation``), table-driven on the strategies: field paths and messages."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from apiserver.registry.resources.persistentvolume import PersistentVolumeStrategy
from apiserver.registry.resources.persistentvolumeclaim import PersistentVolumeClaimStrategy
from apiserver.registry.resources.replicationcontroller import ReplicationControllerStrategy

IMMUTABLE_SPEC = (
    "Forbidden: spec is immutable after creation except resources.requests and volumeAttributesClassName "
    "for bound claims"
)


def pv(**spec: Any) -> dict[str, Any]:
    base = {"capacity": {"storage": "1Gi"}, "accessModes": ["ReadWriteOnce"], "hostPath": {"path": "/data"}}
    return {"metadata": {"name": "pv1"}, "spec": {**base, **spec}}


def pvc(phase: str = "Pending", **spec: Any) -> dict[str, Any]:
    base = {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}
    return {"metadata": {"name": "c"}, "spec": {**base, **spec}, "status": {"phase": phase}}


def errors(causes: list[Any]) -> list[tuple[str, str]]:
    return [(c.field, c.message) for c in causes]


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        ({}, []),
        (
            {"capacity": {}},
            [
                ("spec.capacity", "Required value"),
                ("spec.capacity", 'Unsupported value: {}: supported values: "storage"'),
            ],
        ),
        (
            {"capacity": {"storage": "0"}},
            [("spec.capacity[storage]", 'Invalid value: "0": must be greater than zero')],
        ),
        (
            {"accessModes": ["ReadWriteOncePod", "ReadWriteOnce"]},
            [("spec.accessModes", "Forbidden: may not use ReadWriteOncePod with other access modes")],
        ),
        ({"hostPath": None}, [("spec", "Required value: must specify a volume type")]),
        (
            {"nfs": {"server": "s", "path": "/x"}},
            [("spec.nfs", "Forbidden: may not specify more than 1 volume type")],
        ),
        (
            {"hostPath": None, "cephfs": {}, "csi": {"driver": "d"}},
            [("spec.csi", "Forbidden: may not specify more than 1 volume type")],
        ),
        (
            {"hostPath": None, "nfs": {"server": "s", "path": "x"}},
            [("spec.nfs.path", 'Invalid value: "x": must be an absolute path')],
        ),
        ({"hostPath": None, "csi": {"driver": "d"}}, [("spec.csi.volumeHandle", "Required value")]),
        (
            {"hostPath": None, "local": {"path": "/mnt"}},
            [("spec.nodeAffinity", "Required value: Local volume requires node affinity")],
        ),
        (
            {"hostPath": {"path": "/a/../b"}},
            [("spec.hostPath.path", "Invalid value: \"/a/../b\": must not contain '..'")],
        ),
        (
            {"persistentVolumeReclaimPolicy": "Keep"},
            [
                (
                    "spec.persistentVolumeReclaimPolicy",
                    'Unsupported value: "Keep": supported values: "Delete", "Recycle", "Retain"',
                )
            ],
        ),
        (
            {"hostPath": {"path": "/"}, "persistentVolumeReclaimPolicy": "Recycle"},
            [
                (
                    "spec.persistentVolumeReclaimPolicy",
                    "Forbidden: may not be 'recycle' for a hostPath mount of '/'",
                )
            ],
        ),
        (
            {"volumeMode": "Raw"},
            [("spec.volumeMode", 'Unsupported value: "Raw": supported values: "Block", "Filesystem"')],
        ),
    ],
)
def test_a_persistent_volume_is_validated_as_upstream(
    spec: dict[str, Any], expected: list[tuple[str, str]]
) -> None:
    assert errors(PersistentVolumeStrategy().validate(pv(**spec))) == expected


def test_a_persistent_volume_keeps_its_source_and_mode() -> None:
    strategy = PersistentVolumeStrategy()
    old = pv(volumeMode="Filesystem", csi={"driver": "d", "volumeHandle": "h"}, hostPath=None)
    grown = copy.deepcopy(old)
    grown["spec"]["csi"]["controllerExpandSecretRef"] = {"name": "s"}  # may be added later
    grown["spec"]["capacity"] = {"storage": "2Gi"}
    assert strategy.validate_update(grown, old) == []
    moved = copy.deepcopy(old)
    moved["spec"]["csi"]["volumeHandle"] = "other"
    moved["spec"]["volumeMode"] = "Block"
    assert errors(strategy.validate_update(moved, old)) == [
        ("spec.persistentvolumesource", "Forbidden: spec.persistentvolumesource is immutable after creation"),
        ("volumeMode", 'Invalid value: "Block": field is immutable'),
    ]


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        ({}, []),
        (
            {"resources": {"requests": {"storage": "-1"}}},
            [("spec.resources[storage]", 'Invalid value: "-1": must be greater than zero')],
        ),
        (
            {"accessModes": ["Sometimes"]},
            [
                (
                    "spec.accessModes",
                    'Unsupported value: "Sometimes": supported values: "ReadOnlyMany", '
                    '"ReadWriteMany", "ReadWriteOnce", "ReadWriteOncePod"',
                )
            ],
        ),
        (
            {"storageClassName": "Fast"},
            [
                (
                    "spec.storageClassName",
                    'Invalid value: "Fast": a lowercase RFC 1123 subdomain must '
                    "consist of lower case alphanumeric characters, '-' or '.', and must start and end "
                    "with an alphanumeric character (e.g. 'example.com', regex used for validation is "
                    "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
                )
            ],
        ),
    ],
)
def test_a_claim_is_validated_as_upstream(spec: dict[str, Any], expected: list[tuple[str, str]]) -> None:
    assert errors(PersistentVolumeClaimStrategy().validate(pvc(**spec))) == expected


def change(old: dict[str, Any], phase: str | None = None, **spec: Any) -> dict[str, Any]:
    new = copy.deepcopy(old)
    new["spec"].update(spec)
    if phase is not None:
        new["status"]["phase"] = phase
    return new


BOUND = pvc("Bound", volumeName="pv1", storageClassName="standard")
UNBOUND = pvc()
CLAIM_UPDATES = [
    ("a first volumeName binds", UNBOUND, change(UNBOUND, volumeName="pv1"), []),
    ("a class set where there was none", UNBOUND, change(UNBOUND, storageClassName="standard"), []),
    ("a class changed", BOUND, change(BOUND, storageClassName="other"), [("spec", IMMUTABLE_SPEC)]),
    ("another volume", BOUND, change(BOUND, volumeName="pv2"), [("spec", IMMUTABLE_SPEC)]),
    ("a bound claim grows", BOUND, change(BOUND, resources={"requests": {"storage": "2Gi"}}), []),
    (
        "a pending claim grows",
        UNBOUND,
        change(UNBOUND, resources={"requests": {"storage": "2Gi"}}),
        [("spec", IMMUTABLE_SPEC)],
    ),
    (
        "a bound claim shrinks",
        change(BOUND, resources={"requests": {"storage": "2Gi"}}),
        BOUND,
        [("spec.resources.requests.storage", "Forbidden: field can not be less than previous value")],
    ),
    ("the access modes", BOUND, change(BOUND, accessModes=["ReadWriteMany"]), [("spec", IMMUTABLE_SPEC)]),
    (
        "the volume attributes class",
        change(BOUND, volumeAttributesClassName="gold"),
        change(BOUND, volumeAttributesClassName="silver"),
        [],
    ),
    (
        "the volume attributes class unset",
        change(BOUND, volumeAttributesClassName="gold"),
        BOUND,
        [("spec.volumeAttributesClassName", "Forbidden: update from non-nil value to nil is forbidden")],
    ),
    (
        "the volume mode",
        change(UNBOUND, volumeMode="Filesystem"),
        change(UNBOUND, volumeMode="Block"),
        [("spec", IMMUTABLE_SPEC), ("volumeMode", 'Invalid value: "Block": field is immutable')],
    ),
]


@pytest.mark.parametrize(
    ("old", "new", "expected"), [c[1:] for c in CLAIM_UPDATES], ids=[c[0] for c in CLAIM_UPDATES]
)
def test_a_claims_spec_is_fixed_but_for_what_upstream_lets_change(
    old: dict[str, Any], new: dict[str, Any], expected: list[tuple[str, str]]
) -> None:
    assert errors(PersistentVolumeClaimStrategy().validate_update(new, old)) == expected


def test_a_claims_status_capacity_is_not_negative() -> None:
    new = change(BOUND)
    new["status"]["capacity"] = {"storage": "-1Gi"}
    assert errors(PersistentVolumeClaimStrategy().validate_update(new, BOUND)) == [
        ("status.capacity[storage]", 'Invalid value: "-1Gi": must be a valid resource quantity')
    ]


def rc(**spec: Any) -> dict[str, Any]:
    template = {
        "metadata": {"labels": {"app": "web"}},
        "spec": {"containers": [{"name": "c", "image": "nginx"}], "restartPolicy": "Always"},
    }
    return {
        "metadata": {"name": "web"},
        "spec": {"replicas": 1, "selector": {"app": "web"}, "template": template, **spec},
    }


@pytest.mark.parametrize(
    ("obj", "expected"),
    [
        (rc(), []),
        (rc(selector={}), [("spec.selector", "Required value")]),
        (rc(replicas=-1), [("spec.replicas", "Invalid value: -1: must be greater than or equal to 0")]),
        (rc(template=None), [("spec.template", "Required value")]),
        (
            rc(selector={"app": "db"}),
            [
                (
                    "spec.template.metadata.labels",
                    'Invalid value: {"app":"web"}: selector does not match labels in spec.template',
                )
            ],
        ),
    ],
)
def test_a_replication_controller_is_validated_as_upstream(
    obj: dict[str, Any], expected: list[tuple[str, str]]
) -> None:
    assert errors(ReplicationControllerStrategy().validate(obj)) == expected


def test_a_replication_controller_runs_pods_that_restart_and_do_not_expire() -> None:
    obj = rc()
    obj["spec"]["template"]["spec"] |= {"restartPolicy": "Never", "activeDeadlineSeconds": 5}
    assert errors(ReplicationControllerStrategy().validate(obj)) == [
        ("spec.template.spec.restartPolicy", 'Unsupported value: "Never": supported values: "Always"'),
        (
            "spec.template.spec.activeDeadlineSeconds",
            "Forbidden: activeDeadlineSeconds in ReplicationController is not Supported",
        ),
    ]
