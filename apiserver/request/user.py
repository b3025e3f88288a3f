"""``UserInfo``: who is asking, as authentication established it (upstream's ``user.Info``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

ANONYMOUS = "system:anonymous"
UNAUTHENTICATED = "system:unauthenticated"
AUTHENTICATED = "system:authenticated"


@dataclass(frozen=True, slots=True)
class UserInfo:
    name: str
    groups: tuple[str, ...] = ()
    uid: str = ""
    extra: dict[str, list[str]] = field(default_factory=dict)


ANONYMOUS_USER = UserInfo(ANONYMOUS, (UNAUTHENTICATED,))


def user_json(user: UserInfo) -> dict[str, Any]:
    """``authentication.k8s.io/v1 UserInfo``, as reviews, audit events and admission reviews
    carry it (empty fields left out)."""
    out: dict[str, Any] = {"username": user.name} if user.name else {}
    if user.uid:
        out["uid"] = user.uid
    if user.groups:
        out["groups"] = list(user.groups)
    if user.extra:
        out["extra"] = {key: list(values) for key, values in user.extra.items()}
    return out
