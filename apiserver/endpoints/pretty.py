"""Pretty-printed JSON, as upstream's content negotiation picks it (``isPrettyPrint``): the
``pretty`` parameter when given non-empty (``strconv.ParseBool``; anything it refuses is
false), else a user agent of a browser or a command-line HTTP tool (``curl``, ``Wget``,
``Mozilla/5.0``). The document is then Go's ``json.MarshalIndent(obj, "", "  ")``: two-space
indent, ``"key": value``, HTML characters escaped, no trailing newline. Watch streams are never
pretty (upstream's stream serializer is the compact one)."""

from __future__ import annotations

import json
from urllib.parse import parse_qsl

from starlette.responses import Response, StreamingResponse

from apiserver.request.queryparams import first_values
from minikube_py.jsonutil import go_escape

PRETTY_AGENTS = ("curl", "Wget", "Mozilla/5.0")
_PARSE_BOOL_TRUE = ("1", "t", "T", "TRUE", "true", "True")


def wants_pretty(query: str, user_agent: str) -> bool:
    """Whether a request with this raw query string and ``User-Agent`` gets pretty JSON."""
    if "pretty" in query:
        value = first_values(parse_qsl(query, keep_blank_values=True)).get("pretty", "")
        if value:
            return value in _PARSE_BOOL_TRUE
    return user_agent.startswith(PRETTY_AGENTS)


def prettify(response: Response) -> Response:
    """``response`` with its JSON body indented (other bodies and streams as they are)."""
    if isinstance(response, StreamingResponse):
        return response
    if not response.headers.get("content-type", "").startswith("application/json"):
        return response
    try:
        obj = json.loads(bytes(response.body))
    except ValueError:
        return response
    body = go_escape(json.dumps(obj, indent=2, ensure_ascii=False).encode())
    response.body = body
    response.headers["content-length"] = str(len(body))
    return response
