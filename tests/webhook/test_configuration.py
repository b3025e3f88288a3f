"""Mutating and validating webhook configurations through the API: upstream's defaults and
validation messages."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from tests.webhook.conftest import GROUP, MUTATING, VALIDATING, configuration

URL = "https://127.0.0.1:9443/x"


def webhook(**fields: Any) -> dict[str, Any]:
    spec: dict[str, Any] = {
        "name": "check.example.com",
        "clientConfig": {"url": URL},
        "rules": [
            {"operations": ["CREATE"], "apiGroups": [""], "apiVersions": ["v1"], "resources": ["pods"]}
        ],
        "sideEffects": "None",
        "admissionReviewVersions": ["v1"],
    }
    spec.update(fields)
    return {k: v for k, v in spec.items() if v is not None}


async def test_defaults(api: httpx.AsyncClient) -> None:
    service = {"clientConfig": {"service": {"name": "hooks", "namespace": "webhooks"}}}
    body = configuration(
        "MutatingWebhookConfiguration", "m", webhook(), webhook(name="two.example.com", **service)
    )
    created = (await api.post(MUTATING, json=body)).json()
    first, second = created["webhooks"]
    assert first["failurePolicy"] == "Fail"
    assert first["matchPolicy"] == "Equivalent"
    assert first["namespaceSelector"] == {} and first["objectSelector"] == {}
    assert first["timeoutSeconds"] == 10
    assert first["reinvocationPolicy"] == "Never"
    assert first["rules"][0]["scope"] == "*"
    assert second["clientConfig"]["service"]["port"] == 443
    validating = configuration("ValidatingWebhookConfiguration", "v", webhook())
    created = (await api.post(VALIDATING, json=validating)).json()
    assert created["webhooks"][0]["timeoutSeconds"] == 10
    assert "reinvocationPolicy" not in created["webhooks"][0]


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        (
            {"sideEffects": None},
            "webhooks[0].sideEffects: Required value: must specify one of None, NoneOnDryRun",
        ),
        (
            {"sideEffects": "Some"},
            'webhooks[0].sideEffects: Unsupported value: "Some": supported values: "None", "NoneOnDryRun"',
        ),
        (
            {"admissionReviewVersions": None},
            "webhooks[0].admissionReviewVersions: Required value: must specify one of v1, v1beta1",
        ),
        (
            {"admissionReviewVersions": ["v2"]},
            'webhooks[0].admissionReviewVersions: Invalid value: ["v2"]: must include at '
            "least one of v1, v1beta1",
        ),
        (
            {"name": "short.name"},
            'webhooks[0].name: Invalid value: "short.name": should be a domain with at least three segments '
            "separated by dots",
        ),
        (
            {"timeoutSeconds": 31},
            "webhooks[0].timeoutSeconds: Invalid value: 31: the timeout value must be "
            "between 1 and 30 seconds",
        ),
        (
            {"failurePolicy": "Maybe"},
            'webhooks[0].failurePolicy: Unsupported value: "Maybe": supported values: "Fail", "Ignore"',
        ),
        (
            {"clientConfig": {"url": "http://127.0.0.1/x"}},
            "webhooks[0].clientConfig.url: Invalid value: \"http\": 'https' is the only allowed URL scheme; "
            "desired format: https://host[/path]",
        ),
        (
            {"clientConfig": {"url": URL, "service": {"name": "a", "namespace": "b"}}},
            "webhooks[0].clientConfig: Required value: exactly one of url or service is required",
        ),
        (
            {
                "rules": [
                    {
                        "operations": ["CREATE"],
                        "apiGroups": ["*", "apps"],
                        "apiVersions": ["v1"],
                        "resources": ["*"],
                    }
                ]
            },
            'webhooks[0].rules[0].apiGroups: Invalid value: ["*","apps"]: if \'*\' is '
            "present, must not specify "
            "other API groups",
        ),
        (
            {
                "rules": [
                    {"operations": ["PATCH"], "apiGroups": [""], "apiVersions": ["v1"], "resources": ["pods"]}
                ]
            },
            'webhooks[0].rules[0].operations[0]: Unsupported value: "PATCH": supported '
            'values: "*", "CONNECT", '
            '"CREATE", "DELETE", "UPDATE"',
        ),
        (
            {
                "rules": [
                    {
                        "operations": ["*"],
                        "apiGroups": [""],
                        "apiVersions": ["v1"],
                        "resources": ["pods/*", "pods/log"],
                    }
                ]
            },
            "webhooks[0].rules[0].resources[1]: Invalid value: \"pods/log\": if 'pods/*' is "
            "present, must not "
            "specify pods/log",
        ),
        (
            {"objectSelector": {"matchExpressions": [{"key": "a", "operator": "In"}]}},
            "webhooks[0].objectSelector.matchExpressions[0].values: Required value: must be specified when "
            "`operator` is 'In' or 'NotIn'",
        ),
    ],
)
async def test_validation(api: httpx.AsyncClient, fields: dict[str, Any], message: str) -> None:
    body = configuration("ValidatingWebhookConfiguration", "v", webhook(**fields))
    answer = await api.post(VALIDATING, json=body)
    assert answer.status_code == 422, answer.text
    status = answer.json()
    assert status["reason"] == "Invalid"
    assert status["message"] == f'ValidatingWebhookConfiguration.{GROUP} "v" is invalid: {message}'


async def test_duplicate_webhook_names(api: httpx.AsyncClient) -> None:
    body = configuration("MutatingWebhookConfiguration", "m", webhook(), webhook())
    answer = await api.post(MUTATING, json=body)
    assert answer.status_code == 422
    assert answer.json()["message"].endswith('webhooks[1].name: Duplicate value: "check.example.com"')


async def test_update_keeps_accepting_side_effects_the_old_object_had(
    api: httpx.AsyncClient, served: Any
) -> None:
    store = served.catalog.store(GROUP, "v1", "validatingwebhookconfigurations")
    legacy = configuration("ValidatingWebhookConfiguration", "legacy", webhook(sideEffects="Unknown"))
    legacy["metadata"].update(uid="1", creationTimestamp="2020-01-01T00:00:00Z")
    await store.storage.create(store.key("", "legacy"), legacy)  # stored before sideEffects was checked
    current = (await api.get(f"{VALIDATING}/legacy")).json()
    current["webhooks"][0]["timeoutSeconds"] = 5
    assert (await api.put(f"{VALIDATING}/legacy", json=current)).status_code == 200
    current = (await api.get(f"{VALIDATING}/legacy")).json()
    current["webhooks"][0]["sideEffects"] = "Bogus"
    answer = await api.put(f"{VALIDATING}/legacy", json=current)
    assert answer.status_code == 422
    assert '"Bogus": supported values: "None", "NoneOnDryRun", "Some", "Unknown"' in answer.json()["message"]


async def test_discovery_and_table(api: httpx.AsyncClient) -> None:
    resources = (await api.get(f"/apis/{GROUP}/v1")).json()["resources"]
    served = {r["name"]: r for r in resources}
    assert served["validatingwebhookconfigurations"]["namespaced"] is False
    assert served["mutatingwebhookconfigurations"]["kind"] == "MutatingWebhookConfiguration"
    await api.post(VALIDATING, json=configuration("ValidatingWebhookConfiguration", "v", webhook()))
    table = (
        await api.get(VALIDATING, headers={"Accept": "application/json;as=Table;v=v1;g=meta.k8s.io"})
    ).json()
    assert [c["name"] for c in table["columnDefinitions"]] == ["Name", "Webhooks", "Age"]
    assert table["rows"][0]["cells"][:2] == ["v", 1]
