"""Mutating and validating webhook configurations (admissionregistration.k8s.io/v1).

Cluster-scoped; upstream's v1 defaults (``failurePolicy: Fail``, ``matchPolicy: Equivalent``,
empty namespace and object selectors, ``timeoutSeconds: 10``, ``reinvocationPolicy: Never``,
rule ``scope: "*"``, service ``port: 443``) and upstream's validation (``webhookvalidation``).
"""

from __future__ import annotations

from typing import Any

from apiserver.registry.age import age
from apiserver.registry.resources.configmap import AGE_COLUMN
from apiserver.registry.resources.podvalidation import to_causes
from apiserver.registry.resources.webhookvalidation import validate_configuration
from apiserver.registry.strategy import NAME_COLUMN, Column, Strategy
from minikube_py.api.errors import Cause
from minikube_py.api.models import admissionregistration
from minikube_py.api.unstructured import Object

WEBHOOKS_COLUMN: Column = ("Webhooks", "integer", "", "Webhooks indicates the number of webhooks.", 0)


def default_webhook(hook: Object, mutating: bool) -> None:
    hook.setdefault("failurePolicy", "Fail")
    hook.setdefault("matchPolicy", "Equivalent")
    hook.setdefault("namespaceSelector", {})
    hook.setdefault("objectSelector", {})
    hook.setdefault("timeoutSeconds", 10)
    if mutating:
        hook.setdefault("reinvocationPolicy", "Never")
    for rule in hook.get("rules") or []:
        if isinstance(rule, dict):
            rule.setdefault("scope", "*")
    service = (hook.get("clientConfig") or {}).get("service")
    if isinstance(service, dict):
        service.setdefault("port", 443)


class WebhookConfigurationStrategy(Strategy):
    """Validating webhook configurations; ``MutatingWebhookConfigurationStrategy`` adds the
    reinvocation policy."""

    mutating = False

    def default(self, obj: Object) -> None:
        for hook in obj.get("webhooks") or []:
            if isinstance(hook, dict):
                default_webhook(hook, self.mutating)

    def validate(self, obj: Object) -> list[Cause]:
        return to_causes(validate_configuration(obj, self.mutating))

    def validate_update(self, new: Object, old: Object) -> list[Cause]:
        return to_causes(validate_configuration(new, self.mutating, old))

    def table_columns(self) -> list[Column]:
        return [NAME_COLUMN, WEBHOOKS_COLUMN, AGE_COLUMN]

    def table_cells(self, obj: Object, now: float) -> list[Any]:
        meta = obj["metadata"]
        return [meta["name"], len(obj.get("webhooks") or []), age(meta.get("creationTimestamp"), now)]


class ValidatingWebhookConfigurationStrategy(WebhookConfigurationStrategy):
    kinds = (admissionregistration.ValidatingWebhookConfiguration,)
    mutating = False


class MutatingWebhookConfigurationStrategy(WebhookConfigurationStrategy):
    kinds = (admissionregistration.MutatingWebhookConfiguration,)
    mutating = True
