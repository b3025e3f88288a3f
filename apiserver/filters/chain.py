"""The request chain, built inside-out in one visible function (upstream's
``DefaultBuildHandlerChain``): a request meets request info, its timeout, authentication,
audit, flow control, authorization, then the handler."""

from __future__ import annotations

from starlette.types import ASGIApp

from apiserver.authn.config import AuthenticationSetup, build_authentication
from apiserver.authz.factory import Authz
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
    *,
    authz: Authz | None = None,
    authentication: AuthenticationSetup | None = None,
) -> ASGIApp:
    """``handler`` behind every filter, outermost last; ``security`` configures the gates,
    which read cluster state (roles, service accounts, secrets) through ``lookup`` (the
    catalog); ``serving`` the request timeout. ``authz`` and ``authentication``, when given,
    are the server's one authorizer and authenticator (``build_app`` shares them with the
    review storage: one token cache); else they are built here from ``security``."""
    security = security or SecurityConfig()
    serving = serving or ServingOptions()
    authz = authz or new_authorizer(security, lookup)
    authentication = authentication or build_authentication(security, lookup)
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
