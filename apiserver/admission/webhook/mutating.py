"""``MutatingAdmissionWebhook``: every matching mutating webhook, one after the other, each
seeing the object the previous ones left; ``JSONPatch`` answers are applied and the object is
defaulted again.

Reinvocation (``reinvocationPolicy: IfNeeded``): when a webhook changes the object, the
``IfNeeded`` webhooks called before it are called once more, in a second round, as upstream's
reinvocation does. This server's admission chain runs each plugin once, so the second round
happens inside this plugin and covers changes made by webhooks; the in-tree mutating plugins all
run before this one (upstream's order), so none changes the object afterwards.

Audit annotations, as upstream: ``mutation.webhook.admission.k8s.io/round_<r>_index_<i>``
(``{"configuration","webhook","mutated"}``) for every webhook called,
``patch.webhook.admission.k8s.io/round_<r>_index_<i>`` with the applied patch, and
``failed-open.mutation.webhook.admission.k8s.io/round_<r>_index_<i>`` when a failure was
ignored (``i`` counts every configured webhook).
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass, field
from typing import Any

from apiserver.admission.attributes import Attributes
from apiserver.admission.interfaces import Plugin
from apiserver.admission.webhook.calling import call, versioned
from apiserver.admission.webhook.errors import CallError, denied, failed_closed
from apiserver.admission.webhook.matching import Invocation, is_exempt, should_call
from apiserver.admission.webhook.review import Response
from apiserver.admission.webhook.source import MUTATING, Hook, WebhookLookup, webhooks
from apiserver.patch.errors import PatchError
from apiserver.patch.jsonpatch import apply_json_patch
from apiserver.request.context import annotate
from minikube_py import jsonutil
from minikube_py.api import errors
from minikube_py.api.field_errors import go_quote
from minikube_py.api.unstructured import Object

log = logging.getLogger("apiserver.admission")
MUTATION = "mutation.webhook.admission.k8s.io/"
PATCH = "patch.webhook.admission.k8s.io/"
FAILED_OPEN = "failed-open." + MUTATION


@dataclass
class Reinvocation:
    """Upstream's ``webhookReinvokeContext``: ``IfNeeded`` webhooks called since the last change,
    and those a later change requires calling again."""

    invoked: set[str] = field(default_factory=set)
    reinvoke: set[str] = field(default_factory=set)

    def changed(self) -> None:
        self.reinvoke |= self.invoked
        self.invoked = set()


def _annotation(invocation: Invocation, round_: int, index: int, prefix: str, **value: Any) -> None:
    body = {"configuration": invocation.hook.configuration, "webhook": invocation.hook.name, **value}
    annotate(f"{prefix}round_{round_}_index_{index}", jsonutil.dumps(body).decode())


class MutatingAdmissionWebhook(Plugin):
    name = "MutatingAdmissionWebhook"

    def __init__(self, lookup: WebhookLookup) -> None:
        super().__init__()
        self.lookup = lookup

    async def admit(self, attrs: Attributes) -> None:
        if is_exempt(attrs):
            return
        hooks = await webhooks(self.lookup, MUTATING)
        state = Reinvocation()
        await self._round(attrs, hooks, 0, state)
        if state.reinvoke:
            await self._round(attrs, hooks, 1, state)

    async def _round(self, attrs: Attributes, hooks: list[Hook], round_: int, state: Reinvocation) -> None:
        for index, hook in enumerate(hooks):
            invocation = await should_call(hook, attrs, self.lookup)
            if invocation is None or (round_ == 1 and hook.uid not in state.reinvoke):
                continue
            try:
                changed = await self._call(invocation, attrs, round_, index)
            except CallError as err:
                if not hook.ignores_failures:
                    log.warning("Failed calling webhook, failing closed %s: %s", hook.name, err)
                    raise failed_closed(err) from None
                log.warning("Failed calling webhook, failing open %s: %s", hook.name, err)
                annotate(f"{FAILED_OPEN}round_{round_}_index_{index}", hook.name)
                changed = False
            if changed:
                state.changed()
            if hook.spec.get("reinvocationPolicy") == "IfNeeded":
                state.invoked.add(hook.uid)

    async def _call(self, invocation: Invocation, attrs: Attributes, round_: int, index: int) -> bool:
        """Call one webhook and apply its patch to ``attrs.object``; whether it changed."""
        changed = False
        try:
            obj = versioned(attrs.object, attrs, invocation, self.lookup)
            response = await call(invocation, attrs, self.lookup, obj, mutating=True)
            if not response.allowed:
                raise denied(invocation.hook.name, response.result)
            patched = self._patched(invocation, obj, response)
            if patched is None or obj is None:
                return False
            changed = patched != obj
            _annotation(
                invocation, round_, index, PATCH, patch=json.loads(response.patch), patchType="JSONPatch"
            )
            self._replace(attrs, invocation, patched)
            return changed
        finally:
            _annotation(invocation, round_, index, MUTATION, mutated=changed)

    def _patched(self, invocation: Invocation, obj: Object | None, response: Response) -> Object | None:
        """The object with the webhook's patch applied and defaulted (None: no patch)."""
        name = invocation.hook.name
        if not response.patch:
            return None
        try:
            operations = json.loads(response.patch)
        except ValueError as err:
            raise CallError(name, f"received undecodable patch in webhook response: {err}") from None
        if not operations:
            return None
        if obj is None:
            why = (
                f"admission webhook {go_quote(name)} attempted to modify the object, "
                "which is not supported for this operation"
            )
            raise errors.internal(why)
        if response.patch_type != "JSONPatch":
            raise CallError(name, f"unsupported patch type {go_quote(response.patch_type)}")
        try:
            patched = apply_json_patch(obj, operations)
        except PatchError as err:
            raise errors.internal(str(err)) from None
        if not isinstance(patched, dict):
            raise errors.internal("the patched object is not a JSON object")
        rt = invocation.resource
        if invocation.kind == (rt.group, rt.version, rt.kind):  # not e.g. a Scale
            self.lookup.default(rt, patched)
        return patched

    def _replace(self, attrs: Attributes, invocation: Invocation, patched: Object) -> None:
        """Put ``patched`` (in the invocation's version) in place of ``attrs.object``, in place:
        the store keeps working on the object it handed to admission."""
        assert attrs.object is not None
        back = (
            patched
            if invocation.subresource
            else self.lookup.convert(patched, invocation.resource, attrs.resource)
        )
        assert back is not None
        attrs.object.clear()
        attrs.object.update(back)
