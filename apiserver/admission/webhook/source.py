"""The configured webhooks: every webhook of every Mutating/ValidatingWebhookConfiguration in
the watch cache, ordered as upstream orders them (configurations by name, then each
configuration's webhooks in order)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from apiserver.storage.cacher import Cacher
from apiserver.storage.interface import ListOptions

if TYPE_CHECKING:
    from apiserver.registry.catalog import Catalog

GROUP = "admissionregistration.k8s.io"
MUTATING = "mutatingwebhookconfigurations"
VALIDATING = "validatingwebhookconfigurations"


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


async def webhooks(catalog: Catalog, resource: str) -> list[Hook]:
    """The webhooks of ``resource`` (``MUTATING`` or ``VALIDATING``) configurations."""
    store = catalog.store(GROUP, "v1", resource)
    if store is None:
        return []
    if isinstance(store.storage, Cacher):
        configurations = store.storage.objects()
    else:
        configurations = (await store.list("", ListOptions(resource_version="0"))).items
    ordered = sorted(configurations, key=lambda c: c["metadata"]["name"])
    return [
        Hook(config["metadata"]["name"], index, spec)
        for config in ordered
        for index, spec in enumerate(config.get("webhooks") or [])
    ]
