"""Webhook failures as upstream reports them.

``CallError`` is a failure to get a usable answer (unreachable, timeout, TLS, a malformed
review): the webhook's ``failurePolicy`` decides (``Ignore`` admits, ``Fail`` answers 500
``Internal error occurred: failed calling webhook "x": ...``). A denial is the webhook's own
answer and always refuses, with the webhook's status code (at least 400) and reason."""

from __future__ import annotations

from typing import Any

from minikube_py.api import errors
from minikube_py.api.field_errors import go_quote


class CallError(Exception):
    """Upstream's ``ErrCallingWebhook``."""

    def __init__(self, webhook: str, reason: str) -> None:
        super().__init__(f"failed calling webhook {go_quote(webhook)}: {reason}")
        self.webhook = webhook
        self.reason = reason


def denied(webhook: str, result: dict[str, Any] | None) -> errors.ApiError:
    """Upstream's ``ToStatusErr``: the webhook's ``Status`` with the denial in its message."""
    result = result if isinstance(result, dict) else {}
    code = result.get("code")
    details = result.get("details")
    details = details if isinstance(details, dict) else {}
    by = f"admission webhook {go_quote(webhook)} denied the request"
    text = result.get("message") or result.get("reason") or ""
    message = f"{by}: {text}" if text else f"{by} without explanation"
    causes = [
        errors.Cause(str(c.get("reason", "")), str(c.get("message", "")), str(c.get("field", "")))
        for c in details.get("causes") or []
        if isinstance(c, dict)
    ]
    return errors.ApiError(
        max(code if isinstance(code, int) else 0, 400),
        str(result.get("reason") or ""),
        message,
        str(details.get("name") or ""),
        str(details.get("group") or ""),
        str(details.get("kind") or ""),
        causes,
        int(details.get("retryAfterSeconds") or 0),
    )


def dry_run_unsupported(webhook: str) -> errors.ApiError:
    return errors.bad_request(f"admission webhook {go_quote(webhook)} does not support dry run")


def failed_closed(err: CallError) -> errors.ApiError:
    return errors.internal(str(err))
