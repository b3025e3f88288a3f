"""A proxier over a ``FakeClient`` (the API) and a ``FakeNetwork`` or real loopback sockets,
with object builders for Services, EndpointSlices and Nodes."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import Any

from minikube_py.cache.factory import SharedInformerFactory
from minikube_py.client.resourcetypes import NODES, SERVICES
from minikube_py.clock import Clock
from minikube_py.testing.fakeclient import FakeClient
from nodeagent.proxy.network import Network
from nodeagent.proxy.proxier import ENDPOINT_SLICES, Proxier, ProxyConfig


def service(name: str, cluster_ip: str, *ports: dict[str, Any], **spec: Any) -> dict[str, Any]:
    ports = ports or ({"name": "http", "port": 80, "protocol": "TCP"},)
    return {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {"namespace": "default", "name": name},
        "spec": {
            "clusterIP": cluster_ip,
            "clusterIPs": [cluster_ip],
            "type": "ClusterIP",
            "ports": list(ports),
            **spec,
        },
    }


def endpoint(ip: str, node: str = "node-1", ready: bool = True, **conditions: bool) -> dict[str, Any]:
    return {"addresses": [ip], "nodeName": node, "conditions": {"ready": ready, **conditions}}


def endpoint_slice(
    service_name: str,
    *endpoints: dict[str, Any],
    port: int = 8080,
    name: str = "http",
    protocol: str = "TCP",
    suffix: str = "a",
    annotations: dict[str, str] | None = None,
) -> dict[str, Any]:
    return {
        "apiVersion": "discovery.k8s.io/v1",
        "kind": "EndpointSlice",
        "metadata": {
            "namespace": "default",
            "name": f"{service_name}-{suffix}",
            "labels": {"kubernetes.io/service-name": service_name},
            "annotations": annotations or {},
        },
        "addressType": "IPv4",
        "ports": [{"name": name, "port": port, "protocol": protocol}],
        "endpoints": list(endpoints),
    }


def node(name: str, *addresses: str) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": name},
        "status": {"addresses": [{"type": "InternalIP", "address": a} for a in addresses]},
    }


class Harness:
    def __init__(self, network: Network, clock: Clock, config: ProxyConfig) -> None:
        self.api = FakeClient()
        self.factory = SharedInformerFactory(self.api, clock=clock)
        self.proxier = Proxier(self.api, self.factory, config, network, clock)

    async def apply(self, *objs: dict[str, Any]) -> None:
        """Create or replace each object (by kind)."""
        for obj in objs:
            kind = {"Service": SERVICES, "EndpointSlice": ENDPOINT_SLICES, "Node": NODES}[obj["kind"]]
            handle = self.api.resource(kind, obj["metadata"].get("namespace"))
            stored = self.api.stored(kind, obj["metadata"].get("namespace", ""), obj["metadata"]["name"])
            if stored is None:
                await handle.create(obj)
            elif obj["kind"] == "Node":  # a node agent writes its status
                await handle.update_status({**obj, "metadata": stored["metadata"]})
            else:
                await handle.update(
                    {
                        **obj,
                        "metadata": {
                            **obj["metadata"],
                            "resourceVersion": stored["metadata"]["resourceVersion"],
                        },
                    }
                )

    async def delete(self, kind: str, name: str, namespace: str | None = "default") -> None:
        resource = {"Service": SERVICES, "EndpointSlice": ENDPOINT_SLICES, "Node": NODES}[kind]
        await self.api.resource(resource, namespace).delete(name)

    def frontends(self) -> set[tuple[str, str, int]]:
        return set(self.proxier.listeners.open)


@contextlib.asynccontextmanager
async def running(harness: Harness) -> AsyncIterator[Harness]:
    """The informers and the proxier until the block ends (then every listener is closed)."""

    async def main() -> None:
        async with asyncio.TaskGroup() as tasks:
            harness.factory.start(tasks)
            tasks.create_task(harness.proxier.run())

    task = asyncio.ensure_future(main())
    try:
        yield harness
    finally:
        task.cancel()
        await asyncio.wait({task})
        if not task.cancelled() and task.exception() is not None:
            raise task.exception()  # type: ignore[misc]
