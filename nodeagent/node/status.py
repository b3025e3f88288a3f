"""Registering a Node and reporting its status (upstream ``kubelet_node_status.go``).

``NodeStatusReporter`` holds one node's reporting state; it does no timing of its own (the
``NodeHeartbeats`` loop calls it), so one loop can serve thousands of simulated nodes.

- ``register``: create the Node with labels, an (empty) spec and its full status. If it already
  exists (the agent restarted), keep it: its spec (``unschedulable``, taints) is untouched, the
  default labels are patched back where they differ, and its status is reported at once, carrying
  over the conditions' ``lastTransitionTime``.
- ``sync_node_status``: upstream's ``updateNodeStatus``, called every ``nodeStatusUpdateFrequency``
  (10 s): compute the status, and PATCH ``nodes/<name>/status`` (strategic merge) when it differs
  from the last report (heartbeat times aside) or ``nodeStatusReportFrequency`` (5 min) has
  passed since. A 404 means the Node was deleted: the reporter forgets its registration so the
  loop registers the node again.
"""

from __future__ import annotations

import copy
import logging
from typing import Any

from minikube_py.api.errors import ApiError
from minikube_py.api.unstructured import Object
from minikube_py.client.interfaces import MERGE_PATCH, STRATEGIC_MERGE_PATCH, Client
from minikube_py.client.resourcetypes import NODES
from minikube_py.clock import Clock, RealClock
from nodeagent.node.conditions import Condition, SignalSource, healthy, node_conditions, without_heartbeats
from nodeagent.node.nodeinfo import NodeConfig

NODE_STATUS_UPDATE_FREQUENCY = 10.0
NODE_STATUS_REPORT_FREQUENCY = 300.0
ATTACH_DETACH_ANNOTATION = "volumes.kubernetes.io/controller-managed-attach-detach"

log = logging.getLogger("nodeagent")


class NodeStatusReporter:
    """One node's registration and status reports (see the module docstring)."""

    def __init__(
        self,
        client: Client,
        config: NodeConfig,
        *,
        signals: SignalSource = healthy,
        clock: Clock | None = None,
        report_frequency: float = NODE_STATUS_REPORT_FREQUENCY,
    ) -> None:
        self.config = config
        self.uid = ""  # the registered Node's uid ("" until registered)
        self._nodes = client.resource(NODES)
        self._signals = signals
        self._clock = clock or RealClock()
        self._report_frequency = report_frequency
        self._conditions: list[Condition] = []  # as last reported (or found on the Node)
        self._reported: Object | None = None  # the last reported status, heartbeats left out
        self._reported_at = 0.0

    @property
    def registered(self) -> bool:
        return bool(self.uid)

    def node_status(self) -> Object:
        """The status to report now."""
        config = self.config
        conditions = node_conditions(self._signals(), self._conditions, self._clock.now())
        return {
            "capacity": dict(config.capacity),
            "allocatable": dict(config.allocatable),
            "conditions": conditions,
            "addresses": config.addresses(),
            "daemonEndpoints": {"kubeletEndpoint": {"Port": config.port}},
            "nodeInfo": config.node_info(),
        }

    def initial_node(self) -> Object:
        """Upstream's ``initialNode`` with its status set."""
        return {
            "apiVersion": "v1",
            "kind": "Node",
            "metadata": {
                "name": self.config.name,
                "labels": self.config.default_labels(),
                "annotations": {ATTACH_DETACH_ANNOTATION: "true", **self.config.annotations},
            },
            "spec": self.config.spec(),
            "status": self.node_status(),
        }

    async def register(self) -> Object:
        """Create the Node, or adopt the existing one; raises ``ApiError`` on failure."""
        node = self.initial_node()
        try:
            created = await self._nodes.create(node)
        except ApiError as err:
            if err.code != 409:
                raise
            return await self._adopt()
        self._reported_at = self._clock.monotonic()
        self._remember(created["status"])
        self.uid = created["metadata"]["uid"]
        log.info("nodeagent: registered node %s", self.config.name)
        return created

    async def _adopt(self) -> Object:
        existing = await self._nodes.get(self.config.name)
        self._conditions = list((existing.get("status") or {}).get("conditions") or [])
        labels = (existing.get("metadata") or {}).get("labels") or {}
        wanted = self.config.default_labels()
        drift: Object = {}
        if labels_drift := {k: v for k, v in wanted.items() if labels.get(k) != v}:
            drift["metadata"] = {"labels": labels_drift}
        annotations = (existing.get("metadata") or {}).get("annotations") or {}
        if notes := {k: v for k, v in self.config.annotations.items() if annotations.get(k) != v}:
            drift.setdefault("metadata", {})["annotations"] = notes
        if (spec := self.config.spec()) and (existing.get("spec") or {}).get("podCIDR") != spec["podCIDR"]:
            # a Node from before pod ranges, or from a cluster with another --cluster-cidr: the
            # range this agent hands out pod IPs from is the one the Node must say
            log.info("nodeagent: node %s gets pod range %s", self.config.name, spec["podCIDR"])
            drift["spec"] = spec
        if drift:
            # a JSON merge patch: it replaces spec.podCIDRs, which a strategic one would merge
            existing = await self._nodes.patch(self.config.name, drift, patch_type=MERGE_PATCH)
        self.uid = existing["metadata"]["uid"]
        self._reported = None
        await self.sync_node_status()
        log.info("nodeagent: node %s was already registered; status updated", self.config.name)
        return existing

    async def sync_node_status(self) -> bool:
        """Report the status if it changed or is due; True when a PATCH was sent."""
        status = self.node_status()
        due = self._clock.monotonic() - self._reported_at >= self._report_frequency
        if not due and self._reported is not None and _comparable(status) == self._reported:
            return False
        try:
            patched = await self._nodes.patch(
                self.config.name, {"status": status}, patch_type=STRATEGIC_MERGE_PATCH, subresource="status"
            )
        except ApiError as err:
            if err.code == 404:
                log.warning("nodeagent: node %s was deleted; registering it again", self.config.name)
                self.uid = ""
            raise
        self._reported_at = self._clock.monotonic()
        self._remember(status)
        if patched["metadata"].get("uid"):
            self.uid = patched["metadata"]["uid"]
        return True

    def _remember(self, status: Object) -> None:
        self._conditions = copy.deepcopy(status.get("conditions") or [])
        self._reported = _comparable(status)


def _comparable(status: Object) -> dict[str, Any]:
    return {**status, "conditions": without_heartbeats(status.get("conditions") or [])}
