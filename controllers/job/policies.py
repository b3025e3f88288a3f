"""``podFailurePolicy`` and ``successPolicy`` matching (upstream's pod_failure_policy.go and
success_policy.go)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from controllers.job.indexes import parse_intervals

FAIL_JOB = "FailJob"
FAIL_INDEX = "FailIndex"
IGNORE = "Ignore"
COUNT = "Count"


@dataclass(frozen=True, slots=True)
class PolicyMatch:
    """What a failed pod means: ``message`` is set for FailJob, ``count`` says whether it counts
    towards ``backoffLimit``, ``action`` is the matched rule's action (None: no rule matched)."""

    message: str | None
    count: bool
    action: str | None


NO_MATCH = PolicyMatch(None, True, None)


def match_pod_failure_policy(policy: Mapping[str, Any] | None, pod: Mapping[str, Any]) -> PolicyMatch:
    """The first rule matching the failed ``pod``, in order."""
    if not policy:
        return NO_MATCH
    meta, status = pod.get("metadata") or {}, pod.get("status") or {}
    for index, rule in enumerate(policy.get("rules") or []):
        action = rule.get("action")
        if rule.get("onExitCodes") is not None:
            container = _match_exit_codes(status, rule["onExitCodes"])
            if container is None:
                continue
            code = container["state"]["terminated"].get("exitCode")
            pod_name = f"{meta.get('namespace')}/{meta.get('name')}"
            what = f"Container {container.get('name')} for pod {pod_name} failed with exit code {code}"
        elif rule.get("onPodConditions") is not None:
            condition = _match_conditions(status, rule["onPodConditions"])
            if condition is None:
                continue
            what = f"Pod {meta.get('namespace')}/{meta.get('name')} has condition {condition.get('type')}"
        else:
            continue
        if action == FAIL_JOB:
            return PolicyMatch(f"{what} matching {action} rule at index {index}", True, action)
        if action == IGNORE:
            return PolicyMatch(None, False, action)
        if action in (COUNT, FAIL_INDEX):
            return PolicyMatch(None, True, action)
    return NO_MATCH


def _match_exit_codes(status: Mapping[str, Any], requirement: Mapping[str, Any]) -> Mapping[str, Any] | None:
    name = requirement.get("containerName")
    values = set(requirement.get("values") or [])
    operator = requirement.get("operator")
    statuses = list(status.get("initContainerStatuses") or []) + list(status.get("containerStatuses") or [])
    for container in statuses:
        terminated = (container.get("state") or {}).get("terminated")
        if not terminated or terminated.get("exitCode", 0) == 0:
            continue  # successful containers never match (upstream)
        if name and container.get("name") != name:
            continue
        code = terminated.get("exitCode")
        if (operator == "In" and code in values) or (operator == "NotIn" and code not in values):
            return container  # type: ignore[no-any-return]
    return None


def _match_conditions(
    status: Mapping[str, Any], patterns: list[Mapping[str, Any]]
) -> Mapping[str, Any] | None:
    for condition in status.get("conditions") or []:
        for pattern in patterns:
            wanted = pattern.get("status") or "True"
            if condition.get("type") == pattern.get("type") and condition.get("status") == wanted:
                return condition  # type: ignore[no-any-return]
    return None


def match_success_policy(
    policy: Mapping[str, Any] | None, completions: int, succeeded: set[int]
) -> str | None:
    """The SuccessCriteriaMet message of the first rule the succeeded indexes meet, or None."""
    if not policy:
        return None
    for index, rule in enumerate(policy.get("rules") or []):
        wanted_count = rule.get("succeededCount")
        if rule.get("succeededIndexes") is not None:
            wanted = parse_intervals(rule["succeededIndexes"], completions)
            done = len(wanted & succeeded)
            met = done >= wanted_count if wanted_count is not None else bool(wanted) and done == len(wanted)
        else:
            met = wanted_count is not None and len(succeeded) >= wanted_count
        if met:
            return f"Matched rules at index {index}"
    return None
