"""``PriorityAndFairness``: classify a request to a FlowSchema and its priority level, then
queue it in that level's ``QueueSet`` (upstream's ``util/flowcontrol`` config controller,
over the fixed bootstrap configuration).

Classification tries the schemas by increasing matching precedence, ties by name; the first
match wins (``catch-all`` if none). The flow is the schema's distinguisher applied to the
request: the user name (``ByUser``), the namespace (``ByNamespace``) or one flow.

Each limited level's concurrency limit is its share of the server's:
``ceil(server_limit * shares / sum of all shares)``, as upstream's nominal limits.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from apiserver.flowcontrol.bootstrap import FLOW_SCHEMAS, PRIORITY_LEVELS
from apiserver.flowcontrol.match import matches_flow_schema
from apiserver.flowcontrol.metrics import FlowMetrics
from apiserver.flowcontrol.queueset import QueueSet, Seat
from apiserver.flowcontrol.retryafter import DroppedRequests
from apiserver.flowcontrol.schema import Distinguisher, FlowSchema, PriorityLevel
from apiserver.request.info import RequestInfo
from apiserver.request.user import UserInfo

# Upstream waits at most a quarter of the request timeout (60 s) in a queue.
DEFAULT_WAIT_LIMIT = 15.0
FLOW_SCHEMA_UID_HEADER = b"x-kubernetes-pf-flowschema-uid"
PRIORITY_LEVEL_UID_HEADER = b"x-kubernetes-pf-prioritylevel-uid"
_CLASSIFIED_LIMIT = 4096


@dataclass(frozen=True, slots=True)
class Classification:
    """Where a request goes, and the response headers that say so (upstream sends UIDs, not
    names, so that clients learn nothing of the configuration)."""

    flow_schema: FlowSchema
    queue_set: QueueSet
    headers: tuple[tuple[bytes, bytes], ...]


class PriorityAndFairness:
    def __init__(
        self,
        server_limit: int,
        metrics: FlowMetrics | None = None,
        wait_limit: float = DEFAULT_WAIT_LIMIT,
        flow_schemas: Sequence[FlowSchema] = FLOW_SCHEMAS,
        priority_levels: Sequence[PriorityLevel] = PRIORITY_LEVELS,
    ) -> None:
        if server_limit < 1:
            raise ValueError("priority and fairness needs a positive server concurrency limit")
        self.metrics = metrics or FlowMetrics()
        self.dropped = DroppedRequests()
        share_sum = sum(level.shares for level in priority_levels)
        self.queue_sets = {
            level.name: QueueSet(
                level, math.ceil(server_limit * level.shares / share_sum), self.metrics, wait_limit
            )
            for level in priority_levels
        }
        self._classified: dict[tuple[object, ...], tuple[Classification, str]] = {}
        self._schemas = sorted(flow_schemas, key=lambda s: (s.matching_precedence, s.name))
        self._headers = {
            schema.name: (
                (FLOW_SCHEMA_UID_HEADER, schema.uid.encode()),
                (PRIORITY_LEVEL_UID_HEADER, self.queue_sets[schema.priority_level].level.uid.encode()),
            )
            for schema in self._schemas
        }

    def classify(self, user: UserInfo, info: RequestInfo) -> tuple[Classification, str]:
        """The request's classification and flow distinguisher (memoized: clients repeat
        the same few kinds of request)."""
        key: tuple[object, ...] = (user.name, user.groups, info.verb, info.path)
        if info.is_resource_request:
            key = (
                user.name,
                user.groups,
                info.verb,
                info.api_group,
                info.resource,
                info.subresource,
                info.namespace,
            )
        found = self._classified.get(key)
        if found is None:
            if len(self._classified) >= _CLASSIFIED_LIMIT:
                self._classified.clear()
            found = self._classified[key] = self._classify(user, info)
        return found

    def _classify(self, user: UserInfo, info: RequestInfo) -> tuple[Classification, str]:
        schema = next((s for s in self._schemas if matches_flow_schema(s, user, info)), None)
        if schema is None:
            schema = next(s for s in self._schemas if s.name == "catch-all")
        queue_set = self.queue_sets[schema.priority_level]
        return Classification(schema, queue_set, self._headers[schema.name]), _flow(schema, user, info)

    async def start(self, classification: Classification, flow: str) -> Seat | None:
        """A seat to execute in, or None (rejected: the drop is recorded for Retry-After)."""
        seat = await classification.queue_set.start(classification.flow_schema.name, flow)
        if seat is None:
            self.dropped.record(classification.queue_set.level.name)
        return seat

    def retry_after(self, classification: Classification) -> int:
        return self.dropped.retry_after(classification.queue_set.level.name)


def _flow(schema: FlowSchema, user: UserInfo, info: RequestInfo) -> str:
    if schema.distinguisher is Distinguisher.BY_USER:
        return user.name
    if schema.distinguisher is Distinguisher.BY_NAMESPACE:
        return info.namespace
    return ""
