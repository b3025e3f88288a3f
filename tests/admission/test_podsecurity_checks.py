"""PodSecurity checks, table-driven: the level, the pod's spec, upstream's forbidden detail."""

from __future__ import annotations

from typing import Any

import pytest

from apiserver.admission.plugins.podsecurity.checks import evaluate, forbidden_detail
from apiserver.admission.plugins.podsecurity.plugin import policy

SAFE = {
    "allowPrivilegeEscalation": False,
    "capabilities": {"drop": ["ALL"]},
    "runAsNonRoot": True,
    "seccompProfile": {"type": "RuntimeDefault"},
}


def spec(*containers: dict[str, Any], **fields: Any) -> dict[str, Any]:
    return {"spec": {"containers": list(containers) or [{"name": "c", "securityContext": SAFE}], **fields}}


@pytest.mark.parametrize(
    ("level", "pod", "detail"),
    [
        ("privileged", spec({"name": "c", "securityContext": {"privileged": True}}), ""),
        ("baseline", spec({"name": "c"}), ""),
        (
            "baseline",
            spec(
                {"name": "a", "securityContext": {"privileged": True}},
                {"name": "b", "securityContext": {"privileged": True}},
            ),
            'privileged (containers "a", "b" must not set securityContext.privileged=true)',
        ),
        (
            "baseline",
            spec({"name": "c"}, hostPID=True, hostNetwork=True),
            "host namespaces (hostNetwork, hostPID)",
        ),
        (
            "baseline",
            spec({"name": "c", "ports": [{"containerPort": 80, "hostPort": 8080}]}),
            'hostPort (container "c" uses hostPort 8080)',
        ),
        (
            "baseline",
            spec({"name": "c", "securityContext": {"capabilities": {"add": ["NET_ADMIN", "CHOWN"]}}}),
            'non-default capabilities (container "c" must not include "NET_ADMIN" in '
            "securityContext.capabilities.add)",
        ),
        (
            "baseline",
            spec({"name": "c"}, volumes=[{"name": "h", "hostPath": {"path": "/"}}]),
            'hostPath volumes (volume "h")',
        ),
        (
            "baseline",
            spec({"name": "c", "securityContext": {"seccompProfile": {"type": "Unconfined"}}}),
            'seccompProfile (container "c" must not set securityContext.seccompProfile.type to "Unconfined")',
        ),
        ("restricted", spec(), ""),
        (
            "restricted",
            spec({"name": "c", "securityContext": {**SAFE, "runAsUser": 0}}),
            'runAsUser=0 (container "c" must not set runAsUser=0)',
        ),
        (
            "restricted",
            spec({"name": "c", "securityContext": SAFE}, volumes=[{"name": "h", "hostPath": {"path": "/"}}]),
            'restricted volume types (volume "h" uses restricted volume type "hostPath")',
        ),
        (
            "restricted",
            spec(
                {"name": "c", "securityContext": {**SAFE, "runAsNonRoot": None}},
                securityContext={"runAsNonRoot": True},
            ),
            "",
        ),
        (
            "restricted",
            spec(
                {
                    "name": "c",
                    "securityContext": {**SAFE, "capabilities": {"drop": ["ALL"], "add": ["SYS_ADMIN"]}},
                }
            ),
            'non-default capabilities (container "c" must not include "SYS_ADMIN" in '
            'securityContext.capabilities.add), unrestricted capabilities (container "c" must not include '
            '"SYS_ADMIN" in securityContext.capabilities.add)',
        ),
    ],
)
def test_checks(level: str, pod: dict[str, Any], detail: str) -> None:
    assert forbidden_detail(evaluate(level, pod)) == detail


@pytest.mark.parametrize(
    ("labels", "expected"),
    [
        ({}, ("privileged", "latest")),
        (
            {
                "pod-security.kubernetes.io/enforce": "baseline",
                "pod-security.kubernetes.io/enforce-version": "v1.30",
            },
            ("baseline", "v1.30"),
        ),
        ({"pod-security.kubernetes.io/enforce": "bogus"}, ("restricted", "latest")),
    ],
)
def test_policy_from_labels(labels: dict[str, str], expected: tuple[str, str]) -> None:
    assert policy(labels, "enforce") == expected
