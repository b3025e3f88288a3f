"""The configured webhooks: every webhook of every Mutating/ValidatingWebhookConfiguration in
the watch cache, ordered as upstream orders them (configurations by name, then each
configuration's webhooks in order)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

from apiserver.lookup import Lookup, ObjectInterfaces

GROUP = "admissionregistration.k8s.io"
MUTATING = "mutatingwebhookconfigurations"
VALIDATING = "validatingwebhookconfigurations"


class WebhookLookup(Lookup, ObjectInterfaces, Protocol):
    """What the webhook plugins read: services and endpoints (where to call), namespaces
    (selectors), their configurations, and the served versions of a kind (conversion)."""


@dataclass(frozen=True, slots=True)
class Hook:
    """One webhook (its spec as stored, defaults filled) and where it comes from."""

    configuration: str
    index: int
    spec: dict[str, Any]

    @property
    def name(self) -> str:
        return str(self.spec.get("name", ""))

    @property
    def uid(self) -> str:
        """Upstream's webhook accessor uid: unique per configuration and position."""
        return f"{self.configuration}/{self.name}/{self.index}"

    @property
    def ignores_failures(self) -> bool:
        return self.spec.get("failurePolicy") == "Ignore"


async def webhooks(lookup: Lookup, resource: str) -> list[Hook]:
    """The webhooks of ``resource`` (``MUTATING`` or ``VALIDATING``) configurations."""
    if not lookup.serves(GROUP, "v1", resource):
        return []
    configurations = await lookup.lister(GROUP, "v1", resource).list()
    ordered = sorted(configurations, key=lambda c: c["metadata"]["name"])
    return [
        Hook(config["metadata"]["name"], index, spec)
        for config in ordered
        for index, spec in enumerate(config.get("webhooks") or [])
    ]
