"""``DefaultPreemption``: the PostFilter that makes room for a pod that fits nowhere by evicting
pods of lower priority (upstream ``plugins/defaultpreemption`` and ``framework/preemption``).

1. A pod with ``preemptionPolicy: Never``, or whose nominated node still has lower-priority pods
   terminating because of an earlier preemption, does not preempt.
2. Candidates are the nodes the pod failed with ``Unschedulable`` (never
   ``UnschedulableAndUnresolvable``: evicting pods would not help there), tried from a random
   offset until ``max(10% of them, 100)`` (``minCandidateNodesPercentage``,
   ``minCandidateNodesAbsolute``) work.
3. On a copy of each node (and of the cycle state), every pod of lower priority is removed; if
   the pod then passes the filters, victims are given back one at a time, most important first,
   while the pod still fits. What is left are the victims.
4. The node is chosen by: fewest PodDisruptionBudget violations, lowest highest-victim
   priority, smallest sum of victim priorities, fewest victims, latest start of the highest
   priority victims, then the first one.
5. Each victim gets the ``DisruptionTarget`` condition, is deleted and gets a ``Preempted``
   event; lower-priority pods nominated to that node lose their nomination. The result names
   the node; the scheduler writes it to the pod's ``status.nominatedNodeName``.

PodDisruptionBudgets are not served by this apiserver, so no victim ever violates one (every
candidate counts 0 violations) and the reprieve order is simply by importance.
"""

from __future__ import annotations

import logging
import math
import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from minikube_py.api.errors import ApiError
from minikube_py.api.timestamps import now_rfc3339, parse_rfc3339
from minikube_py.api.unstructured import Object
from minikube_py.client.interfaces import STRATEGIC_MERGE_PATCH
from minikube_py.client.resourcetypes import PODS
from scheduler.framework.cyclestate import CycleState
from scheduler.framework.extensionpoints import EnqueueExtensions, PostFilterPlugin
from scheduler.framework.feasible import fit_error_message
from scheduler.framework.interface import Handle, PostFilterResult
from scheduler.framework.profile import ConfigError
from scheduler.framework.status import SUCCESS, Code, Status
from scheduler.framework.types import ClusterEvent, NodeInfo, PodInfo
from scheduler.plugins.defaultpreemption.nominator import nominated_node_name, pod_priority

log = logging.getLogger("scheduler")

NAME = "DefaultPreemption"
DEFAULT_MIN_CANDIDATE_NODES_PERCENTAGE = 10
DEFAULT_MIN_CANDIDATE_NODES_ABSOLUTE = 100
PREEMPT_NEVER = "Never"
DISRUPTION_TARGET = "DisruptionTarget"
PREEMPTION_BY_SCHEDULER = "PreemptionByScheduler"
NOT_ELIGIBLE_POLICY = "not eligible due to preemptionPolicy=Never."
NOT_ELIGIBLE_TERMINATING = "not eligible due to a terminating pod on the nominated node."
NO_VICTIMS = "No preemption victims found for incoming pod"
NOT_HELPFUL = "Preemption is not helpful for scheduling"
_PRIORITY_OFFSET = 2**31  # upstream adds MaxInt32+1 so negative priorities sum sensibly


@dataclass
class Candidate:
    """A node where the pod fits once ``victims`` (most important first) are gone."""

    name: str
    victims: list[Object] = field(default_factory=list)
    num_pdb_violations: int = 0


class DefaultPreemption(PostFilterPlugin, EnqueueExtensions):
    name = NAME

    def __init__(self, args: dict[str, Any], handle: Handle) -> None:
        self.handle = handle
        self.min_percentage = _int_arg(
            args, "minCandidateNodesPercentage", DEFAULT_MIN_CANDIDATE_NODES_PERCENTAGE
        )
        self.min_absolute = _int_arg(args, "minCandidateNodesAbsolute", DEFAULT_MIN_CANDIDATE_NODES_ABSOLUTE)
        if not 0 <= self.min_percentage <= 100:
            raise ConfigError(
                f"minCandidateNodesPercentage: Invalid value: {self.min_percentage}: "
                "not in valid range [0, 100]"
            )
        if self.min_absolute < 0:
            raise ConfigError(
                f"minCandidateNodesAbsolute: Invalid value: {self.min_absolute}: not in valid range [0, inf)"
            )
        if self.min_percentage == 0 and self.min_absolute == 0:
            raise ConfigError(
                "minCandidateNodesPercentage: Invalid value: 0: cannot be zero at the same time as "
                "minCandidateNodesAbsolute"
            )
        self.rng = random.Random()

    def events_to_register(self) -> list[ClusterEvent]:
        return []

    # -- PostFilter ------------------------------------------------------------------------

    async def post_filter(
        self, state: CycleState, pod: Object, statuses: dict[str, Status]
    ) -> tuple[PostFilterResult | None, Status]:
        result, status = await self.preempt(state, pod, statuses)
        message = status.message()
        if message:
            status = Status(status.code, (f"preemption: {message}",), status.plugin, status.error)
        return result, status

    async def preempt(
        self, state: CycleState, pod: Object, statuses: dict[str, Status]
    ) -> tuple[PostFilterResult | None, Status]:
        """Upstream ``Evaluator.Preempt``: (None, Unschedulable) when the pod may not preempt;
        (result "", Unschedulable with a fit error) when no node would help; (result, Success)
        naming the node whose victims were deleted."""
        nominated = nominated_node_name(pod)
        eligible, why = self.pod_eligible_to_preempt_others(
            pod, statuses.get(nominated) if nominated else None
        )
        if not eligible:
            return None, Status.unschedulable(why)
        nodes = list(self.handle.snapshot.list())
        if not nodes:
            return None, Status.as_error(RuntimeError("no nodes available"))
        candidates, node_statuses, error = self.find_candidates(state, pod, nodes, statuses)
        if error is not None and not candidates:
            return None, Status.as_error(error)
        if not candidates:
            for node in nodes:
                node_statuses.setdefault(node.name, Status.unresolvable(NOT_HELPFUL))
            await self._clear_nominated_node_name(pod)
            return PostFilterResult(""), Status.unschedulable(fit_error_message(len(nodes), node_statuses))
        best = select_candidate(candidates)
        status = await self.prepare_candidate(best, pod)
        if not status.is_success():
            return None, status
        return PostFilterResult(best.name), SUCCESS

    def pod_eligible_to_preempt_others(
        self, pod: Object, nominated_status: Status | None
    ) -> tuple[bool, str]:
        if (pod.get("spec") or {}).get("preemptionPolicy") == PREEMPT_NEVER:
            return False, NOT_ELIGIBLE_POLICY
        nominated = nominated_node_name(pod)
        if not nominated:
            return True, ""
        if nominated_status is not None and nominated_status.code == Code.UNSCHEDULABLE_AND_UNRESOLVABLE:
            return True, ""
        node = self.handle.snapshot.get(nominated)
        if node is not None:
            priority = pod_priority(pod)
            for info in node.pods:
                if pod_priority(info.pod) < priority and _terminating_by_preemption(info.pod):
                    return False, NOT_ELIGIBLE_TERMINATING
        return True, ""

    # -- candidates ------------------------------------------------------------------------

    def num_candidates(self, num_nodes: int) -> int:
        """Upstream ``calculateNumCandidates``."""
        wanted = num_nodes * self.min_percentage // 100
        return min(max(wanted, self.min_absolute), num_nodes)

    def find_candidates(
        self, state: CycleState, pod: Object, nodes: Sequence[NodeInfo], statuses: dict[str, Status]
    ) -> tuple[list[Candidate], dict[str, Status], BaseException | None]:
        """Dry-run preemption on the nodes the pod failed as Unschedulable; returns the
        candidates, the status of each node tried in vain, and the first plugin error."""
        potential = [
            node
            for node in nodes
            if (s := statuses.get(node.name)) is not None and s.code == Code.UNSCHEDULABLE
        ]
        node_statuses: dict[str, Status] = {}
        if not potential:
            return [], node_statuses, None
        count = len(potential)
        offset, wanted = self.rng.randrange(count), self.num_candidates(count)
        candidates: list[Candidate] = []
        error: BaseException | None = None
        for i in range(count):
            node = potential[(offset + i) % count]
            victims, violations, status = self.select_victims_on_node(state.clone(), pod, node.clone())
            if status.is_success() and victims:
                candidates.append(Candidate(node.name, victims, violations))
                if len(candidates) >= wanted:
                    break
                continue
            if status.is_success():
                status = Status.as_error(
                    RuntimeError(f'expected at least one victim pod on node "{node.name}"')
                )
            if status.code == Code.ERROR and error is None:
                error = status.error or RuntimeError(status.message())
            node_statuses[node.name] = status
        return candidates, node_statuses, error

    def select_victims_on_node(
        self, state: CycleState, pod: Object, node: NodeInfo
    ) -> tuple[list[Object], int, Status]:
        """The fewest pods of lower priority to remove from ``node`` (a copy, like ``state``)
        for ``pod`` to fit, most important first; the number of PDB violations is always 0."""
        framework = self.handle.framework
        if framework is None:
            raise RuntimeError("DefaultPreemption needs a handle bound to a framework")
        nominator = self.handle.nominator
        if nominator is not None:  # upstream filters with the nominated pods of at least this priority
            for info in nominator.pods_to_count(pod).get(node.name, []):
                node.add_pod(info)
                status = framework.run_pre_filter_extension_add_pod(state, pod, info, node)
                if not status.is_success():
                    return [], 0, status
        priority = pod_priority(pod)
        potential = [info for info in node.pods if pod_priority(info.pod) < priority]
        if not potential:
            return [], 0, Status.unresolvable(NO_VICTIMS)
        for info in potential:
            node.remove_pod(info.key)
            status = framework.run_pre_filter_extension_remove_pod(state, pod, info, node)
            if not status.is_success():
                return [], 0, status
        status = framework.run_filter_plugins(state, pod, node)
        if not status.is_success():
            return [], 0, status
        potential.sort(key=_importance)
        victims: list[Object] = []
        for info in potential:  # reprieve as many as possible, the most important first
            node.add_pod(info)
            status = framework.run_pre_filter_extension_add_pod(state, pod, info, node)
            if not status.is_success():
                return [], 0, status
            if framework.run_filter_plugins(state, pod, node).is_success():
                continue
            node.remove_pod(info.key)
            status = framework.run_pre_filter_extension_remove_pod(state, pod, info, node)
            if not status.is_success():
                return [], 0, status
            victims.append(info.pod)
        return victims, 0, SUCCESS

    # -- acting ----------------------------------------------------------------------------

    async def prepare_candidate(self, candidate: Candidate, pod: Object) -> Status:
        """Evict the victims (condition, DELETE, event), then clear the nominations of
        lower-priority pods on the node."""
        scheduler_name = (pod.get("spec") or {}).get("schedulerName") or "default-scheduler"
        uid = (pod.get("metadata") or {}).get("uid", "")
        for victim in candidate.victims:
            meta = victim["metadata"]
            if meta.get("deletionTimestamp"):
                continue  # already going
            try:
                if not await self._preempt_pod(victim, scheduler_name):
                    continue
            except ApiError as err:
                return Status.as_error(err)
            self.handle.recorder.event(
                victim, "Normal", "Preempted", f"Preempted by pod {uid} on node {candidate.name}"
            )
        nominator = self.handle.nominator
        if nominator is not None:
            priority = pod_priority(pod)
            for info in nominator.nominated_pods_for_node(candidate.name):
                if pod_priority(info.pod) < priority:
                    await self._clear_nominated_node_name(info.pod)
        return SUCCESS

    async def _preempt_pod(self, victim: Object, scheduler_name: str) -> bool:
        """DisruptionTarget condition, then DELETE; False when the victim is already gone."""
        meta = victim["metadata"]
        pods = self.handle.client.resource(PODS, meta.get("namespace"))
        condition = {
            "type": DISRUPTION_TARGET,
            "status": "True",
            "reason": PREEMPTION_BY_SCHEDULER,
            "message": f"{scheduler_name}: preempting to accommodate a higher priority pod",
        }
        current = next(
            (
                c
                for c in (victim.get("status") or {}).get("conditions") or []
                if c.get("type") == DISRUPTION_TARGET
            ),
            None,
        )
        try:
            if current is None or any(current.get(k) != v for k, v in condition.items()):
                condition["lastTransitionTime"] = now_rfc3339()
                await pods.patch(
                    meta["name"],
                    {"status": {"conditions": [condition]}},
                    patch_type=STRATEGIC_MERGE_PATCH,
                    subresource="status",
                )
            await pods.delete(meta["name"])
        except ApiError as err:
            if err.code == 404:
                return False
            raise
        return True

    async def _clear_nominated_node_name(self, pod: Object) -> None:
        if not nominated_node_name(pod):
            return
        meta = pod["metadata"]
        try:
            await self.handle.client.resource(PODS, meta.get("namespace")).patch(
                meta["name"],
                {"status": {"nominatedNodeName": None}},
                patch_type=STRATEGIC_MERGE_PATCH,
                subresource="status",
            )
        except ApiError as err:  # not critical
            log.warning(
                "cannot clear the nominatedNodeName of %s/%s: %s", meta.get("namespace"), meta["name"], err
            )


def select_candidate(candidates: list[Candidate]) -> Candidate:
    """Upstream ``pickOneNodeForPreemption``: each criterion keeps the best-scoring candidates
    until one is left; then the first."""
    criteria = (
        lambda c: -c.num_pdb_violations,
        lambda c: -pod_priority(c.victims[0]),
        lambda c: -sum(pod_priority(v) + _PRIORITY_OFFSET for v in c.victims),
        lambda c: -len(c.victims),
        _earliest_start_of_highest_priority,
    )
    remaining = candidates
    for score in criteria:
        if len(remaining) == 1:
            break
        best = max(score(c) for c in remaining)
        remaining = [c for c in remaining if score(c) == best]
    return remaining[0]


def _earliest_start_of_highest_priority(candidate: Candidate) -> float:
    top = max(pod_priority(v) for v in candidate.victims)
    return min(_start_time(v) for v in candidate.victims if pod_priority(v) == top)


def _start_time(pod: Object) -> float:
    """``status.startTime`` as a timestamp; a pod not started yet counts as starting now (the
    latest possible)."""
    started = parse_rfc3339((pod.get("status") or {}).get("startTime"))
    return math.inf if started is None else started


def _importance(info: PodInfo) -> tuple[int, float]:
    """Upstream ``MoreImportantPod`` as a sort key: higher priority, then earlier start."""
    return -pod_priority(info.pod), _start_time(info.pod)


def _terminating_by_preemption(pod: Object) -> bool:
    if not (pod.get("metadata") or {}).get("deletionTimestamp"):
        return False
    return any(
        c.get("type") == DISRUPTION_TARGET
        and c.get("status") == "True"
        and c.get("reason") == PREEMPTION_BY_SCHEDULER
        for c in (pod.get("status") or {}).get("conditions") or []
    )


def _int_arg(args: dict[str, Any], name: str, default: int) -> int:
    value = args.get(name, default)
    if isinstance(value, bool) or not isinstance(value, int):
        raise ConfigError(f"{name}: Invalid value: {value!r}: must be an integer")
    return value
