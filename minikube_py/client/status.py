"""Failed responses as ``ApiError``: a ``Status`` body as the server wrote it, anything else
as upstream's ``NewGenericServerResponse`` describes the HTTP code. A 410 is ``Gone``."""

from __future__ import annotations

from typing import Any

from minikube_py.api.errors import ApiError, Cause
from minikube_py.client.interfaces import Gone
from minikube_py.jsonutil import loads

# code -> (reason, message) from k8s.io/apimachinery/pkg/api/errors.NewGenericServerResponse
GENERIC: dict[int, tuple[str, str]] = {
    400: ("BadRequest", "the server rejected our request for an unknown reason"),
    401: ("Unauthorized", "the server has asked for the client to provide credentials"),
    403: ("Forbidden", "the server does not allow access to the requested resource"),
    404: ("NotFound", "the server could not find the requested resource"),
    405: ("MethodNotAllowed", "the server does not allow this method on the requested resource"),
    406: ("NotAcceptable", "the server was unable to respond with a content type that the client supports"),
    409: ("Conflict", "the server reported a conflict"),
    413: ("RequestEntityTooLarge", "the server has rejected the request because it is too large"),
    415: (
        "UnsupportedMediaType",
        "the server was unable to respond with a content type that the client supports",
    ),
    422: ("Invalid", "the server rejected our request due to an error in our request"),
    429: ("TooManyRequests", "the server has received too many requests and has asked us to try again later"),
    503: ("ServiceUnavailable", "the server is currently unable to handle the request"),
    504: (
        "Timeout",
        "the server was unable to return a response in the time allotted, "
        "but may still be processing the request",
    ),
}


def error_from_response(code: int, body: bytes, retry_after: float | None = None, what: str = "") -> ApiError:
    """The error a ``code`` answer with ``body`` means. ``what`` (``get configmaps x``) is added
    to generic messages, as upstream does; ``retry_after`` is the header's value."""
    status = _status(body)
    if status is not None:
        return error_from_status(status, code, retry_after)
    if code == 410:
        return Gone(_with(what, "the server has asked for the client to retry from a newer resource version"))
    reason, message = GENERIC.get(code, ("", ""))
    if not reason and code >= 500:
        text = body.decode("utf-8", "replace").strip()[:256]
        reason = "InternalError"
        message = f"an error on the server ({text or 'unknown'!r}) has prevented the request from succeeding"
    elif not reason:
        message = f"the server responded with the status code {code} but did not return more information"
    return ApiError(code, reason, _with(what, message), retry_after=int(retry_after or 0))


def error_from_status(status: dict[str, Any], code: int = 0, retry_after: float | None = None) -> ApiError:
    """The ``ApiError`` a ``v1 Status`` carries (``code`` fills in a Status without one)."""
    code = int(status.get("code") or code)
    message = str(status.get("message") or "")
    if code == 410:
        return Gone(message or "too old resource version")
    details = status.get("details") or {}
    if not isinstance(details, dict):
        details = {}
    causes = [
        Cause(str(c.get("reason", "")), str(c.get("message", "")), str(c.get("field", "")))
        for c in details.get("causes") or []
        if isinstance(c, dict)
    ]
    after = int(details.get("retryAfterSeconds") or 0) or int(retry_after or 0)
    return ApiError(
        code,
        str(status.get("reason") or ""),
        message,
        name=str(details.get("name") or ""),
        group=str(details.get("group") or ""),
        kind=str(details.get("kind") or ""),
        causes=causes,
        retry_after=after,
    )


def is_status(obj: Any) -> bool:
    return isinstance(obj, dict) and obj.get("kind") == "Status" and obj.get("apiVersion", "v1") == "v1"


def _status(body: bytes) -> dict[str, Any] | None:
    if not body.lstrip().startswith(b"{"):
        return None
    try:
        decoded = loads(body)
    except (ValueError, RecursionError):
        return None
    return decoded if is_status(decoded) else None


def _with(what: str, message: str) -> str:
    return f"{message} ({what})" if what else message
