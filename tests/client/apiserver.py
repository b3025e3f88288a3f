"""A real apiserver over HTTPS on loopback, in this process: memory store, watch caches,
bootstrap objects, default (open) security, on a free port.

``running_apiserver(directory)`` is an async context manager for any test folder: it writes the
cluster PKI (unless given one) and an admin kubeconfig (certificate data embedded) under
``directory`` and yields ``RunningApiserver(url, kubeconfig, pki)``. ``security`` and
``serving`` configure the gates and the request limits (default: open, upstream's limits).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from pathlib import Path
from typing import NamedTuple

from apiserver.security import SecurityConfig
from apiserver.server import listen, run_apiserver
from apiserver.serving import ServingOptions
from apiserver.storage.memory import MemoryKV
from minikube_py.kubeconfig import write_client_kubeconfig
from minikube_py.pki import ClusterPKI, ensure_cluster_pki

START_TIMEOUT = 10.0


class RunningApiserver(NamedTuple):
    url: str
    kubeconfig: Path
    pki: ClusterPKI


@contextlib.asynccontextmanager
async def running_apiserver(
    directory: Path,
    *,
    pki: ClusterPKI | None = None,
    security: SecurityConfig | None = None,
    serving: ServingOptions | None = None,
) -> AsyncIterator[RunningApiserver]:
    """Serve until the block exits (then stop the server and its watches)."""
    pki = pki or ensure_cluster_pki(directory / "pki")
    sock = listen("127.0.0.1", 0)
    url = f"https://127.0.0.1:{sock.getsockname()[1]}"
    kubeconfig = directory / "admin.kubeconfig"
    write_client_kubeconfig(kubeconfig, server=url, ca_cert=pki.ca.cert, client=pki.admin, user="admin")
    kv = MemoryKV()
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
            security=security,
            serving=serving,
        )
    )
    try:
        ready = asyncio.create_task(listening.wait())
        done, _ = await asyncio.wait(
            {server, ready}, timeout=START_TIMEOUT, return_when=asyncio.FIRST_COMPLETED
        )
        ready.cancel()
        if server in done:
            server.result()  # raises why it stopped
        if ready not in done:
            raise TimeoutError(f"apiserver did not listen within {START_TIMEOUT}s")
        yield RunningApiserver(url, kubeconfig, pki)
    finally:
        server.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await server
        await kv.close()
