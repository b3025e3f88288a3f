"""``MasterLeases``: which apiservers are alive, for the ``kubernetes`` Service's endpoints
(upstream's ``--endpoint-reconciler-type=lease``, ``pkg/controlplane/reconcilers/lease.go``).

Upstream keeps ``/masterleases/<ip>`` keys with an etcd TTL. Our stores have no TTL, so each
apiserver keeps a Lease object ``kube-system/apiserver-endpoint-<ip>-<port>`` (labelled
``endpoints.minikube-py.io/apiserver``), its ``holderIdentity`` the advertised ``ip:port``,
``leaseDurationSeconds`` the TTL and ``renewTime`` refreshed every reconcile. A lease whose
``renewTime + leaseDurationSeconds`` has passed is expired: it counts for no one and the next
apiserver to reconcile deletes it. The port is part of the name because several apiservers
may share one address here (all on 127.0.0.1)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

from apiserver.registry.catalog import Catalog
from apiserver.registry.deletion import DeleteOptions
from apiserver.registry.store import GenericStore
from apiserver.storage.interface import ListOptions
from minikube_py.api import errors
from minikube_py.api.timestamps import parse_rfc3339
from minikube_py.api.unstructured import Object
from minikube_py.clock import Clock

NAMESPACE = "kube-system"
LABEL = "endpoints.minikube-py.io/apiserver"
PREFIX = "apiserver-endpoint-"


@dataclass(frozen=True, order=True)
class Address:
    """Where one apiserver serves: its advertised IP and its real port."""

    ip: str
    port: int

    def __str__(self) -> str:
        return f"{self.ip}:{self.port}"

    @property
    def lease_name(self) -> str:
        return f"{PREFIX}{self.ip.replace('.', '-').replace(':', '-')}-{self.port}"


def micro_time(at: float) -> str:
    return datetime.fromtimestamp(at, UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def lease_address(lease: Object) -> Address | None:
    ip, _, port = str((lease.get("spec") or {}).get("holderIdentity") or "").rpartition(":")
    return Address(ip, int(port)) if ip and port.isdigit() else None


def expired(lease: Object, now: float) -> bool:
    spec = lease.get("spec") or {}
    renewed = parse_rfc3339(spec.get("renewTime"))
    return renewed is None or renewed + float(spec.get("leaseDurationSeconds") or 0) < now


class MasterLeases:
    """The leases of every apiserver, read and written through the registry."""

    def __init__(self, catalog: Catalog, clock: Clock, ttl: int) -> None:
        store = catalog.store("coordination.k8s.io", "v1", "leases")
        assert store is not None
        self._store: GenericStore = store
        self._clock, self._ttl = clock, ttl

    async def update(self, address: Address) -> None:
        """Create or renew ``address``'s lease."""
        now = micro_time(self._clock.now())
        spec = {"holderIdentity": str(address), "leaseDurationSeconds": self._ttl, "renewTime": now}
        try:
            await self._store.update(
                NAMESPACE,
                address.lease_name,
                lambda lease: {**lease, "spec": {**(lease.get("spec") or {}), **spec}},
            )
        except errors.ApiError as err:
            if err.code != 404:
                raise
            lease = {
                "apiVersion": "coordination.k8s.io/v1",
                "kind": "Lease",
                "metadata": {"name": address.lease_name, "namespace": NAMESPACE, "labels": {LABEL: "true"}},
                "spec": {**spec, "acquireTime": now},
            }
            await self._store.create(NAMESPACE, lease)

    async def live(self) -> list[Address]:
        """The addresses of unexpired leases, sorted; expired ones are deleted on the way."""
        listed = await self._store.list(NAMESPACE, ListOptions())
        now, found = self._clock.now(), set()
        for lease in listed.items:
            meta = lease["metadata"]
            if not str(meta.get("name", "")).startswith(PREFIX) or LABEL not in (meta.get("labels") or {}):
                continue
            if expired(lease, now):
                await self._delete(str(meta["name"]))
            elif (address := lease_address(lease)) is not None:
                found.add(address)
        return sorted(found)

    async def remove(self, address: Address) -> None:
        await self._delete(address.lease_name)

    async def _delete(self, name: str) -> None:
        try:
            await self._store.delete(NAMESPACE, name, DeleteOptions())
        except errors.ApiError as err:
            if err.code != 404:
                raise
