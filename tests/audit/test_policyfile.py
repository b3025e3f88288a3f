"""Reading ``audit.k8s.io/v1`` Policy files: upstream's decoding and validation messages."""

from __future__ import annotations

from pathlib import Path

import pytest

from apiserver.audit.policy import METADATA, NONE, REQUEST, REQUEST_RECEIVED, GroupResources
from apiserver.audit.policyfile import PolicyError, load_policy, load_policy_file

HEAD = "apiVersion: audit.k8s.io/v1\nkind: Policy\n"
POLICY = """
apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: [RequestReceived]
omitManagedFields: true
rules:
  - level: None
    nonResourceURLs: ["/healthz*", /version]
  - level: Request
    users: [alice]
    userGroups: [devs]
    verbs: [create, update]
    namespaces: [default, ""]
    resources:
      - group: ""
        resources: [configmaps, secrets]
        resourceNames: [one]
      - group: apps
    omitStages: [ResponseStarted]
    omitManagedFields: false
  - level: Metadata
"""


def test_reads_every_field() -> None:
    policy = load_policy(POLICY)
    assert policy.omit_stages == (REQUEST_RECEIVED,)
    assert policy.omit_managed_fields is True
    health, writes, rest = policy.rules
    assert (health.level, health.non_resource_urls) == (NONE, ("/healthz*", "/version"))
    assert writes.level == REQUEST
    assert (writes.users, writes.user_groups, writes.verbs) == (("alice",), ("devs",), ("create", "update"))
    assert writes.namespaces == ("default", "")
    assert writes.resources == (
        GroupResources("", ("configmaps", "secrets"), ("one",)),
        GroupResources("apps"),
    )
    assert writes.omit_stages == ("ResponseStarted",)
    assert writes.omit_managed_fields is False
    assert rest.level == METADATA and rest.omit_managed_fields is None


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "apiVersion: audit.k8s.io/v1beta1\nkind: Policy\nrules: [{level: None}]",
            "unknown group version field audit.k8s.io/v1beta1, Kind=Policy in policy",
        ),
        ("rules: [{level: None}]", "failed decoding: Object 'Kind' is missing in the policy"),
        ("apiVersion: audit.k8s.io/v1\nkind: Policy\nrules: []", "loaded illegal policy with 0 rules"),
        (
            "apiVersion: audit.k8s.io/v1\nkind: Policy\nrules: [{verbs: [get]}]",
            "rules[0].level: Required value",
        ),
        (
            "apiVersion: audit.k8s.io/v1\nkind: Policy\nrules: [{level: Everything}]",
            'rules[0].level: Unsupported value: "Everything": supported values: "None", "Metadata", '
            '"Request", "RequestResponse"',
        ),
        (
            "apiVersion: audit.k8s.io/v1\nkind: Policy\nrules: [{level: None, nonResourceURLs: [healthz]}]",
            'rules[0].nonResourceURLs[0]: Invalid value: "healthz": non-resource URL rules must begin '
            "with a '/' character",
        ),
        (
            "apiVersion: audit.k8s.io/v1\nkind: Policy\nrules: [{level: None, nonResourceURLs: ['/a*b']}]",
            "rules[0].nonResourceURLs[0]: Invalid value: \"/a*b\": non-resource URL wildcards '*' must be "
            "the final character of the rule",
        ),
        (
            "apiVersion: audit.k8s.io/v1\nkind: Policy\nomitStages: [Sometimes]\nrules: [{level: None}]",
            'omitStages[0]: Invalid value: "Sometimes": allowed stages are '
            "RequestReceived,ResponseStarted,ResponseComplete,Panic",
        ),
        (
            "apiVersion: audit.k8s.io/v1\nkind: Policy\n"
            "rules: [{level: None, resources: [{group: ''}], nonResourceURLs: [/healthz]}]",
            'rules[0].nonResourceURLs: Invalid value: ["/healthz"]: rules cannot apply to both regular '
            "resources and non-resource URLs",
        ),
        (
            HEAD + "rules: [{level: None, resources: [{resourceNames: [a]}]}]",
            'rules[0].resources.resourceNames: Invalid value: ["a"]: using resourceNames requires at least '
            "one resource",
        ),
    ],
)
def test_refuses_with_upstream_messages(text: str, message: str) -> None:
    with pytest.raises(PolicyError) as err:
        load_policy(text)
    assert str(err.value) == message


def test_file_errors_name_the_file(tmp_path: Path) -> None:
    missing = tmp_path / "missing.yaml"
    with pytest.raises(PolicyError, match=f'failed to read file path "{missing}"'):
        load_policy_file(missing)
    empty = tmp_path / "empty.yaml"
    empty.write_text("apiVersion: audit.k8s.io/v1\nkind: Policy\nrules: []\n")
    with pytest.raises(PolicyError) as err:
        load_policy_file(empty)
    assert str(err.value) == f"loaded illegal policy with 0 rules: from file {empty}"
