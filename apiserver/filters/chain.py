"""The request chain, built inside-out in one visible function (upstream's
``DefaultBuildHandlerChain``): a request meets request info, its timeout, authentication,
audit, flow control, authorization, then the handler."""

from __future__ import annotations

from starlette.types import ASGIApp

from apiserver.endpoints.authentication import AuthenticationAPI
from apiserver.endpoints.authorization import AuthorizationAPI
from apiserver.filters.audit import Audit, AuditInit
from apiserver.filters.authentication import Authentication
from apiserver.filters.authorization import Authorization, new_authorizer
from apiserver.filters.cachecontrol import CacheControl
from apiserver.filters.flowcontrol import flow_control
from apiserver.filters.impersonation import ImpersonationFilter
from apiserver.filters.requestinfo import RequestInfoFilter
from apiserver.filters.timeout import RequestTimeout
from apiserver.registry.catalog import Catalog
from apiserver.security import SecurityConfig
from apiserver.serving import ServingOptions


def build_handler_chain(
    handler: ASGIApp,
    security: SecurityConfig | None = None,
    catalog: Catalog | None = None,
    serving: ServingOptions | None = None,
) -> ASGIApp:
    """``handler`` behind every filter, outermost last; ``security`` configures the gates,
    which read cluster state (roles, service accounts, secrets) from ``catalog``'s caches;
    ``serving`` the request timeout."""
    security = security or SecurityConfig()
    serving = serving or ServingOptions()
    authz = new_authorizer(security, catalog)
    handler = AuthorizationAPI(handler, authz)
    handler = AuthenticationAPI(handler, security, catalog)
    handler = Authorization(handler, authz)
    handler = flow_control(handler, security)
    handler = ImpersonationFilter(handler, authz)
    handler = Audit(handler)
    handler = Authentication(handler, security, catalog)
    handler = RequestTimeout(handler, serving.request_timeout)
    handler = RequestInfoFilter(handler)
    handler = CacheControl(handler)
    handler = AuditInit(handler, security.audit)
    return handler
