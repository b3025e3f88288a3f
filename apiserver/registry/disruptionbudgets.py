"""What an eviction asks of PodDisruptionBudgets (upstream's ``EvictionREST`` budget half):
which budgets cover a pod, whether a not-ready pod may go without spending the budget, and the
check-and-decrement of ``status.disruptionsAllowed`` that records the pod in
``status.disruptedPods``, written through the status subresource with the budget's
``resourceVersion`` so that two evictions racing for the last disruption cannot both win (the
loser re-reads the budget and is refused)."""

from __future__ import annotations

import asyncio
import copy
from collections.abc import Callable
from typing import Any

from apiserver.registry.store import GenericStore
from apiserver.storage.interface import ListOptions
from minikube_py.api import errors
from minikube_py.api.labels import SelectorError, label_selector_as_selector
from minikube_py.api.timestamps import now_rfc3339
from minikube_py.api.unstructured import Object

#: upstream's ``MaxDisruptedPodSize``: more accepted-but-unseen evictions than this are refused
MAX_DISRUPTED_PODS = 2000
#: upstream's ``EvictionsRetry``: 20 tries, 0.5 s apart
RETRY_STEPS = 20
RETRY_INTERVAL = 0.5
DISRUPTION_BUDGET_CAUSE = "DisruptionBudget"
VIOLATION = "Cannot evict pod as it would violate the pod's disruption budget."
MULTIPLE_BUDGETS = (
    "This pod has more than one PodDisruptionBudget, which the eviction subresource does not support."
)
DISRUPTION_ALLOWED = "DisruptionAllowed"


def too_many_requests(cause: str, retry_after: int) -> errors.ApiError:
    """The 429 that ``kubectl drain`` retries on, with the ``DisruptionBudget`` cause."""
    return errors.ApiError(
        429,
        "TooManyRequests",
        VIOLATION,
        causes=[errors.Cause(DISRUPTION_BUDGET_CAUSE, cause)],
        retry_after=retry_after,
    )


def still_processing(name: str) -> errors.ApiError:
    return too_many_requests(f"The disruption budget {name} is still being processed by the server.", 10)


def is_pod_ready(pod: Object) -> bool:
    conditions = (pod.get("status") or {}).get("conditions") or []
    return any(c.get("type") == "Ready" and c.get("status") == "True" for c in conditions)


def can_ignore_budgets(pod: Object) -> bool:
    """Terminal and pending pods, and pods already being deleted, disrupt nothing more."""
    phase = (pod.get("status") or {}).get("phase")
    return phase in ("Succeeded", "Failed", "Pending") or bool(pod["metadata"].get("deletionTimestamp"))


def enforces_resource_version(pod: Object) -> bool:
    """A pending pod is deleted only as read: it must not turn ready (and count) meanwhile."""
    phase = (pod.get("status") or {}).get("phase")
    return phase not in ("Succeeded", "Failed") and not pod["metadata"].get("deletionTimestamp")


def covers(budget: Object, pod: Object) -> bool:
    """Whether ``budget`` selects ``pod``; an empty or invalid selector selects nothing here."""
    try:
        selector = label_selector_as_selector((budget.get("spec") or {}).get("selector"))
    except SelectorError:
        return False
    return not selector.empty and selector.matches(pod["metadata"].get("labels") or {})


async def budgets_for(budgets: GenericStore, pod: Object) -> list[Object]:
    """The budgets of the pod's namespace covering it, read at the store's current revision."""
    namespace = pod["metadata"].get("namespace", "")
    listed = await budgets.list(namespace, ListOptions())
    return [b for b in listed.items if covers(b, pod)]


def skips_budget(budget: Object, pod: Object) -> bool:
    """A not-ready pod counts as no healthy pod: ``AlwaysAllow`` lets it go at once, the default
    ``IfHealthyBudget`` only while the budget is met."""
    if is_pod_ready(pod):
        return False
    if (budget.get("spec") or {}).get("unhealthyPodEvictionPolicy") == "AlwaysAllow":
        return True
    status = budget.get("status") or {}
    desired = status.get("desiredHealthy", 0)
    return bool(status.get("currentHealthy", 0) >= desired > 0)


def set_disruption_allowed(status: Object, generation: int) -> None:
    """Upstream's ``UpdateDisruptionAllowedCondition`` (``SufficientPods``/``InsufficientPods``)."""
    allowed = status.get("disruptionsAllowed", 0) > 0
    wanted = {
        "type": DISRUPTION_ALLOWED,
        "status": "True" if allowed else "False",
        "reason": "SufficientPods" if allowed else "InsufficientPods",
        "message": "",
        "observedGeneration": generation,
    }
    conditions: list[Any] = status.setdefault("conditions", [])
    for condition in conditions:
        if condition.get("type") == DISRUPTION_ALLOWED:
            if condition.get("status") != wanted["status"]:
                condition["lastTransitionTime"] = now_rfc3339()
            condition.update({k: v for k, v in wanted.items() if k != "message"})
            return
    conditions.append({**wanted, "lastTransitionTime": now_rfc3339()})


def decremented(budget: Object, pod_name: str, dry_run: bool) -> Object:
    """A copy of ``budget`` (which may be the watch cache's) with one disruption spent on
    ``pod_name``; raises the refusal instead."""
    budget = copy.deepcopy(budget)
    meta, status = budget["metadata"], budget.setdefault("status", {})
    name = meta["name"]
    if status.get("observedGeneration", 0) < meta.get("generation", 0):
        raise still_processing(name)
    allowed = status.get("disruptionsAllowed", 0)
    if allowed < 0:
        raise errors.forbidden("poddisruptionbudget", name, "policy", "pdb disruptions allowed is negative")
    if len(status.get("disruptedPods") or {}) > MAX_DISRUPTED_PODS:
        why = "DisruptedPods map too big - too many evictions not confirmed by PDB controller"
        raise errors.forbidden("poddisruptionbudget", name, "policy", why)
    if allowed == 0:
        needs = status.get("desiredHealthy", 0)
        has = status.get("currentHealthy", 0)
        raise too_many_requests(
            f"The disruption budget {name} needs {needs} healthy pods and has {has} currently", 0
        )
    status["disruptionsAllowed"] = allowed - 1
    if allowed == 1:
        set_disruption_allowed(status, status.get("observedGeneration", 0))
    if not dry_run:
        status.setdefault("disruptedPods", {})[pod_name] = now_rfc3339()
    return budget


async def check_and_decrement(budgets: GenericStore, budget: Object, pod_name: str, dry_run: bool) -> None:
    """Spend one disruption of ``budget`` (as read) on the pod; on a conflict re-read the
    budget and decide again, up to ``RETRY_STEPS`` times (then a 504, as upstream's timeout)."""
    namespace, name = budget["metadata"].get("namespace", ""), budget["metadata"]["name"]
    for attempt in range(RETRY_STEPS):
        if attempt:
            await asyncio.sleep(RETRY_INTERVAL)
            budget = await budgets.get(namespace, name)
        wanted = decremented(budget, pod_name, dry_run)
        if dry_run:
            return
        try:
            await budgets.update(namespace, name, _replacing(wanted), subresource="status")
            return
        except errors.ApiError as err:
            if err.code != 409:
                raise
    raise errors.timeout(f'Timeout: couldn\'t update PodDisruptionBudget "{name}" due to conflicts', 10)


def _replacing(wanted: Object) -> Callable[[Object], Object]:
    return lambda _current: wanted
