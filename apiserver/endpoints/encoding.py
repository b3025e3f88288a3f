"""JSON responses encoded with ``minikube_py.jsonutil`` (orjson with a ``json`` fallback)."""

from __future__ import annotations

from typing import Any

from starlette.responses import Response

from minikube_py.jsonutil import dumps


class JSONResponse(Response):
    media_type = "application/json"

    def render(self, content: Any) -> bytes:
        return dumps(content)
