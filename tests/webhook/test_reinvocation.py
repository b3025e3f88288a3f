"""Mutating webhooks called straight through the plugin: reinvocation (``IfNeeded``) and the
audit annotations upstream records for each call."""

from __future__ import annotations

import json
from collections.abc import Awaitable
from typing import Any

import pytest

from apiserver.admission.attributes import Attributes, Operation
from apiserver.admission.webhook.mutating import MutatingAdmissionWebhook
from apiserver.request.context import audit_annotations
from minikube_py.api.builtin import builtin_scheme
from tests.webhook.conftest import Served, hook, install, pod
from tests.webhook_server import Answer, Handler, Review, WebhookServer, patch

PODS = builtin_scheme().by_resource("", "v1", "pods")
MUTATING = "MutatingWebhookConfiguration"


def add_label_once(key: str) -> Handler:
    """Adds label ``key`` unless the object has it already."""
    add = patch([{"op": "add", "path": f"/metadata/labels/{key}", "value": "1"}])

    def handler(request: Review) -> Answer | Awaitable[Answer]:
        labels = request["object"]["metadata"].get("labels") or {}
        return add(request) if key not in labels else {"allowed": True}

    return handler


async def admit(served: Served, obj: dict[str, Any]) -> dict[str, Any]:
    assert PODS is not None
    attrs = Attributes(Operation.CREATE, PODS, "", "default", obj["metadata"]["name"], obj)
    await MutatingAdmissionWebhook(served.catalog).admit(attrs)
    assert attrs.object is obj  # changed in place
    return obj


@pytest.mark.parametrize(("policy", "calls"), [("IfNeeded", 2), ("Never", 1)])
async def test_if_needed_webhooks_run_again_after_a_later_change(
    served: Served, webhook: WebhookServer, policy: str, calls: int
) -> None:
    webhook.handle("/a", add_label_once("a"))
    webhook.handle("/b", add_label_once("b"))
    first = hook("a.example.com", webhook.url("/a"), webhook.ca_bundle, reinvocationPolicy=policy)
    await install(served, MUTATING, "1-first", first)
    await install(served, MUTATING, "2-second", hook("b.example.com", webhook.url("/b"), webhook.ca_bundle))
    obj = await admit(served, pod("p"))
    assert obj["metadata"]["labels"] == {"a": "1", "b": "1"}
    assert [s.path for s in webhook.seen].count("/a") == calls
    assert [s.path for s in webhook.seen].count("/b") == 1
    if calls == 2:  # the second call saw the later webhook's change
        assert webhook.reviews("/a")[1]["request"]["object"]["metadata"]["labels"] == {"a": "1", "b": "1"}


async def test_no_reinvocation_when_nothing_changed_after(served: Served, webhook: WebhookServer) -> None:
    webhook.handle("/a", add_label_once("a"))
    webhook.handle("/b", lambda request: {"allowed": True})
    first = hook("a.example.com", webhook.url("/a"), webhook.ca_bundle, reinvocationPolicy="IfNeeded")
    await install(served, MUTATING, "1-first", first)
    await install(served, MUTATING, "2-second", hook("b.example.com", webhook.url("/b"), webhook.ca_bundle))
    await admit(served, pod("p"))
    assert [s.path for s in webhook.seen] == ["/a", "/b"]


async def test_audit_annotations(served: Served, webhook: WebhookServer) -> None:
    webhook.handle("/a", add_label_once("a"))
    webhook.handle("/quiet", lambda request: {"allowed": True, "auditAnnotations": {"checked": "yes"}})
    config = "labels"
    hooks = [
        hook("a.example.com", webhook.url("/a"), webhook.ca_bundle),
        hook("quiet.example.com", webhook.url("/quiet"), webhook.ca_bundle),
        hook("gone.example.com", "https://127.0.0.1:1/x", webhook.ca_bundle, failurePolicy="Ignore"),
    ]
    await install(served, MUTATING, config, *hooks)
    annotations: dict[str, str] = {}
    audit_annotations.set(annotations)  # what the audit filter does for each request
    await admit(served, pod("p"))
    mutation = "mutation.webhook.admission.k8s.io/round_0_index_"
    assert json.loads(annotations[mutation + "0"]) == {
        "configuration": "labels",
        "webhook": "a.example.com",
        "mutated": True,
    }
    assert json.loads(annotations[mutation + "1"])["mutated"] is False
    assert json.loads(annotations["patch.webhook.admission.k8s.io/round_0_index_0"]) == {
        "configuration": "labels",
        "webhook": "a.example.com",
        "patch": [{"op": "add", "path": "/metadata/labels/a", "value": "1"}],
        "patchType": "JSONPatch",
    }
    assert "patch.webhook.admission.k8s.io/round_0_index_1" not in annotations
    assert annotations["quiet.example.com/checked"] == "yes"
    assert annotations["failed-open.mutation.webhook.admission.k8s.io/round_0_index_2"] == "gone.example.com"
