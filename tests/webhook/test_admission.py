"""The webhook plugins end to end through the API, against a real HTTPS webhook server whose
certificate is signed by a test CA given as ``caBundle``."""

from __future__ import annotations

import socket
import time
import uuid
from typing import Any

from apiserver.storage.interface import ListOptions
from tests.waiting import eventually
from tests.webhook.conftest import Served, hook, install, pod
from tests.webhook_server import Raw, WebhookServer, allow, deny, patch, slow

PODS = "/api/v1/namespaces/default/pods"
VALIDATING = "ValidatingWebhookConfiguration"
MUTATING = "MutatingWebhookConfiguration"


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
    return port


async def test_validating_webhook_denies_with_its_message_code_and_reason(
    served: Served, webhook: WebhookServer
) -> None:
    webhook.handle("/deny", deny("pods named bad are not allowed", 403, "Forbidden"))
    await install(served, VALIDATING, "v", hook("deny.example.com", webhook.url("/deny"), webhook.ca_bundle))
    answer = await served.client.post(PODS, json=pod("bad"))
    assert answer.status_code == 403
    status = answer.json()
    assert status["reason"] == "Forbidden"
    assert (
        status["message"]
        == 'admission webhook "deny.example.com" denied the request: pods named bad are not allowed'
    )
    assert (await served.client.get(f"{PODS}/bad")).status_code == 404


async def test_denial_without_code_or_message(served: Served, webhook: WebhookServer) -> None:
    webhook.handle("/bare", lambda request: {"allowed": False})
    await install(served, VALIDATING, "v", hook("bare.example.com", webhook.url("/bare"), webhook.ca_bundle))
    answer = await served.client.post(PODS, json=pod("p"))
    assert answer.status_code == 400  # upstream raises codes below 400 to 400
    assert (
        answer.json()["message"]
        == 'admission webhook "bare.example.com" denied the request without explanation'
    )


async def test_mutating_webhook_adds_a_label_with_a_json_patch(
    served: Served, webhook: WebhookServer
) -> None:
    webhook.handle("/label", patch([{"op": "add", "path": "/metadata/labels/added-by", "value": "webhook"}]))
    await install(served, MUTATING, "m", hook("label.example.com", webhook.url("/label"), webhook.ca_bundle))
    created = await served.client.post(PODS, json=pod("web", app="web"))
    assert created.status_code == 201, created.text
    assert created.json()["metadata"]["labels"] == {"app": "web", "added-by": "webhook"}
    stored = (await served.client.get(f"{PODS}/web")).json()
    assert stored["metadata"]["labels"]["added-by"] == "webhook"
    (seen,) = webhook.seen
    assert seen.path == "/label" and seen.query == "timeout=10s"
    assert seen.review["apiVersion"] == "admission.k8s.io/v1" and seen.review["kind"] == "AdmissionReview"
    request = seen.review["request"]
    uuid.UUID(request["uid"])
    assert request["kind"] == request["requestKind"] == {"group": "", "version": "v1", "kind": "Pod"}
    assert (
        request["resource"]
        == request["requestResource"]
        == {"group": "", "version": "v1", "resource": "pods"}
    )
    assert (request["name"], request["namespace"], request["operation"]) == ("web", "default", "CREATE")
    assert request["userInfo"]["username"] == "system:anonymous"
    assert request["object"]["metadata"]["labels"] == {"app": "web"}
    assert request["object"]["spec"]["containers"][0]["image"] == "nginx"
    assert request["oldObject"] is None and request["dryRun"] is False
    assert request["options"] == {"kind": "CreateOptions", "apiVersion": "meta.k8s.io/v1"}


async def test_update_and_delete_reviews(served: Served, webhook: WebhookServer) -> None:
    webhook.handle("/ok", allow)
    rule = {
        "operations": ["UPDATE", "DELETE"],
        "apiGroups": [""],
        "apiVersions": ["v1"],
        "resources": ["pods"],
    }
    await install(
        served, VALIDATING, "v", hook("ok.example.com", webhook.url("/ok"), webhook.ca_bundle, rules=[rule])
    )
    await served.client.post(PODS, json=pod("p", v="1"))
    assert webhook.seen == []  # CREATE is not in the rules
    current = (await served.client.get(f"{PODS}/p")).json()
    current["metadata"]["labels"]["v"] = "2"
    assert (await served.client.put(f"{PODS}/p", json=current)).status_code == 200
    update = webhook.seen[-1].review["request"]
    assert update["operation"] == "UPDATE"
    assert update["oldObject"]["metadata"]["labels"] == {"v": "1"}
    assert update["object"]["metadata"]["labels"] == {"v": "2"}
    assert update["options"]["kind"] == "UpdateOptions"
    assert (await served.client.delete(f"{PODS}/p", params={"gracePeriodSeconds": "0"})).status_code == 200
    delete = webhook.seen[-1].review["request"]
    assert delete["operation"] == "DELETE" and delete["object"] is None
    assert delete["oldObject"]["metadata"]["name"] == "p"
    assert delete["options"]["kind"] == "DeleteOptions" and delete["options"]["gracePeriodSeconds"] == 0


async def test_failure_policy_on_an_unreachable_webhook(served: Served, webhook: WebhookServer) -> None:
    port = closed_port()
    url = f"https://127.0.0.1:{port}/gone"
    await install(
        served,
        VALIDATING,
        "ignore",
        hook("ignore.example.com", url, webhook.ca_bundle, failurePolicy="Ignore"),
    )
    assert (await served.client.post(PODS, json=pod("ignored"))).status_code == 201
    await install(served, VALIDATING, "strict", hook("fail.example.com", url, webhook.ca_bundle))
    answer = await served.client.post(PODS, json=pod("refused"))
    assert answer.status_code == 500
    assert answer.json()["reason"] == "InternalError"
    assert answer.json()["message"] == (
        f'Internal error occurred: failed calling webhook "fail.example.com": failed to call webhook: '
        f'Post "{url}?timeout=10s": dial tcp 127.0.0.1:{port}: connect: connection refused'
    )


async def test_timeout(served: Served, webhook: WebhookServer) -> None:
    webhook.handle("/slow", slow(3))
    url = webhook.url("/slow")
    await install(served, MUTATING, "m", hook("slow.example.com", url, webhook.ca_bundle, timeoutSeconds=1))
    started = time.monotonic()
    answer = await served.client.post(PODS, json=pod("late"))
    assert time.monotonic() - started < 2.5
    assert answer.status_code == 500
    assert answer.json()["message"] == (
        'Internal error occurred: failed calling webhook "slow.example.com": failed to call webhook: '
        f'Post "{url}?timeout=1s": context deadline exceeded'
    )
    assert webhook.seen[0].query == "timeout=1s"


async def test_timeout_with_failure_policy_ignore_admits(served: Served, webhook: WebhookServer) -> None:
    webhook.handle("/slow", slow(3, deny("too late to matter")))
    spec = hook(
        "slow.example.com", webhook.url("/slow"), webhook.ca_bundle, timeoutSeconds=1, failurePolicy="Ignore"
    )
    await install(served, VALIDATING, "v", spec)
    assert (await served.client.post(PODS, json=pod("admitted"))).status_code == 201


async def test_dry_run_and_side_effects(served: Served, webhook: WebhookServer) -> None:
    webhook.handle("/none", allow)
    webhook.handle("/on-dry-run", allow)
    await install(served, VALIDATING, "a", hook("none.example.com", webhook.url("/none"), webhook.ca_bundle))
    spec = hook("dry.example.com", webhook.url("/on-dry-run"), webhook.ca_bundle, sideEffects="NoneOnDryRun")
    await install(served, VALIDATING, "b", spec)
    answer = await served.client.post(PODS, params={"dryRun": "All"}, json=pod("dry"))
    assert answer.status_code == 201
    assert (await served.client.get(f"{PODS}/dry")).status_code == 404
    reviews = [s.review["request"] for s in webhook.seen]
    assert len(reviews) == 2 and all(r["dryRun"] is True for r in reviews)
    assert reviews[0]["options"]["dryRun"] == ["All"]


async def test_dry_run_refused_by_a_webhook_with_side_effects(served: Served, webhook: WebhookServer) -> None:
    webhook.handle("/some", allow)
    store = served.catalog.store("admissionregistration.k8s.io", "v1", "validatingwebhookconfigurations")
    assert store is not None
    spec = hook(
        "some.example.com", webhook.url("/some"), webhook.ca_bundle, sideEffects="Some", timeoutSeconds=10
    )
    legacy = {
        "metadata": {"name": "legacy", "uid": "1"},
        "webhooks": [spec],
    }  # from before sideEffects was checked
    created = await store.storage.create(store.key("", "legacy"), legacy)
    await store.storage.wait_until_fresh(int(created["metadata"]["resourceVersion"]))  # type: ignore[attr-defined]
    answer = await served.client.post(PODS, params={"dryRun": "All"}, json=pod("dry"))
    assert answer.status_code == 400
    assert answer.json()["reason"] == "BadRequest"
    assert answer.json()["message"] == 'admission webhook "some.example.com" does not support dry run'
    assert webhook.seen == []
    assert (await served.client.post(PODS, json=pod("real"))).status_code == 201  # not a dry run: called
    assert len(webhook.seen) == 1


async def test_warnings_become_warning_headers(served: Served, webhook: WebhookServer) -> None:
    webhook.handle(
        "/warn", lambda request: {"allowed": True, "warnings": ["image tag latest is discouraged"]}
    )
    await install(served, VALIDATING, "v", hook("warn.example.com", webhook.url("/warn"), webhook.ca_bundle))
    answer = await served.client.post(PODS, json=pod("p"))
    assert answer.status_code == 201
    assert answer.headers.get_list("Warning") == ['299 - "image tag latest is discouraged"']


async def test_certificate_not_signed_by_the_ca_bundle(served: Served, webhook: WebhookServer) -> None:
    other = WebhookServer()  # another CA
    webhook.handle("/ok", allow)
    await install(served, VALIDATING, "v", hook("tls.example.com", webhook.url("/ok"), other.ca_bundle))
    answer = await served.client.post(PODS, json=pod("p"))
    assert answer.status_code == 500
    assert answer.json()["message"].endswith(
        'Post "' + webhook.url("/ok") + '?timeout=10s": tls: failed to verify certificate: '
        "x509: certificate signed by unknown authority"
    )
    assert webhook.seen == []


async def test_validating_webhooks_run_in_parallel(served: Served, webhook: WebhookServer) -> None:
    webhook.handle("/slow", slow(0.8))
    hooks = [hook(f"h{i}.example.com", webhook.url("/slow"), webhook.ca_bundle) for i in range(3)]
    await install(served, VALIDATING, "v", *hooks)
    started = time.monotonic()
    assert (await served.client.post(PODS, json=pod("p"))).status_code == 201
    assert time.monotonic() - started < 2.0
    assert len(webhook.seen) == 3


async def test_mutating_webhooks_run_in_order_on_each_others_output(
    served: Served, webhook: WebhookServer
) -> None:
    webhook.handle("/first", patch([{"op": "add", "path": "/metadata/labels/order", "value": "first"}]))
    webhook.handle("/second", patch([{"op": "replace", "path": "/metadata/labels/order", "value": "second"}]))
    # configurations run in name order, whatever their creation order
    await install(
        served, MUTATING, "b", hook("second.example.com", webhook.url("/second"), webhook.ca_bundle)
    )
    await install(served, MUTATING, "a", hook("first.example.com", webhook.url("/first"), webhook.ca_bundle))
    created = (await served.client.post(PODS, json=pod("p"))).json()
    assert created["metadata"]["labels"] == {"order": "second"}
    assert [s.path for s in webhook.seen] == ["/first", "/second"]
    assert webhook.seen[1].review["request"]["object"]["metadata"]["labels"] == {"order": "first"}


async def test_invalid_responses_are_call_failures(served: Served, webhook: WebhookServer) -> None:
    webhook.handle(
        "/uid",
        lambda request: Raw(
            {
                "apiVersion": "admission.k8s.io/v1",
                "kind": "AdmissionReview",
                "response": {"uid": "wrong", "allowed": True},
            }
        ),
    )
    await install(served, VALIDATING, "v", hook("uid.example.com", webhook.url("/uid"), webhook.ca_bundle))
    answer = await served.client.post(PODS, json=pod("p"))
    assert answer.status_code == 500
    uid = webhook.seen[0].review["request"]["uid"]
    assert answer.json()["message"] == (
        'Internal error occurred: failed calling webhook "uid.example.com": '
        f'received invalid webhook response: expected response.uid="{uid}", got "wrong"'
    )


async def test_patch_without_patch_type_is_refused(served: Served, webhook: WebhookServer) -> None:
    webhook.handle("/p", lambda request: {"allowed": True, "patch": "W10="})
    await install(served, MUTATING, "m", hook("p.example.com", webhook.url("/p"), webhook.ca_bundle))
    answer = await served.client.post(PODS, json=pod("p"))
    assert answer.status_code == 500
    assert answer.json()["message"].endswith("webhook returned response.patch but not response.patchType")


async def test_service_reference_goes_through_the_endpoints(served: Served, webhook: WebhookServer) -> None:
    webhook.handle("/svc", deny("seen through the service"))
    api = served.client
    service = {
        "metadata": {"name": "hooks", "namespace": "webhooks"},
        "spec": {"ports": [{"name": "https", "port": 443, "targetPort": 9443}]},
    }
    assert (await api.post("/api/v1/namespaces/webhooks/services", json=service)).status_code == 201
    endpoints = {
        "metadata": {"name": "hooks", "namespace": "webhooks"},
        "subsets": [{"addresses": [{"ip": "127.0.0.1"}], "ports": [{"name": "https", "port": webhook.port}]}],
    }
    assert (await api.post("/api/v1/namespaces/webhooks/endpoints", json=endpoints)).status_code == 201

    async def cached() -> bool:  # the webhook resolves the service through the watch caches
        found = []
        for resource in ("services", "endpoints"):
            store = served.catalog.store("", "v1", resource)
            assert store is not None
            listed = await store.list("webhooks", ListOptions(resource_version="0"))
            found.append(any(o["metadata"]["name"] == "hooks" for o in listed.items))
        return all(found)

    await eventually(cached, "the watch caches to hold the service and its endpoints")
    config = {
        "service": {"name": "hooks", "namespace": "webhooks", "path": "/svc"},
        "caBundle": webhook.ca_bundle,
    }
    spec = hook("svc.example.com", "", "", clientConfig=config)
    await install(served, VALIDATING, "v", spec)
    answer = await api.post(PODS, json=pod("p"))
    assert answer.status_code == 403, answer.text
    assert answer.json()["message"].endswith("seen through the service")


async def test_webhook_configurations_are_never_sent_to_webhooks(
    served: Served, webhook: WebhookServer
) -> None:
    webhook.handle("/all", deny("nothing passes"))
    everything = [{"operations": ["*"], "apiGroups": ["*"], "apiVersions": ["*"], "resources": ["*/*"]}]
    await install(
        served,
        VALIDATING,
        "v",
        hook("all.example.com", webhook.url("/all"), webhook.ca_bundle, rules=everything),
    )
    assert (await served.client.post(PODS, json=pod("p"))).status_code == 403
    path = "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/v"
    assert (await served.client.delete(path)).status_code == 200


def _labels(review: dict[str, Any]) -> dict[str, str]:
    labels: dict[str, str] = review["request"]["object"]["metadata"].get("labels") or {}
    return labels


async def test_object_selector_end_to_end(served: Served, webhook: WebhookServer) -> None:
    webhook.handle("/sel", deny("selected"))
    spec = hook(
        "sel.example.com",
        webhook.url("/sel"),
        webhook.ca_bundle,
        objectSelector={"matchLabels": {"check": "yes"}},
    )
    await install(served, VALIDATING, "v", spec)
    assert (await served.client.post(PODS, json=pod("free"))).status_code == 201
    assert (await served.client.post(PODS, json=pod("checked", check="yes"))).status_code == 403
    assert [_labels(s.review) for s in webhook.seen] == [{"check": "yes"}]


async def test_equivalent_resource_gets_the_object_in_its_own_version(
    served: Served, webhook: WebhookServer
) -> None:
    webhook.handle("/events", allow)
    rule = {
        "operations": ["CREATE"],
        "apiGroups": ["events.k8s.io"],
        "apiVersions": ["v1"],
        "resources": ["events"],
    }
    await install(
        served,
        VALIDATING,
        "v",
        hook("ev.example.com", webhook.url("/events"), webhook.ca_bundle, rules=[rule]),
    )
    event = {
        "apiVersion": "v1",
        "kind": "Event",
        "metadata": {"name": "e1", "namespace": "default"},
        "involvedObject": {"kind": "Pod", "name": "p", "namespace": "default"},
        "reason": "Started",
        "message": "started",
        "type": "Normal",
        "source": {"component": "test"},
    }
    answer = await served.client.post("/api/v1/namespaces/default/events", json=event)
    assert answer.status_code == 201, answer.text
    (seen,) = webhook.seen
    request = seen.review["request"]
    assert request["kind"] == {"group": "events.k8s.io", "version": "v1", "kind": "Event"}
    assert request["resource"] == {"group": "events.k8s.io", "version": "v1", "resource": "events"}
    assert request["requestKind"] == {"group": "", "version": "v1", "kind": "Event"}
    assert request["object"]["apiVersion"] == "events.k8s.io/v1"
    assert request["object"]["regarding"]["name"] == "p" and request["object"]["note"] == "started"


async def test_a_server_error_is_a_call_failure(served: Served, webhook: WebhookServer) -> None:
    webhook.handle("/broken", lambda request: Raw("boom", status=500))
    await install(
        served, VALIDATING, "v", hook("broken.example.com", webhook.url("/broken"), webhook.ca_bundle)
    )
    answer = await served.client.post(PODS, json=pod("p"))
    assert answer.status_code == 500
    assert answer.json()["message"] == (
        'Internal error occurred: failed calling webhook "broken.example.com": failed to call webhook: '
        'an error on the server ("\\"boom\\"") has prevented the request from succeeding'
    )


async def test_v1beta1_only_webhooks_get_a_v1beta1_review(served: Served, webhook: WebhookServer) -> None:
    webhook.handle("/old", deny("old but working"))
    spec = hook(
        "old.example.com", webhook.url("/old"), webhook.ca_bundle, admissionReviewVersions=["v1beta1"]
    )
    await install(served, VALIDATING, "v", spec)
    assert (await served.client.post(PODS, json=pod("p"))).status_code == 403
    assert webhook.seen[0].review["apiVersion"] == "admission.k8s.io/v1beta1"
