"""``ValidatingAdmissionWebhook``: every matching validating webhook, called in parallel; the
first refusal (in webhook order) refuses the request."""

from __future__ import annotations

import asyncio
import logging

from apiserver.admission.attributes import Attributes
from apiserver.admission.interfaces import Plugin
from apiserver.admission.webhook.calling import call, versioned
from apiserver.admission.webhook.errors import CallError, denied, failed_closed
from apiserver.admission.webhook.matching import Invocation, is_exempt, should_call
from apiserver.admission.webhook.source import VALIDATING, WebhookLookup, webhooks
from apiserver.request.context import annotate
from minikube_py.api import errors

log = logging.getLogger("apiserver.admission")
FAILED_OPEN = "failed-open.validating.webhook.admission.k8s.io/"


class ValidatingAdmissionWebhook(Plugin):
    name = "ValidatingAdmissionWebhook"

    def __init__(self, lookup: WebhookLookup) -> None:
        super().__init__()
        self.lookup = lookup

    async def validate(self, attrs: Attributes) -> None:
        if is_exempt(attrs):
            return
        invocations: list[Invocation] = []
        for hook in await webhooks(self.lookup, VALIDATING):
            invocation = await should_call(hook, attrs, self.lookup)
            if invocation is not None:
                invocations.append(invocation)
        outcomes = await asyncio.gather(*(self._call(i, index, attrs) for index, i in enumerate(invocations)))
        refusal = next((outcome for outcome in outcomes if outcome is not None), None)
        if refusal is not None:
            raise refusal

    async def _call(self, invocation: Invocation, index: int, attrs: Attributes) -> errors.ApiError | None:
        """The refusal this webhook answers, if any (never raises)."""
        hook = invocation.hook
        obj = versioned(attrs.object, attrs, invocation, self.lookup)
        try:
            response = await call(invocation, attrs, self.lookup, obj, mutating=False)
        except CallError as err:
            if hook.ignores_failures:
                log.warning("Failed calling webhook, failing open %s: %s", hook.name, err)
                annotate(f"{FAILED_OPEN}round_0_index_{index}", hook.name)
                return None
            log.warning("Failed calling webhook, failing closed %s: %s", hook.name, err)
            return failed_closed(err)
        except errors.ApiError as err:
            return err
        return None if response.allowed else denied(hook.name, response.result)
