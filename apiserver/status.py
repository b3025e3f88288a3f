"""Every error the apiserver sends is a ``v1 Status`` object, never a FastAPI ``{"detail":..}``.

``install_status_errors`` replaces the framework's default error responses (unknown path,
wrong method, request validation, unhandled exception) with upstream's Status bodies.
"""

from __future__ import annotations

from collections.abc import Mapping

from fastapi import FastAPI
from fastapi.exceptions import RequestValidationError
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response

from minikube_py.jsonutil import dumps_document

# Upstream's messages for a code when nothing more specific is known
# (k8s.io/apimachinery/pkg/api/errors and the apiserver's not-found / method handlers).
_REASONS: dict[int, tuple[str, str]] = {
    400: ("BadRequest", "the server rejected our request for an unknown reason"),
    404: ("NotFound", "the server could not find the requested resource"),
    405: ("MethodNotAllowed", "the server does not allow this method on the requested resource"),
    406: ("NotAcceptable", "the server was unable to respond with a content type that the client supports"),
    415: ("UnsupportedMediaType", "the server does not support the media type sent by the client"),
    500: ("InternalError", "an error on the server has prevented the request from succeeding"),
}


def status_response(
    code: int, reason: str, message: str, headers: Mapping[str, str] | None = None
) -> Response:
    """A ``Status`` failure response."""
    body = {
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Failure",
        "message": message,
        "reason": reason,
        "details": {},
        "code": code,
    }
    # a document ending with a newline, as upstream's serializer writes every Status
    return Response(dumps_document(body), status_code=code, headers=headers, media_type="application/json")


def install_status_errors(app: FastAPI) -> None:
    app.add_exception_handler(HTTPException, _http_error)
    app.add_exception_handler(RequestValidationError, _validation_error)
    app.add_exception_handler(Exception, _internal_error)


async def _http_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, HTTPException)
    reason, message = _REASONS.get(exc.status_code, ("Unknown", str(exc.detail)))
    return status_response(exc.status_code, reason, message, exc.headers)


async def _validation_error(request: Request, exc: Exception) -> Response:
    return status_response(400, "BadRequest", str(exc))


async def _internal_error(request: Request, exc: Exception) -> Response:
    # Starlette re-raises after this handler answers, so the traceback still reaches the log.
    return status_response(500, "InternalError", f"Internal error occurred: {exc}")
