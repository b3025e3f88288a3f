"""Plugin selection as upstream's --enable/--disable-admission-plugins, and the chain."""

from __future__ import annotations

from typing import Any

import pytest

from apiserver.admission.attributes import Attributes, Operation
from apiserver.admission.chain import AdmissionChain
from apiserver.admission.interfaces import Plugin
from apiserver.admission.jsondiff import json_patch
from apiserver.admission.registry import AdmissionConfigError, enabled_plugins
from apiserver.options.admission import up_admission
from apiserver.patch.jsonpatch import apply_json_patch
from apiserver.request.context import audit_annotations, audit_records_request
from minikube_py import jsonutil
from minikube_py.api import errors
from minikube_py.api.builtin import builtin_scheme

DEFAULTS = (
    "NamespaceLifecycle",
    "LimitRanger",
    "ServiceAccount",
    "PodSecurity",
    "Priority",
    "DefaultTolerationSeconds",
    "DefaultStorageClass",
    "StorageObjectInUseProtection",
    "DefaultIngressClass",
    "ResourceQuota",
)


@pytest.mark.parametrize(
    ("enable", "disable", "expected"),
    [
        ([], [], DEFAULTS),
        (["NodeRestriction"], [], (*DEFAULTS[:3], "NodeRestriction", *DEFAULTS[3:])),
        (
            [],
            ["ServiceAccount", "ResourceQuota"],
            tuple(n for n in DEFAULTS if n not in ("ServiceAccount", "ResourceQuota")),
        ),
        (["ResourceQuota", "NamespaceLifecycle"], [], DEFAULTS),  # order is always upstream's
    ],
)
def test_enabled_plugins(enable: list[str], disable: list[str], expected: tuple[str, ...]) -> None:
    built_in = set(DEFAULTS) | {"NodeRestriction"}  # the webhook plugins are tested with them
    assert tuple(n for n in enabled_plugins(enable, disable) if n in built_in) == expected


def test_up_runs_node_restriction_and_service_account() -> None:
    assert "NodeRestriction" in up_admission() and "ServiceAccount" in up_admission()


@pytest.mark.parametrize(
    ("enable", "disable", "message"),
    [
        (["Nope"], [], 'enable-admission-plugins plugin "Nope" is unknown'),
        ([], ["Nope"], 'disable-admission-plugins plugin "Nope" is unknown'),
        (
            ["Priority"],
            ["Priority"],
            "[Priority] in enable-admission-plugins and disable-admission-plugins overlapped",
        ),
    ],
)
def test_bad_plugin_flags(enable: list[str], disable: list[str], message: str) -> None:
    with pytest.raises(AdmissionConfigError) as raised:
        enabled_plugins(enable, disable)
    assert str(raised.value) == message


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ({"a": 1}, {"a": 2}),
        ({"a": {"b": [1, 2, 3]}}, {"a": {"b": [1, 5]}, "c/d~": None}),
        ({"x": [{"n": 1}]}, {"x": [{"n": 1}, {"n": 2}]}),
        ({"x": 1}, {}),
        ({"x": 1}, {"x": 1.0}),
    ],
)
def test_json_patch_turns_old_into_new(old: Any, new: Any) -> None:
    patched = apply_json_patch(old, json_patch(old, new))
    assert patched == new and [type(v) for v in patched.values()] == [type(v) for v in new.values()]


class _Label(Plugin):
    name = "Label"

    async def admit(self, attrs: Attributes) -> None:
        assert attrs.object is not None
        attrs.object["metadata"].setdefault("labels", {})["admitted"] = "yes"


class _Refuse(Plugin):
    name = "Refuse"
    operations = frozenset({Operation.DELETE})

    async def validate(self, attrs: Attributes) -> None:
        raise errors.forbidden("pods", attrs.name, "", "no")


async def test_chain_records_each_mutation_and_runs_validators_that_handle_the_operation() -> None:
    pods = next(rt for rt in builtin_scheme() if rt.resource == "pods" and not rt.group)
    chain = AdmissionChain([_Label(), _Refuse()])
    annotations: dict[str, str] = {}
    audit_annotations.set(annotations)
    await chain.admit(Attributes(Operation.CREATE, pods, "", "ns", "p", {"metadata": {"name": "p"}}))
    assert annotations == {}  # audited below Request level: patches are not worth their copies
    audit_records_request.set(True)
    attrs = Attributes(Operation.CREATE, pods, "", "ns", "p", {"metadata": {"name": "p"}})
    await chain.admit(attrs)
    await chain.validate(attrs)  # Refuse does not handle CREATE
    assert attrs.object == {"metadata": {"name": "p", "labels": {"admitted": "yes"}}}
    assert jsonutil.loads(annotations["mutation.minikube-py.io/Label"]) == [
        {"op": "add", "path": "/metadata/labels", "value": {"admitted": "yes"}}
    ]
    with pytest.raises(errors.ApiError) as refused:
        await chain.validate(Attributes(Operation.DELETE, pods, "", "ns", "p", None))
    assert refused.value.code == 403
