"""The namespace conditions the deleter maintains (upstream's ``status_condition_utils.go``):
each of five types is True with a failure reason while its problem lasts, and False with a
fixed "ok" reason and message otherwise. Messages are sorted so repeated passes agree."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

DISCOVERY_FAILURE = "NamespaceDeletionDiscoveryFailure"
GROUP_VERSION_PARSING_FAILURE = "NamespaceDeletionGroupVersionParsingFailure"
CONTENT_FAILURE = "NamespaceDeletionContentFailure"
CONTENT_REMAINING = "NamespaceContentRemaining"
FINALIZERS_REMAINING = "NamespaceFinalizersRemaining"

CONDITION_TYPES = (
    DISCOVERY_FAILURE,
    GROUP_VERSION_PARSING_FAILURE,
    CONTENT_FAILURE,
    CONTENT_REMAINING,
    FINALIZERS_REMAINING,
)
OK_REASONS = {
    DISCOVERY_FAILURE: "ResourcesDiscovered",
    GROUP_VERSION_PARSING_FAILURE: "ParsedGroupVersions",
    CONTENT_FAILURE: "ContentDeleted",
    CONTENT_REMAINING: "ContentRemoved",
    FINALIZERS_REMAINING: "ContentHasNoFinalizers",
}
OK_MESSAGES = {
    DISCOVERY_FAILURE: "All resources successfully discovered",
    GROUP_VERSION_PARSING_FAILURE: "All legacy kube types successfully parsed",
    CONTENT_FAILURE: "All content successfully deleted, may be waiting on finalization",
    CONTENT_REMAINING: "All content successfully removed",
    FINALIZERS_REMAINING: "All content-preserving finalizers finished",
}

Condition = dict[str, Any]


@dataclass
class ConditionUpdater:
    """Collects one pass's problems, then writes all five conditions onto a status."""

    now: str
    new_conditions: list[Condition] = field(default_factory=list)
    delete_content_errors: list[str] = field(default_factory=list)

    def process_content_totals(self, remaining: dict[str, int], finalizers: dict[str, int]) -> None:
        """``remaining``: "resource.group" -> instances left; ``finalizers``: name -> holders."""
        if remaining:
            parts = sorted(f"{gr} has {n} resource instances" for gr, n in remaining.items() if n)
            self._add(
                CONTENT_REMAINING, "SomeResourcesRemain", f"Some resources are remaining: {', '.join(parts)}"
            )
        if finalizers:
            parts = sorted(f"{name} in {n} resource instances" for name, n in finalizers.items() if n)
            message = f"Some content in the namespace has finalizers remaining: {', '.join(parts)}"
            self._add(FINALIZERS_REMAINING, "SomeFinalizersRemain", message)

    def process_delete_content_error(self, error: str) -> None:
        self.delete_content_errors.append(error)

    def update(self, status: dict[str, Any]) -> bool:
        """Write the conditions into ``status``; True when anything changed."""
        if self.delete_content_errors:
            errors = sorted(self.delete_content_errors)
            message = f"Failed to delete all resource types, {len(errors)} remaining: {', '.join(errors)}"
            self._add(CONTENT_FAILURE, "ContentDeletionFailed", message)
        conditions: list[Condition] = status.setdefault("conditions", [])
        changed = False
        for kind in CONDITION_TYPES:
            new = _find(self.new_conditions, kind) or self._ok(kind)
            old = _find(conditions, kind)
            if old is None:
                conditions.append(new)
                changed = True
            elif (old.get("status"), old.get("reason"), old.get("message")) != (
                new["status"],
                new["reason"],
                new["message"],
            ):
                if old.get("status") != new["status"]:
                    old["lastTransitionTime"] = self.now
                old.update(status=new["status"], reason=new["reason"], message=new["message"])
                changed = True
        return changed

    def _add(self, kind: str, reason: str, message: str) -> None:
        self.new_conditions.append(
            {
                "type": kind,
                "status": "True",
                "lastTransitionTime": self.now,
                "reason": reason,
                "message": message,
            }
        )

    def _ok(self, kind: str) -> Condition:
        return {
            "type": kind,
            "status": "False",
            "lastTransitionTime": self.now,
            "reason": OK_REASONS[kind],
            "message": OK_MESSAGES[kind],
        }


def _find(conditions: list[Condition], kind: str) -> Condition | None:
    return next((c for c in conditions if c.get("type") == kind), None)
