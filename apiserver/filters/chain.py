"""The request chain, built inside-out in one visible function (upstream's
``DefaultBuildHandlerChain``): a request meets request info, its timeout, authentication,
audit, flow control, authorization, then the handler."""

from __future__ import annotations

from starlette.types import ASGIApp

from apiserver.authn.config import build_authentication
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
from apiserver.lookup import Lookup
from apiserver.security import SecurityConfig
from apiserver.serving import ServingOptions


def build_handler_chain(
    handler: ASGIApp,
    security: SecurityConfig | None = None,
    lookup: Lookup | None = None,
    serving: ServingOptions | None = None,
) -> ASGIApp:
    """``handler`` behind every filter, outermost last; ``security`` configures the gates,
    which read cluster state (roles, service accounts, secrets) through ``lookup`` (the
    catalog); ``serving`` the request timeout. Authentication and authorization are built once
    here: the filters and the review endpoints share them (one token cache)."""
    security = security or SecurityConfig()
    serving = serving or ServingOptions()
    authz = new_authorizer(security, lookup)
    authentication = build_authentication(security, lookup)
    handler = AuthorizationAPI(handler, authz)
    handler = AuthenticationAPI(handler, setup=authentication)
    handler = Authorization(handler, authz)
    handler = flow_control(handler, security)
    handler = ImpersonationFilter(handler, authz)
    handler = Audit(handler)
    handler = Authentication(handler, setup=authentication)
    handler = RequestTimeout(handler, serving.request_timeout)
    handler = RequestInfoFilter(handler)
    handler = CacheControl(handler)
    handler = AuditInit(handler, security.audit)
    return handler
