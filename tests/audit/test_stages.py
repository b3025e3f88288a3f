"""Stages around the handler: annotations added during the request, a handler that raises,
a failed authentication (audited by the authentication filter's 401 path), impersonation."""

from __future__ import annotations

from pathlib import Path

import httpx
from starlette.types import Receive, Scope, Send

from apiserver.audit.policy import METADATA, Policy, PolicyRule
from apiserver.filters.chain import build_handler_chain
from apiserver.request.context import annotate
from apiserver.security import SecurityConfig
from apiserver.status import status_response
from tests.audit.conftest import CONFIGMAPS, AuditLog, audit_log, audited_apiserver

EVERY_STAGE = Policy(rules=(PolicyRule(METADATA),))


async def annotating_handler(scope: Scope, receive: Receive, send: Send) -> None:
    annotate("example.com/handler", "saw it")
    await status_response(409, "Conflict", "busy")(scope, receive, send)


async def raising_handler(scope: Scope, receive: Receive, send: Send) -> None:
    raise RuntimeError("boom")


def client(handler: object, log: AuditLog, **security: object) -> httpx.AsyncClient:
    app = build_handler_chain(handler, SecurityConfig(audit=log.config, **security))  # type: ignore[arg-type]
    transport = httpx.ASGITransport(app=app, raise_app_exceptions=False)
    return httpx.AsyncClient(transport=transport, base_url="http://apiserver")


async def test_annotations_added_by_the_handler_are_in_the_event(tmp_path: Path) -> None:
    log = audit_log(tmp_path, EVERY_STAGE)
    async with client(annotating_handler, log) as api:
        assert (await api.get("/api/v1/namespaces/a/pods/p")).status_code == 409
    received, complete = log.events()
    assert received["stage"] == "RequestReceived" and "responseStatus" not in received
    assert complete["stage"] == "ResponseComplete"
    assert complete["annotations"]["example.com/handler"] == "saw it"
    assert complete["responseStatus"] == {
        "metadata": {},
        "status": "Failure",
        "message": "busy",
        "reason": "Conflict",
        "code": 409,
    }


async def test_a_raising_handler_is_a_panic_event_and_a_500_status(tmp_path: Path) -> None:
    log = audit_log(tmp_path, EVERY_STAGE)
    async with client(raising_handler, log) as api:
        response = await api.post("/api/v1/namespaces/a/configmaps", json={"metadata": {"name": "c"}})
    assert response.status_code == 500
    assert response.json()["kind"] == "Status"
    assert response.json()["reason"] == "InternalError"
    assert response.headers["audit-id"]
    received, panic = log.events()
    assert received["stage"] == "RequestReceived"
    assert panic["stage"] == "Panic"
    assert panic["auditID"] == response.headers["audit-id"]
    assert panic["responseStatus"] == {
        "metadata": {},
        "status": "Failure",
        "message": "APIServer panic'd: boom",
        "reason": "InternalError",
        "code": 500,
    }


async def test_failed_authentication_is_audited_without_a_user(tmp_path: Path) -> None:
    tokens = tmp_path / "tokens.csv"
    tokens.write_text('good-token,alice,uid-1,"devs"\n')
    log = audit_log(tmp_path)
    security = SecurityConfig(anonymous=False, token_auth_file=tokens, audit=log.config)
    async with audited_apiserver(security, create_namespace=False) as api:
        missing = await api.get(CONFIGMAPS)
        bad = await api.get(CONFIGMAPS, headers={"Authorization": "Bearer wrong"})
        good = await api.get(CONFIGMAPS, headers={"Authorization": "Bearer good-token"})
        health = await api.get("/healthz")
    assert (missing.status_code, bad.status_code, good.status_code, health.status_code) == (
        401,
        401,
        200,
        401,
    )
    assert missing.headers["audit-id"] and bad.headers["audit-id"]
    no_credentials, wrong_token, alice = log.for_uri(CONFIGMAPS)
    for event, response in ((no_credentials, missing), (wrong_token, bad)):
        assert event["stage"] == "ResponseStarted"
        assert event["user"] == {}
        assert event["verb"] == "list"
        assert event["auditID"] == response.headers["audit-id"]
    assert no_credentials["responseStatus"] == {
        "metadata": {},
        "message": "Authentication failed, no credentials provided",
        "code": 401,
    }
    assert wrong_token["responseStatus"]["message"] == "Authentication failed, attempted: bearer"
    assert alice["stage"] == "ResponseComplete"
    assert alice["user"] == {"username": "alice", "uid": "uid-1", "groups": ["devs", "system:authenticated"]}
    assert log.for_uri("/healthz") == []  # the policy still decides


async def test_impersonation_records_both_users(tmp_path: Path) -> None:
    log = audit_log(tmp_path)
    async with audited_apiserver(SecurityConfig(audit=log.config)) as api:
        headers = {"Impersonate-User": "bob", "Impersonate-Group": "devs"}
        assert (await api.get(CONFIGMAPS, headers=headers)).status_code == 200
    (event,) = log.for_uri(CONFIGMAPS)
    assert event["user"]["username"] == "system:anonymous"
    assert event["impersonatedUser"] == {"username": "bob", "groups": ["devs", "system:authenticated"]}
    assert list(event).index("impersonatedUser") == list(event).index("user") + 1
