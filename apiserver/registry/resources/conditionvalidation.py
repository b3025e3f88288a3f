"""``metav1validation.ValidateConditions``: the rules every ``metav1.Condition`` list obeys
(types unique and qualified names, a known status, a set transition time, a well-formed reason)."""

from __future__ import annotations

import re
from typing import Any

from minikube_py.api.field_errors import FieldError, invalid, not_supported, required, too_long
from minikube_py.api.validation import is_qualified_name, regex_error

STATUSES = ("False", "True", "Unknown")
MAX_REASON_LENGTH = 1024
MAX_MESSAGE_LENGTH = 32 * 1024
REASON_FORMAT = "[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?"
REASON_MESSAGE = (
    "a condition reason must start with alphabetic character, optionally followed by a string of "
    "alphanumeric characters or '_,:', and must end with an alphanumeric character or '_'"
)
_REASON = re.compile(REASON_FORMAT)
_EXAMPLES = ("my_name", "MY_NAME", "MyName", "ReasonA,ReasonB", "ReasonA:ReasonB")


def validate_condition(condition: dict[str, Any], at: str) -> list[FieldError]:
    kind = str(condition.get("type") or "")
    errs = [invalid(f"{at}.type", kind, m) for m in is_qualified_name(kind)]
    status = condition.get("status")
    if status not in STATUSES:
        errs.append(not_supported(f"{at}.status", status or "", STATUSES))
    generation = condition.get("observedGeneration")
    if isinstance(generation, int) and generation < 0:
        errs.append(invalid(f"{at}.observedGeneration", generation, "must be greater than or equal to zero"))
    if not condition.get("lastTransitionTime"):
        errs.append(required(f"{at}.lastTransitionTime", "must be set"))
    reason = str(condition.get("reason") or "")
    if not reason:
        errs.append(required(f"{at}.reason", "must be set"))
    else:
        if not _REASON.fullmatch(reason):
            errs.append(
                invalid(f"{at}.reason", reason, regex_error(REASON_MESSAGE, REASON_FORMAT, *_EXAMPLES))
            )
        if len(reason) > MAX_REASON_LENGTH:
            errs.append(too_long(f"{at}.reason", MAX_REASON_LENGTH))
    if len(str(condition.get("message") or "")) > MAX_MESSAGE_LENGTH:
        errs.append(too_long(f"{at}.message", MAX_MESSAGE_LENGTH))
    return errs


def validate_conditions(conditions: Any, path: str) -> list[FieldError]:
    """Each condition's rules, and a ``Duplicate value`` for a type seen before."""
    errs: list[FieldError] = []
    seen: set[str] = set()
    for i, condition in enumerate(conditions if isinstance(conditions, list) else []):
        if not isinstance(condition, dict):
            continue
        kind = str(condition.get("type") or "")
        if kind in seen:
            errs.append(FieldError("FieldValueDuplicate", f"{path}[{i}].type", kind))
        seen.add(kind)
        errs += validate_condition(condition, f"{path}[{i}]")
    return errs
