"""A node's heartbeat Lease (upstream ``component-helpers/apimachinery/lease`` controller, as the
kubelet runs it).

The Lease ``kube-node-lease/<node>`` has ``holderIdentity`` = the node name,
``leaseDurationSeconds`` 40 and ``renewTime`` set on every renewal (every 10 s, a quarter of the
duration); its owner reference names the Node (``v1``/``Node``/name/uid), so deleting the Node
collects the Lease. ``NodeLease.renew`` is one attempt, as upstream's ``sync``: update the Lease
last seen (its resourceVersion guards the write); without one, or after a conflict or a 404,
read it again, and create it when it is gone. The caller retries a failed attempt with
``lease_backoff`` (upstream's ``backoffEnsureLease``: 200 ms doubling to 7 s).
"""

from __future__ import annotations

import copy
import logging
from collections.abc import Callable
from datetime import UTC, datetime

from minikube_py.api.errors import ApiError
from minikube_py.api.unstructured import Object
from minikube_py.client.interfaces import Client
from minikube_py.client.resourcetypes import LEASES

NODE_LEASE_NAMESPACE = "kube-node-lease"
LEASE_DURATION_SECONDS = 40
RENEW_INTERVAL = 10.0  # upstream: 0.25 * leaseDurationSeconds
INITIAL_BACKOFF = 0.2
MAX_BACKOFF = 7.0

log = logging.getLogger("nodeagent")


def lease_backoff(failures: int) -> float:
    """Seconds to wait after ``failures`` consecutive failed attempts (>= 1)."""
    return float(min(MAX_BACKOFF, INITIAL_BACKOFF * 2.0 ** max(0, failures - 1)))


class NodeLease:
    """The Lease of ``node_name``; ``node_uid`` reads the Node's uid ("" if not known yet)."""

    def __init__(self, client: Client, node_name: str, node_uid: Callable[[], str]) -> None:
        self.node_name = node_name
        self._leases = client.resource(LEASES, NODE_LEASE_NAMESPACE)
        self._node_uid = node_uid
        self.latest: Object | None = None  # the Lease as last written or read

    async def renew(self, now: float) -> Object:
        """Set ``renewTime`` to ``now`` (creating the Lease if needed); raises ``ApiError``."""
        if self.latest is not None:
            try:
                return await self._update(self.latest, now)
            except ApiError as err:
                if err.code not in (404, 409):
                    raise
                log.debug("nodeagent: lease %s changed (%s); reading it again", self.node_name, err.reason)
                self.latest = None
        try:
            current = await self._leases.get(self.node_name)
        except ApiError as err:
            if err.code != 404:
                raise
            log.info("nodeagent: creating lease for node %s", self.node_name)
            self.latest = await self._leases.create(self._new_lease(now))
            return self.latest
        return await self._update(current, now)

    async def _update(self, lease: Object, now: float) -> Object:
        renewed = copy.deepcopy(lease)
        spec = renewed.setdefault("spec", {})
        spec["holderIdentity"] = self.node_name
        spec["leaseDurationSeconds"] = LEASE_DURATION_SECONDS
        spec["renewTime"] = micro_time(now)
        owners = self._owner_references()
        if owners and renewed["metadata"].get("ownerReferences") != owners:
            renewed["metadata"]["ownerReferences"] = owners
        self.latest = await self._leases.update(renewed)
        return self.latest

    def _new_lease(self, now: float) -> Object:
        metadata: Object = {"name": self.node_name, "namespace": NODE_LEASE_NAMESPACE}
        owners = self._owner_references()
        if owners:
            metadata["ownerReferences"] = owners
        return {
            "apiVersion": LEASES.api_version,
            "kind": "Lease",
            "metadata": metadata,
            "spec": {
                "holderIdentity": self.node_name,
                "leaseDurationSeconds": LEASE_DURATION_SECONDS,
                "renewTime": micro_time(now),
            },
        }

    def _owner_references(self) -> list[Object]:
        uid = self._node_uid()
        if not uid:
            return []
        return [{"apiVersion": "v1", "kind": "Node", "name": self.node_name, "uid": uid}]


def micro_time(at: float) -> str:
    """A ``metav1.MicroTime`` (``2006-01-02T15:04:05.000000Z``)."""
    return datetime.fromtimestamp(at, UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
