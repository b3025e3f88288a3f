"""``UserInfo``: who is asking, as authentication established it (upstream's ``user.Info``)."""

from __future__ import annotations

from dataclasses import dataclass, field

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
