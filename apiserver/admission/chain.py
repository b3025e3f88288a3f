"""``AdmissionChain``: the configured plugins in upstream's order (``chain.go``).

``admit`` runs every mutating plugin that handles the operation, in order, each on the
object the previous one left; ``validate`` runs every validating plugin. The first refusal
ends the request. What each mutating plugin changed is recorded in the audit annotation
``mutation.minikube-py.io/<plugin>`` as a JSON patch (RFC 6902), for the audit log and for
anyone tracing a request, when the request is audited at Request level or above (as upstream
records webhook patches)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from apiserver.admission.attributes import Attributes
from apiserver.admission.interfaces import MutatingPlugin, ValidatingPlugin
from apiserver.admission.jsondiff import json_patch
from apiserver.request.context import annotate, audit_records_request
from minikube_py import jsonutil

MUTATION_ANNOTATION = "mutation.minikube-py.io/"


class AdmissionChain:
    def __init__(self, plugins: Sequence[object]) -> None:
        self.plugins = list(plugins)
        # Sorted once: isinstance on a runtime-checkable Protocol costs microseconds per call.
        self._mutating = [p for p in self.plugins if isinstance(p, MutatingPlugin)]
        self._validating = [p for p in self.plugins if isinstance(p, ValidatingPlugin)]

    @property
    def names(self) -> list[str]:
        return [str(getattr(plugin, "name", "")) for plugin in self.plugins]

    def mutating(self) -> Iterator[MutatingPlugin]:
        return iter(self._mutating)

    def validating(self) -> Iterator[ValidatingPlugin]:
        return iter(self._validating)

    def __contains__(self, name: str) -> bool:
        return name in self.names

    async def admit(self, attrs: Attributes) -> None:
        """Mutating admission: ``attrs.object`` is changed in place."""
        recording = audit_records_request.get()  # the patches cost copies: Request level and up
        for plugin in self.mutating():
            if not plugin.handles(attrs.operation):
                continue
            before = jsonutil.dumps(attrs.object) if recording and attrs.object is not None else None
            await plugin.admit(attrs)
            if before is not None and attrs.object is not None:
                after = jsonutil.dumps(attrs.object)
                if after == before:
                    continue  # the usual case: nothing to diff (bytes compare in microseconds)
                patch = json_patch(jsonutil.loads(before), attrs.object)
                if patch:
                    annotate(MUTATION_ANNOTATION + plugin.name, jsonutil.dumps(patch).decode())

    async def validate(self, attrs: Attributes) -> None:
        """Validating admission: refusals only."""
        for plugin in self.validating():
            if plugin.handles(attrs.operation):
                await plugin.validate(attrs)
