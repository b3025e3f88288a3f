"""The ``kubernetes`` Service's Endpoints and EndpointSlices in ``default``, kept by the
apiservers themselves (upstream's lease endpoint reconciler, ``--endpoint-reconciler-type=lease``).

Every ``interval`` (upstream's 10 s) each apiserver renews its lease (``masterleases``, TTL
upstream's 15 s), lists the live ones and, when they differ from what is stored, rewrites:

- the Endpoints ``default/kubernetes``, labelled ``endpointslice.kubernetes.io/skip-mirror:
  "true"`` (the mirroring controller leaves it alone, as upstream): one subset per distinct
  port, its addresses the apiservers serving on that port, port ``https``/TCP. Upstream has
  one subset (all apiservers share a port); here several apiservers may run on 127.0.0.1 with
  different ports, so ``127.0.0.1:6443`` and ``127.0.0.1:6444`` are two subsets;
- the EndpointSlices: ``kubernetes`` for the lowest port (the only one in the usual case, as
  upstream), ``kubernetes-<port>`` for each further port, labelled ``kubernetes.io/service-name:
  kubernetes``; slices of ports nobody serves any more are deleted.

On a clean stop the apiserver deletes its lease and reconciles once more without itself; a
crashed one's lease expires and the next reconcile drops it. As upstream, the last apiserver
never empties the Endpoints (``refusing to erase all endpoints``): with none alive nothing
could serve them anyway, and the next one to start rewrites them.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import Any

from apiserver.bootstrap.masterleases import Address, MasterLeases
from apiserver.registry.catalog import Catalog
from apiserver.registry.deletion import DeleteOptions
from apiserver.registry.store import GenericStore
from apiserver.storage.interface import ListOptions
from minikube_py.api import errors
from minikube_py.api.unstructured import Object
from minikube_py.clock import Clock, RealClock

log = logging.getLogger("apiserver.endpointreconciler")

NAMESPACE = "default"
NAME = "kubernetes"
PORT_NAME = "https"
SKIP_MIRROR_LABEL = "endpointslice.kubernetes.io/skip-mirror"
SERVICE_NAME_LABEL = "kubernetes.io/service-name"
#: upstream's ``DefaultEndpointReconcilerInterval`` and ``DefaultEndpointReconcilerTTL``
INTERVAL = 10.0
TTL = 15


def advertised(host: str, port: int) -> Address:
    """An unspecified bind address advertises the loopback address (nothing here leaves it)."""
    return Address("127.0.0.1" if host in ("", "0.0.0.0", "::") else host, port)


def desired_subsets(addresses: list[Address]) -> list[dict[str, Any]]:
    by_port: dict[int, list[str]] = {}
    for address in addresses:
        by_port.setdefault(address.port, []).append(address.ip)
    return [
        {
            "addresses": [{"ip": ip} for ip in sorted(ips)],
            "ports": [{"name": PORT_NAME, "port": port, "protocol": "TCP"}],
        }
        for port, ips in sorted(by_port.items())
    ]


def desired_slices(subsets: list[dict[str, Any]]) -> dict[str, Object]:
    slices: dict[str, Object] = {}
    for index, subset in enumerate(subsets):
        port = subset["ports"][0]["port"]
        name = NAME if index == 0 else f"{NAME}-{port}"
        slices[name] = {
            "apiVersion": "discovery.k8s.io/v1",
            "kind": "EndpointSlice",
            "metadata": {"name": name, "namespace": NAMESPACE, "labels": {SERVICE_NAME_LABEL: NAME}},
            "addressType": "IPv4",
            "endpoints": [
                {"addresses": [a["ip"]], "conditions": {"ready": True}} for a in subset["addresses"]
            ],
            "ports": subset["ports"],
        }
    return slices


class LeaseEndpointReconciler:
    """One apiserver's part: ``run`` until cancelled, then ``remove`` itself."""

    def __init__(
        self,
        catalog: Catalog,
        address: Address,
        *,
        clock: Clock | None = None,
        interval: float = INTERVAL,
        ttl: int = TTL,
    ) -> None:
        self.address, self.interval = address, interval
        self._clock: Clock = clock or RealClock()
        self.leases = MasterLeases(catalog, self._clock, ttl)
        endpoints = catalog.store("", "v1", "endpoints")
        slices = catalog.store("discovery.k8s.io", "v1", "endpointslices")
        assert endpoints is not None and slices is not None
        self._endpoints: GenericStore = endpoints
        self._slices: GenericStore = slices

    async def run(self) -> None:
        try:
            while True:
                try:
                    await self.reconcile()
                except errors.ApiError as err:  # a conflict with another apiserver: next round
                    log.warning("reconciling the kubernetes endpoints failed: %s", err.message)
                await self._clock.sleep(self.interval)
        except asyncio.CancelledError:
            await asyncio.shield(self._remove_quietly())
            raise

    async def reconcile(self) -> None:
        """Renew this apiserver's lease and write the live apiservers as the endpoints."""
        await self.leases.update(self.address)
        await self._write(await self.leases.live())

    async def remove(self) -> None:
        """``RemoveEndpoints``: give up the lease and write the others (if any are left)."""
        await self.leases.remove(self.address)
        live = [a for a in await self.leases.live() if a != self.address]
        await self._write(live)

    async def _remove_quietly(self) -> None:
        try:
            await self.remove()
        except (errors.ApiError, OSError) as err:
            log.warning("could not remove %s from the kubernetes endpoints: %s", self.address, err)

    async def _write(self, addresses: list[Address]) -> None:
        if not addresses:
            log.info("no apiserver addresses are leased: not erasing the kubernetes endpoints")
            return
        subsets = desired_subsets(addresses)
        await self._write_endpoints(subsets)
        await self._write_slices(desired_slices(subsets))

    async def _write_endpoints(self, subsets: list[dict[str, Any]]) -> None:
        labels = {SKIP_MIRROR_LABEL: "true"}
        try:
            current = await self._endpoints.get(NAMESPACE, NAME)
        except errors.ApiError as err:
            if err.code != 404:
                raise
            body: Object = {
                "apiVersion": "v1",
                "kind": "Endpoints",
                "metadata": {"name": NAME, "namespace": NAMESPACE, "labels": labels},
                "subsets": subsets,
            }
            await self._endpoints.create(NAMESPACE, body)
            log.info("kubernetes endpoints: %s", _describe(subsets))
            return
        meta = current["metadata"]
        if current.get("subsets") == subsets and (meta.get("labels") or {}).get(SKIP_MIRROR_LABEL) == "true":
            return

        def mutate(endpoints: Object) -> Object:
            merged = {**(endpoints["metadata"].get("labels") or {}), **labels}
            return {**endpoints, "metadata": {**endpoints["metadata"], "labels": merged}, "subsets": subsets}

        await self._endpoints.update(NAMESPACE, NAME, mutate)
        log.info("kubernetes endpoints: %s", _describe(subsets))

    async def _write_slices(self, desired: dict[str, Object]) -> None:
        listed = await self._slices.list(NAMESPACE, ListOptions())
        current = {
            s["metadata"]["name"]: s
            for s in listed.items
            if (s["metadata"].get("labels") or {}).get(SERVICE_NAME_LABEL) == NAME
            and "endpointslice.kubernetes.io/managed-by" not in (s["metadata"].get("labels") or {})
        }
        for name, slice_ in desired.items():
            found = current.pop(name, None)
            if found is None:
                await self._slices.create(NAMESPACE, slice_)
            elif any(found.get(f) != slice_.get(f) for f in ("addressType", "endpoints", "ports")):
                await self._slices.update(NAMESPACE, name, _with_fields_of(slice_))
        for name in current:
            if name == NAME or name.startswith(f"{NAME}-"):
                await self._slices.delete(NAMESPACE, name, DeleteOptions())


def _with_fields_of(desired: Object) -> Callable[[Object], Object]:
    fields = {f: desired[f] for f in ("addressType", "endpoints", "ports")}
    return lambda current: {**current, **fields}


def _describe(subsets: list[dict[str, Any]]) -> str:
    return ", ".join(f"{a['ip']}:{s['ports'][0]['port']}" for s in subsets for a in s["addresses"])
