"""The ``metrics.k8s.io/v1beta1`` API (``kubectl top``), served by the apiserver itself.

Upstream serves it with metrics-server behind the aggregation layer; here it is a built-in,
read-only group with the same objects: ``NodeMetrics`` (``/apis/metrics.k8s.io/v1beta1/nodes``)
and ``PodMetrics`` (``.../namespaces/{ns}/pods`` and ``.../pods`` for all namespaces), verbs
get and list, authorized by RBAC like any resource (``system:aggregated-metrics-reader``).

Nothing is stored. Each request lists the Nodes (or the Pods, with the request's label and
field selectors) from the apiserver's own storage, then asks every Ready node agent involved for
its Summary (``GET /stats/summary?node=<name>``, with the apiserver's kubelet-client
certificate) concurrently with a short timeout. A node that does not answer is left out, and so
are its pods, as metrics-server leaves out what it could not scrape; a pod without stats (not
running yet) is left out too. Quantities are formatted as metrics-server does: CPU in
nanocores (``1234567n``), memory in ``Ki``.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterable
from datetime import UTC, datetime

import httpx
from starlette.requests import Request
from starlette.responses import Response

from apiserver.endpoints.encoding import JSONResponse
from apiserver.endpoints.listing import list_options
from apiserver.nodeproxy import DEFAULT_PORT, NodeConnection, NodeLocation, preferred_address
from apiserver.registry.catalog import Catalog
from apiserver.registry.store import GenericStore
from apiserver.request.info import RequestInfo
from minikube_py.api import errors
from minikube_py.api.unstructured import Object

GROUP, VERSION = "metrics.k8s.io", "v1beta1"
API_VERSION = f"{GROUP}/{VERSION}"
SCRAPE_TIMEOUT = 3.0  # seconds per node agent
MAX_CONCURRENT_SCRAPES = 32
WINDOW = "10s"  # the eviction manager samples every 10 s: CPU rates span up to that
log = logging.getLogger("apiserver")


class MetricsAPI:
    """Answers every ``metrics.k8s.io`` resource request (see the module docstring)."""

    def __init__(self, catalog: Catalog, nodes: NodeConnection) -> None:
        self.catalog = catalog
        self.connection = nodes

    async def serve(self, request: Request, info: RequestInfo) -> Response:
        if info.api_version != VERSION or info.resource not in ("nodes", "pods") or info.subresource:
            raise errors.ApiError(404, "NotFound", "the server could not find the requested resource")
        if info.verb not in ("get", "list"):
            raise errors.method_not_supported(info.resource, GROUP, info.verb)
        query = {k: v for k, v in request.query_params.items() if k in ("labelSelector", "fieldSelector")}
        if info.name:
            query["fieldSelector"] = ",".join(
                filter(None, [query.get("fieldSelector"), f"metadata.name={info.name}"])
            )
        if info.resource == "nodes":
            items = await self.node_metrics(query)
        else:
            items = await self.pod_metrics(info.namespace, query)
        if info.name:
            if not items:
                raise errors.not_found(info.resource, info.name, GROUP)
            return JSONResponse(items[0])
        kind = "NodeMetricsList" if info.resource == "nodes" else "PodMetricsList"
        return JSONResponse({"kind": kind, "apiVersion": API_VERSION, "metadata": {}, "items": items})

    async def node_metrics(self, query: dict[str, str]) -> list[Object]:
        nodes = await self._list(self._store("nodes"), "", query)
        summaries = await self.summaries(nodes)
        items = []
        for node in nodes:
            summary = summaries.get(node["metadata"]["name"])
            usage = (summary or {}).get("node") or {}
            if usage.get("cpu") and usage.get("memory"):
                items.append(
                    _metrics("NodeMetrics", node, usage["cpu"].get("time"), {"usage": _usage(usage)})
                )
        return items

    async def pod_metrics(self, namespace: str, query: dict[str, str]) -> list[Object]:
        pods = [p for p in await self._list(self._store("pods"), namespace, query) if _running(p)]
        wanted = {(p.get("spec") or {}).get("nodeName") for p in pods}
        nodes = [n for n in await self._list(self._store("nodes"), "", {}) if n["metadata"]["name"] in wanted]
        stats: dict[str, Object] = {}
        for summary in (await self.summaries(nodes)).values():
            for pod in summary.get("pods") or []:
                stats[(pod.get("podRef") or {}).get("uid", "")] = pod
        items = []
        for pod in pods:
            found = stats.get(pod["metadata"].get("uid", ""))
            if not found or not found.get("containers"):
                continue
            containers = [
                {"name": c["name"], "usage": _usage(c)} for c in found["containers"] if _has_usage(c)
            ]
            at = (found.get("cpu") or {}).get("time")
            items.append(_metrics("PodMetrics", pod, at, {"containers": containers}))
        return items

    async def summaries(self, nodes: Iterable[Object]) -> dict[str, Object]:
        """The Summary of every Ready node of ``nodes`` that answered in time, by node name."""
        ready = [n for n in nodes if _ready(n)]
        if not ready:
            return {}
        limit = asyncio.Semaphore(MAX_CONCURRENT_SCRAPES)
        tls = self.connection.ssl_context()
        async with httpx.AsyncClient(verify=tls, timeout=SCRAPE_TIMEOUT, trust_env=False) as client:

            async def scrape(node: Object) -> tuple[str, Object | None]:
                name = node["metadata"]["name"]
                async with limit:
                    return name, await self._scrape(client, node)

            answers = await asyncio.gather(*(scrape(n) for n in ready))
        return {name: summary for name, summary in answers if summary is not None}

    async def _scrape(self, client: httpx.AsyncClient, node: Object) -> Object | None:
        name = node["metadata"]["name"]
        try:
            url = self.location(node).url("/stats/summary", [("node", name)])
            response = await client.get(url)
            response.raise_for_status()
            body = response.json()
        except (errors.ApiError, httpx.HTTPError, ValueError) as err:
            log.info("metrics: leaving node %s out: %s", name, err)
            return None
        return body if isinstance(body, dict) else None

    def location(self, node: Object) -> NodeLocation:
        """Upstream's ``GetConnectionInfo`` on a Node already read."""
        status = node.get("status") or {}
        host = preferred_address(status.get("addresses") or [], self.connection.preferred_address_types)
        port = ((status.get("daemonEndpoints") or {}).get("kubeletEndpoint") or {}).get("Port")
        if isinstance(port, int) and not isinstance(port, bool) and port > 0:
            return NodeLocation(host, port)
        return NodeLocation(host, self.connection.default_port or DEFAULT_PORT)

    def _store(self, resource: str) -> GenericStore:
        store = self.catalog.store("", "v1", resource)
        if store is None:
            raise errors.internal(f"no {resource} storage")
        return store

    @staticmethod
    async def _list(store: GenericStore, namespace: str, query: dict[str, str]) -> list[Object]:
        return list((await store.list(namespace, list_options(query, store.strategy))).items)


def _metrics(kind: str, obj: Object, at: object, fields: Object) -> Object:
    meta = obj["metadata"]
    now = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    metadata: Object = {"name": meta["name"], "creationTimestamp": now, "labels": meta.get("labels") or {}}
    if meta.get("namespace"):
        metadata = {"name": meta["name"], "namespace": meta["namespace"], **metadata}
    return {"kind": kind, "apiVersion": API_VERSION, "metadata": metadata, "timestamp": at or now,
            "window": WINDOW, **fields}  # fmt: skip


def _has_usage(stats: Object) -> bool:
    return bool((stats.get("cpu") or {}).get("usageNanoCores") is not None and stats.get("memory"))


def _usage(stats: Object) -> dict[str, str]:
    """metrics-server's quantities: CPU in nanocores, memory (working set) in Ki."""
    cores = int((stats.get("cpu") or {}).get("usageNanoCores") or 0)
    memory = int((stats.get("memory") or {}).get("workingSetBytes") or 0)
    return {"cpu": f"{cores}n", "memory": f"{memory // 1024}Ki"}


def _ready(node: Object) -> bool:
    conditions = (node.get("status") or {}).get("conditions") or []
    return any(c.get("type") == "Ready" and c.get("status") == "True" for c in conditions)


def _running(pod: Object) -> bool:
    return (
        bool((pod.get("spec") or {}).get("nodeName")) and (pod.get("status") or {}).get("phase") == "Running"
    )
