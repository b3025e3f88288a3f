"""The request chain, built inside-out in one visible function (upstream's
``DefaultBuildHandlerChain``): a request meets request info, authentication, audit, flow
control, authorization, then the handler."""

from __future__ import annotations

from starlette.types import ASGIApp

from apiserver.filters.authentication import Authentication
from apiserver.filters.cachecontrol import CacheControl
from apiserver.filters.passthrough import Audit, Authorization, FlowControl
from apiserver.filters.requestinfo import RequestInfoFilter
from apiserver.registry.catalog import Catalog
from apiserver.security import SecurityConfig


def build_handler_chain(
    handler: ASGIApp, security: SecurityConfig | None = None, catalog: Catalog | None = None
) -> ASGIApp:
    """``handler`` behind every filter, outermost last; ``security`` configures the gates,
    which read cluster state (roles, service accounts, secrets) from ``catalog``'s caches."""
    security = security or SecurityConfig()
    handler = Authorization(handler)
    handler = FlowControl(handler)
    handler = Audit(handler)
    handler = Authentication(handler)
    handler = RequestInfoFilter(handler)
    handler = CacheControl(handler)
    return handler
