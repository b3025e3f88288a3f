"""API errors: one ``ApiError`` per upstream reason, convertible to and from a ``v1 Status``.

Messages follow ``k8s.io/apimachinery/pkg/api/errors`` exactly, because kubectl prints them
(``Error from server (NotFound): configmaps "x" not found``) and users search for them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True, slots=True)
class Cause:
    """One entry of ``details.causes`` (``reason`` like ``FieldValueInvalid``)."""

    reason: str
    message: str
    field: str = ""

    def to_dict(self) -> dict[str, str]:
        out = {"reason": self.reason, "message": self.message}
        if self.field:
            out["field"] = self.field
        return out


@dataclass
class ApiError(Exception):
    """A failed API request: ``code``/``reason``/``message`` and optional details."""

    code: int
    reason: str
    message: str
    name: str = ""
    group: str = ""
    kind: str = ""
    causes: list[Cause] = field(default_factory=list)
    retry_after: int = 0

    def __str__(self) -> str:
        return self.message

    def status(self) -> dict[str, Any]:
        """The ``v1 Status`` body."""
        details: dict[str, Any] = {}
        if self.name:
            details["name"] = self.name
        if self.group:
            details["group"] = self.group
        if self.kind:
            details["kind"] = self.kind
        if self.causes:
            details["causes"] = [c.to_dict() for c in self.causes]
        if self.retry_after:
            details["retryAfterSeconds"] = self.retry_after
        body: dict[str, Any] = {
            "kind": "Status",
            "apiVersion": "v1",
            "metadata": {},
            "status": "Failure",
            "message": self.message,
            "reason": self.reason,
            "details": details,
            "code": self.code,
        }
        return body


def qualified(resource: str, group: str) -> str:
    """``deployments.apps`` for grouped resources, ``configmaps`` for the core group."""
    return f"{resource}.{group}" if group else resource


def not_found(resource: str, name: str, group: str = "") -> ApiError:
    return ApiError(
        404, "NotFound", f'{qualified(resource, group)} "{name}" not found', name, group, resource
    )


def already_exists(resource: str, name: str, group: str = "") -> ApiError:
    message = f'{qualified(resource, group)} "{name}" already exists'
    return ApiError(409, "AlreadyExists", message, name, group, resource)


def conflict(resource: str, name: str, group: str, why: str) -> ApiError:
    message = f'Operation cannot be fulfilled on {qualified(resource, group)} "{name}": {why}'
    return ApiError(409, "Conflict", message, name, group, resource)


MODIFIED = "the object has been modified; please apply your changes to the latest version and try again"


def invalid(kind: str, name: str, group: str, causes: list[Cause]) -> ApiError:
    """422 Invalid like upstream's ``NewInvalid``: ``ConfigMap "x" is invalid: <field>: <message>``,
    ``Deployment.apps "x" is invalid: [<a>, <b>]`` (the kind qualified by its group, repeated
    messages listed once)."""
    listed = list(dict.fromkeys(f"{c.field}: {c.message}" if c.field else c.message for c in causes))
    summary = listed[0] if len(listed) == 1 else "[" + ", ".join(listed) + "]"
    message = f'{qualified(kind, group)} "{name}" is invalid: {summary}'
    return ApiError(422, "Invalid", message, name, group, kind, causes)


def bad_request(message: str) -> ApiError:
    return ApiError(400, "BadRequest", message)


def forbidden(resource: str, name: str, group: str, why: str) -> ApiError:
    target = f'{qualified(resource, group)} "{name}"' if name else qualified(resource, group)
    return ApiError(403, "Forbidden", f"{target} is forbidden: {why}", name, group, resource)


def method_not_supported(resource: str, group: str, action: str) -> ApiError:
    message = f"{action} is not supported on resources of kind {qualified(resource, group)!r}"
    return ApiError(405, "MethodNotAllowed", message, "", group, resource)


def unsupported_media_type(content_type: str, accepted: list[str]) -> ApiError:
    message = (
        f"the body of the request was in an unknown format - accepted media types include: "
        f"{', '.join(accepted)}"
    )
    return ApiError(415, "UnsupportedMediaType", message, kind=content_type)


def not_acceptable(accepted: list[str]) -> ApiError:
    message = f"only the following media types are accepted: {', '.join(accepted)}"
    return ApiError(406, "NotAcceptable", message)


def expired(message: str) -> ApiError:
    return ApiError(410, "Expired", message)


def timeout(message: str, retry_after: int = 1) -> ApiError:
    return ApiError(504, "Timeout", message, retry_after=retry_after)


def too_large(message: str) -> ApiError:
    return ApiError(413, "RequestEntityTooLarge", message)


def internal(message: str) -> ApiError:
    return ApiError(500, "InternalError", f"Internal error occurred: {message}")


def unavailable(message: str) -> ApiError:
    return ApiError(503, "ServiceUnavailable", message)
