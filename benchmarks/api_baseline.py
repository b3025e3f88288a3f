"""The baselines for ``benchmarks/api.py``: a raw Starlette app, served like the apiserver.

    python benchmarks/api_baseline.py --port P --pki DIR/pki --data FILE

Same process style as the apiserver: uvicorn's httptools protocol on uvloop (the apiserver's),
HTTPS with the cluster's serving certificate and optional client certificates verified against the cluster CA,
no access log. ``FILE`` is JSON ``{"pod": {...}, "items": [...]}`` taken from the cluster.

Routes (each the plainest way Starlette does the job):

* ``GET /pod``: the fixed pod JSON (``JSONResponse``, encoded per request).
* ``POST /pods``: the body parsed into a pydantic ``Pod`` and returned, 201; also broadcast as an
  ``ADDED`` line (encoded once) to every open ``GET /watch`` stream.
* ``GET /list``, ``GET /list-node-a``: ``b"[" + b",".join(cached) + b"]"`` over pre-serialized
  pods (all items, or those with ``spec.nodeName: node-a``).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import ssl
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import uvicorn
from pydantic import BaseModel, ConfigDict, Field
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route


class _Loose(BaseModel):
    model_config = ConfigDict(extra="allow")


class ObjectMeta(_Loose):
    name: str
    namespace: str = ""
    labels: dict[str, str] = Field(default_factory=dict)
    annotations: dict[str, str] = Field(default_factory=dict)


class Container(_Loose):
    name: str
    image: str
    env: list[dict[str, Any]] = Field(default_factory=list)
    ports: list[dict[str, Any]] = Field(default_factory=list)
    resources: dict[str, Any] = Field(default_factory=dict)


class PodSpec(_Loose):
    containers: list[Container]
    nodeName: str = ""


class Pod(_Loose):
    apiVersion: str
    kind: str
    metadata: ObjectMeta
    spec: PodSpec


def cached_items(items: list[dict[str, Any]]) -> list[bytes]:
    return [json.dumps(item, separators=(",", ":")).encode() for item in items]


def joined(cached: list[bytes]) -> bytes:
    return b"[" + b",".join(cached) + b"]"


def build_app(pod: dict[str, Any], items: list[dict[str, Any]]) -> Starlette:
    everything = cached_items(items)
    node_a = cached_items([i for i in items if i.get("spec", {}).get("nodeName") == "node-a"])
    watchers: set[asyncio.Queue[bytes]] = set()

    async def get_pod(request: Request) -> Response:
        return JSONResponse(pod)

    async def create_pod(request: Request) -> Response:
        created = Pod.model_validate_json(await request.body())
        body = created.model_dump_json(exclude_unset=True)
        if watchers:
            line = b'{"type":"ADDED","object":' + body.encode() + b"}\n"
            for queue in watchers:
                queue.put_nowait(line)
        return Response(body, status_code=201, media_type="application/json")

    async def list_all(request: Request) -> Response:
        return Response(joined(everything), media_type="application/json")

    async def list_node_a(request: Request) -> Response:
        return Response(joined(node_a), media_type="application/json")

    async def watch(request: Request) -> Response:
        queue: asyncio.Queue[bytes] = asyncio.Queue()
        watchers.add(queue)

        async def lines() -> AsyncIterator[bytes]:
            try:
                while True:
                    yield await queue.get()
            finally:
                watchers.discard(queue)

        return StreamingResponse(lines(), media_type="application/json")

    return Starlette(
        routes=[
            Route("/pod", get_pod),
            Route("/pods", create_pod, methods=["POST"]),
            Route("/list", list_all),
            Route("/list-node-a", list_node_a),
            Route("/watch", watch),
        ]
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--pki", type=Path, required=True, help="the cluster's pki directory")
    parser.add_argument("--data", type=Path, required=True)
    args = parser.parse_args()
    data = json.loads(args.data.read_text())
    uvicorn.run(
        build_app(data["pod"], data["items"]),
        host="127.0.0.1",
        port=args.port,
        http="httptools",
        loop="uvloop",
        ssl_certfile=args.pki / "apiserver.crt",
        ssl_keyfile=args.pki / "apiserver.key",
        ssl_ca_certs=str(args.pki / "ca.crt"),
        ssl_cert_reqs=ssl.CERT_OPTIONAL,
        lifespan="off",
        log_level="warning",
        access_log=False,
        server_header=False,
        timeout_graceful_shutdown=1,
    )


if __name__ == "__main__":
    main()
