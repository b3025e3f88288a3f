"""The flow-control metrics, under upstream's names, labels and help, and the ``/metrics``
endpoint that renders them in the Prometheus text format.

The metrics of an apiserver live with its flow-control filter, which puts them in the ASGI
scope (``scope["flowcontrol_metrics"]``) for the endpoint; without the gate, ``/metrics``
is empty.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping
from typing import Any

from starlette.requests import Request
from starlette.responses import Response

SCOPE_KEY = "flowcontrol_metrics"
CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"

EXECUTING = "apiserver_flowcontrol_current_executing_requests"
INQUEUE = "apiserver_flowcontrol_current_inqueue_requests"
REJECTED = "apiserver_flowcontrol_rejected_requests_total"
_HELP = {
    EXECUTING: (
        "gauge",
        "[BETA] Number of requests in initial (for a WATCH) or any (for a non-WATCH) execution stage "
        "in the API Priority and Fairness subsystem",
    ),
    INQUEUE: (
        "gauge",
        "[BETA] Number of requests currently pending in queues of the API Priority and Fairness subsystem",
    ),
    REJECTED: (
        "counter",
        "[BETA] Number of requests rejected by API Priority and Fairness subsystem",
    ),
}


class FlowMetrics:
    """Series keyed by (priority level, flow schema[, reason]); a series, once seen, stays
    (at 0 when idle), as upstream's gauge vectors do."""

    def __init__(self) -> None:
        self.executing: defaultdict[tuple[str, str], int] = defaultdict(int)
        self.inqueue: defaultdict[tuple[str, str], int] = defaultdict(int)
        self.rejected: defaultdict[tuple[str, str, str], int] = defaultdict(int)

    def render(self) -> str:
        families: tuple[tuple[str, Mapping[Any, int], tuple[str, ...]], ...] = (
            (EXECUTING, self.executing, ("priority_level", "flow_schema")),
            (INQUEUE, self.inqueue, ("priority_level", "flow_schema")),
            (REJECTED, self.rejected, ("priority_level", "flow_schema", "reason")),
        )
        lines: list[str] = []
        for name, values, labels in families:
            kind, help_text = _HELP[name]
            lines += [f"# HELP {name} {help_text}", f"# TYPE {name} {kind}"]
            for key, value in sorted(values.items()):
                pairs = sorted(zip(labels, key, strict=True))
                lines.append(name + "{" + ",".join(f'{k}="{v}"' for k, v in pairs) + "}" + f" {value}")
        return "\n".join(lines) + "\n"


async def metrics_endpoint(request: Request) -> Response:
    """``GET /metrics``."""
    metrics = request.scope.get(SCOPE_KEY)
    body = metrics.render() if isinstance(metrics, FlowMetrics) else ""
    return Response(body, media_type=None, headers={"content-type": CONTENT_TYPE})
