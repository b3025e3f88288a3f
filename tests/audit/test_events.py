"""Audit events written by an in-process apiserver, read back from the log file."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest

from apiserver.audit.policy import METADATA, REQUEST, REQUEST_RESPONSE, Policy, PolicyRule
from apiserver.security import SecurityConfig
from tests.audit.conftest import CONFIGMAPS, NAMESPACE, AuditLog, audit_log, audited_apiserver

MICRO_TIME = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z")
SECRET_VALUE = "s3cr3t-value"


async def test_create_get_delete_and_a_miss(api: httpx.AsyncClient, log: AuditLog) -> None:
    created = await api.post(CONFIGMAPS, json={"metadata": {"name": "cm1"}, "data": {"k": SECRET_VALUE}})
    assert created.status_code == 201
    assert (await api.get(f"{CONFIGMAPS}/cm1")).status_code == 200
    assert (await api.get(CONFIGMAPS)).status_code == 200
    assert (await api.delete(f"{CONFIGMAPS}/cm1")).status_code == 200
    assert (await api.get(f"{CONFIGMAPS}/cm1")).status_code == 404

    create, *_ = log.for_uri(CONFIGMAPS)
    assert list(create) == [
        "kind",
        "apiVersion",
        "level",
        "auditID",
        "stage",
        "requestURI",
        "verb",
        "user",
        "sourceIPs",
        "userAgent",
        "objectRef",
        "responseStatus",
        "requestReceivedTimestamp",
        "stageTimestamp",
        "annotations",
    ]
    assert create["kind"] == "Event" and create["apiVersion"] == "audit.k8s.io/v1"
    assert create["level"] == METADATA and create["stage"] == "ResponseComplete"
    assert create["auditID"] == created.headers["audit-id"]
    assert create["verb"] == "create"
    assert create["user"] == {"username": "system:anonymous", "groups": ["system:unauthenticated"]}
    assert create["sourceIPs"] == ["10.0.0.7"]
    assert create["userAgent"].startswith("python-httpx/")
    # the name comes from the body, as upstream's LogRequestObject fills it
    assert create["objectRef"] == {
        "resource": "configmaps",
        "namespace": NAMESPACE,
        "name": "cm1",
        "apiVersion": "v1",
    }
    assert create["responseStatus"] == {"metadata": {}, "code": 201}
    assert MICRO_TIME.fullmatch(create["requestReceivedTimestamp"])
    assert MICRO_TIME.fullmatch(create["stageTimestamp"])
    assert create["stageTimestamp"] >= create["requestReceivedTimestamp"]

    verbs = [(e["verb"], e["responseStatus"]["code"]) for e in log.events() if "cm1" in e["requestURI"]]
    assert verbs == [("get", 200), ("delete", 200), ("get", 404)]
    assert [e["verb"] for e in log.for_uri(CONFIGMAPS)] == ["create", "list"]
    miss = log.for_uri(f"{CONFIGMAPS}/cm1")[-1]
    assert miss["responseStatus"] == {
        "metadata": {},
        "status": "Failure",
        "message": 'configmaps "cm1" not found',
        "reason": "NotFound",
        "details": {"name": "cm1", "kind": "configmaps"},
        "code": 404,
    }
    # Metadata level: no bodies, so the ConfigMap's data never reaches the log
    assert SECRET_VALUE not in log.path.read_text()
    assert all("requestObject" not in e and "responseObject" not in e for e in log.events())


async def test_health_checks_are_not_audited(api: httpx.AsyncClient, log: AuditLog) -> None:
    for path in ("/healthz", "/livez", "/readyz", "/version", "/readyz?verbose"):
        await api.get(path)
    await api.get("/openapi/v2")
    assert [
        e["requestURI"] for e in log.events() if not e["requestURI"].startswith("/api/v1/namespaces")
    ] == ["/openapi/v2"]
    assert log.for_uri("/openapi/v2")[0]["verb"] == "get"
    assert "objectRef" not in log.for_uri("/openapi/v2")[0]


async def test_watch_has_response_started_then_complete(api: httpx.AsyncClient, log: AuditLog) -> None:
    uri = f"{CONFIGMAPS}?watch=true&timeoutSeconds=1"
    assert (await api.get(uri)).status_code == 200
    started, complete = log.for_uri(uri)
    assert (started["stage"], complete["stage"]) == ("ResponseStarted", "ResponseComplete")
    assert started["verb"] == complete["verb"] == "watch"
    assert started["auditID"] == complete["auditID"]
    assert started["responseStatus"] == complete["responseStatus"] == {"metadata": {}, "code": 200}
    assert complete["stageTimestamp"] > started["stageTimestamp"]


async def test_audit_id_from_the_client_is_kept(api: httpx.AsyncClient, log: AuditLog) -> None:
    response = await api.get(f"{CONFIGMAPS}/x", headers={"Audit-ID": "my-trace-1"})
    assert response.headers["audit-id"] == "my-trace-1"
    assert log.for_uri(f"{CONFIGMAPS}/x")[0]["auditID"] == "my-trace-1"


async def test_forwarded_source_ips_and_long_user_agents(api: httpx.AsyncClient, log: AuditLog) -> None:
    headers = {"X-Forwarded-For": "1.2.3.4, junk, 5.6.7.8", "X-Real-Ip": "9.9.9.9", "User-Agent": "a" * 2000}
    await api.get(f"{CONFIGMAPS}/y", headers=headers)
    (event,) = log.for_uri(f"{CONFIGMAPS}/y")
    assert event["sourceIPs"] == ["1.2.3.4", "5.6.7.8", "9.9.9.9", "10.0.0.7"]
    assert event["userAgent"] == "a" * 1024 + "...TRUNCATED"


@pytest.fixture
def detailed_log(tmp_path: Path) -> AuditLog:
    """Secrets at Request, ConfigMaps at RequestResponse (without managedFields), the rest
    at Metadata with every stage."""
    from apiserver.audit.policy import GroupResources

    return audit_log(
        tmp_path,
        Policy(
            rules=(
                PolicyRule(REQUEST, resources=(GroupResources("", ("secrets",)),)),
                PolicyRule(
                    REQUEST_RESPONSE,
                    resources=(GroupResources("", ("configmaps",)),),
                    omit_managed_fields=True,
                ),
                PolicyRule(METADATA),
            )
        ),
    )


@pytest.fixture
async def detailed_api(detailed_log: AuditLog) -> AsyncIterator[httpx.AsyncClient]:
    async with audited_apiserver(SecurityConfig(audit=detailed_log.config)) as client:
        yield client


async def test_request_level_logs_the_request_body_only(
    detailed_api: httpx.AsyncClient, detailed_log: AuditLog
) -> None:
    secret = {"metadata": {"name": "s1"}, "stringData": {"password": SECRET_VALUE}}
    assert (
        await detailed_api.post(f"/api/v1/namespaces/{NAMESPACE}/secrets", json=secret)
    ).status_code == 201
    received, complete = detailed_log.for_uri(f"/api/v1/namespaces/{NAMESPACE}/secrets")
    assert received["stage"] == "RequestReceived"
    assert received["stageTimestamp"] == received["requestReceivedTimestamp"]
    assert "requestObject" not in received  # not decoded yet
    assert complete["level"] == REQUEST
    assert complete["requestObject"] == secret
    assert "responseObject" not in complete


async def test_request_response_level_logs_both_bodies(
    detailed_api: httpx.AsyncClient, detailed_log: AuditLog
) -> None:
    body = {"metadata": {"name": "cm2"}, "data": {"k": "v"}}
    created = await detailed_api.post(CONFIGMAPS, json=body)
    assert created.status_code == 201 and "managedFields" in created.json()["metadata"]
    patch = {"data": {"k": "w"}}
    headers = {"Content-Type": "application/merge-patch+json"}
    assert (await detailed_api.patch(f"{CONFIGMAPS}/cm2", json=patch, headers=headers)).status_code == 200
    complete = detailed_log.for_uri(CONFIGMAPS)[-1]
    assert complete["requestObject"] == body
    response = complete["responseObject"]
    assert response["kind"] == "ConfigMap" and response["data"] == {"k": "v"}
    assert "managedFields" not in response["metadata"]
    assert response["metadata"]["uid"] == created.json()["metadata"]["uid"]
    patched = detailed_log.for_uri(f"{CONFIGMAPS}/cm2")[-1]
    assert patched["verb"] == "patch"
    assert patched["requestObject"] == patch
    assert patched["responseObject"]["data"] == {"k": "w"}


async def test_update_fills_uid_and_resource_version_from_the_body(
    detailed_api: httpx.AsyncClient, detailed_log: AuditLog
) -> None:
    created = (await detailed_api.post(CONFIGMAPS, json={"metadata": {"name": "cm3"}})).json()
    assert (await detailed_api.put(f"{CONFIGMAPS}/cm3", json=created)).status_code == 200
    update = detailed_log.for_uri(f"{CONFIGMAPS}/cm3")[-1]
    assert update["objectRef"] == {
        "resource": "configmaps",
        "namespace": NAMESPACE,
        "name": "cm3",
        "uid": created["metadata"]["uid"],
        "apiVersion": "v1",
        "resourceVersion": created["metadata"]["resourceVersion"],
    }
