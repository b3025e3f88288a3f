"""The controller's own answers, nginx-style pages: 308 (HTTP to HTTPS), 404 from the default backend (no rule
matched), 502 (every endpoint refused), 503 (no Service or no ready endpoint), 504 (the backend
did not answer in time), 400 (a request that is not HTTP/1.1)."""

from __future__ import annotations

import h11

REASONS = {
    308: "Permanent Redirect",
    400: "Bad Request",
    404: "Not Found",
    502: "Bad Gateway",
    503: "Service Temporarily Unavailable",
    504: "Gateway Time-out",
}


def page(status: int) -> bytes:
    title = f"{status} {REASONS[status]}"
    return (
        f"<html>\r\n<head><title>{title}</title></head>\r\n<body>\r\n<center><h1>{title}</h1></center>\r\n"
        "<hr><center>minikube-py ingress</center>\r\n</body>\r\n</html>\r\n"
    ).encode()


def error_response(status: int, *, close: bool = False, location: str = "") -> tuple[h11.Response, bytes]:
    body = page(status)
    headers = [("Content-Type", "text/html"), ("Content-Length", str(len(body)))]
    if location:
        headers.append(("Location", location))
    if close:
        headers.append(("Connection", "close"))
    return h11.Response(status_code=status, headers=headers, reason=REASONS[status]), body
