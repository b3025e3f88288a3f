"""Two real apiservers over one store, both on 127.0.0.1 with their own ports: the
``kubernetes`` Endpoints lists both (one subset per port) and drops one as soon as it stops."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from apiserver.server import listen, run_apiserver
from apiserver.storage.memory import MemoryKV
from minikube_py.client import RESTClient
from minikube_py.client.resourcetypes import ENDPOINTS, ENDPOINTSLICES
from minikube_py.kubeconfig import write_client_kubeconfig
from minikube_py.pki import ClusterPKI, ensure_cluster_pki
from tests.waiting import eventually


@contextlib.asynccontextmanager
async def apiserver(kv: MemoryKV, pki: ClusterPKI) -> AsyncIterator[int]:
    sock = listen("127.0.0.1", 0)
    port = sock.getsockname()[1]
    listening = asyncio.Event()
    server = asyncio.create_task(
        run_apiserver(
            kv,
            "127.0.0.1",
            0,
            pki.apiserver.cert,
            pki.apiserver.key,
            pki.ca.cert,
            sock=sock,
            on_listening=listening.set,
        )
    )
    try:
        await asyncio.wait_for(listening.wait(), 10)
        yield port
    finally:
        server.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await server


def ports_of(endpoints: Any) -> list[int]:
    return [s["ports"][0]["port"] for s in endpoints.get("subsets") or []]


async def test_each_running_apiserver_is_listed_until_it_stops(tmp_path: Path) -> None:
    pki = ensure_cluster_pki(tmp_path / "pki")
    kv = MemoryKV()
    try:
        async with apiserver(kv, pki) as first:
            kubeconfig = tmp_path / "admin.kubeconfig"
            server = f"https://127.0.0.1:{first}"
            write_client_kubeconfig(
                kubeconfig, server=server, ca_cert=pki.ca.cert, client=pki.admin, user="admin"
            )
            async with RESTClient.from_kubeconfig(kubeconfig) as client:
                endpoints = client.resource(ENDPOINTS, "default")

                async def ports() -> list[int]:
                    return ports_of(await endpoints.get("kubernetes"))

                async with apiserver(kv, pki) as second:
                    both = sorted([first, second])
                    await eventually(
                        lambda: _equal(ports(), both), f"both apiservers ({both}) listed", timeout=20
                    )
                    slices = await client.resource(ENDPOINTSLICES, "default").list()
                    names = sorted(s["metadata"]["name"] for s in slices["items"])
                    assert names == sorted(["kubernetes", f"kubernetes-{both[1]}"])
                # the second stopped cleanly: its lease went, and the first's next reconcile (or
                # the second's last one) leaves only the first
                assert await ports() == [first]
    finally:
        await kv.close()


async def _equal(value: Any, want: Any) -> bool:
    return bool(await value == want)
