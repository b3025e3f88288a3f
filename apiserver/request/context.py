"""The request context: what the filters established about the request in progress.

Upstream threads a ``context.Context`` through every call; here each request runs in its own
task, so context variables carry the same facts to any depth (the registry's escalation
check, admission plugins) without passing them through every signature. They are the one
carrier: filters and endpoints read them too, never the ASGI scope (which the registry and
admission never see, so the scope could not be the one carrier without threading it through
every store call). The request info filter sets both for each request and resets them when
it ends:

- ``current_request_info``: ``RequestInfo`` (the request info filter);
- ``current_user``: the authenticated (or impersonated) ``UserInfo`` (anonymous until
  authentication; then authentication, impersonation);
- ``audit_annotations``: a dict every stage may add ``key -> value`` to (the audit filter
  creates it; authorization records its decision, admission its patches);
- ``audit_records_request``: whether the request is audited at Request level or above.
"""

from __future__ import annotations

from contextvars import ContextVar

from apiserver.request.info import RequestInfo
from apiserver.request.user import ANONYMOUS_USER, UserInfo

current_user: ContextVar[UserInfo] = ContextVar("user", default=ANONYMOUS_USER)
current_request_info: ContextVar[RequestInfo | None] = ContextVar("request_info", default=None)
audit_annotations: ContextVar[dict[str, str] | None] = ContextVar("audit_annotations", default=None)
# Whether this request's audit event includes the request body (level Request or above): what
# costs a copy per step, like the admission patches, is recorded only then, as upstream logs
# webhook patches (``patch.webhook.admission.k8s.io/...``) only at Request level and above.
audit_records_request: ContextVar[bool] = ContextVar("audit_records_request", default=False)


def annotate(key: str, value: str) -> None:
    """Add an audit annotation to the request in progress (no-op outside a request)."""
    annotations = audit_annotations.get()
    if annotations is not None:
        annotations[key] = value
