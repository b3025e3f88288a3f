"""``GET /stats/summary`` of the node agent's API (upstream kubelet ``/stats/summary``).

The answer is ``summary_json`` of the node's ``SummaryProvider``. One agent may serve many
simulated nodes behind one address, so the node is named by the ``node`` query parameter (the
apiserver always sends it); without it an agent serving a single node answers for that node.
An unknown node is a 404. Authorization is the server's (``NodeAuthorization``: subresource
``stats``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.routing import Route

from nodeagent.stats.summary import SummaryProvider, summary_json

SummaryLookup = Callable[[str], SummaryProvider | None]  # node name ("": the only one) -> provider


def summary_lookup(providers: Mapping[str, SummaryProvider]) -> SummaryLookup:
    """Look nodes up in ``providers``; ``""`` finds the node when there is only one."""

    def lookup(node: str) -> SummaryProvider | None:
        if not node and len(providers) == 1:
            return next(iter(providers.values()))
        return providers.get(node)

    return lookup


def stats_summary_route(lookup: SummaryLookup) -> Route:
    async def stats_summary(request: Request) -> Response:
        node = request.query_params.get("node", "")
        provider = lookup(node)
        if provider is None:
            return PlainTextResponse(f'node "{node}" is not served here', status_code=404)
        return JSONResponse(summary_json(await provider.summary()))

    return Route("/stats/summary", stats_summary, methods=["GET"])
