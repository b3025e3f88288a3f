"""What an authorizer decides on: ``Attributes`` (upstream's ``authorizer.Attributes``), the
``Decision`` it returns, and the ``Authorizer`` protocol.

An authorizer answers Allow, Deny or NoOpinion with a reason. RBAC only ever allows (or has
no opinion); Deny is for authorizers that must stop the union (none here yet).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Protocol

from apiserver.request.info import RequestInfo
from apiserver.request.user import UserInfo


class Decision(enum.Enum):
    ALLOW = "allow"
    DENY = "deny"
    NO_OPINION = "no-opinion"


@dataclass(frozen=True, slots=True)
class Result:
    """A decision with its reason (upstream's ``(Decision, reason, error)``: RBAC reports its
    evaluation errors in the reason, ``RBAC: role.rbac.authorization.k8s.io "x" not found``)."""

    decision: Decision
    reason: str = ""

    @property
    def allowed(self) -> bool:
        return self.decision is Decision.ALLOW


NO_OPINION = Result(Decision.NO_OPINION)


@dataclass(frozen=True, slots=True)
class Attributes:
    """One request as authorizers see it. ``resource_request`` False: ``path`` and ``verb``
    (the lower-cased HTTP method) are all that matter."""

    user: UserInfo
    verb: str
    resource_request: bool = False
    namespace: str = ""
    api_group: str = ""
    api_version: str = ""
    resource: str = ""
    subresource: str = ""
    name: str = ""
    path: str = ""
    field_selector: dict[str, str] = field(default_factory=dict)

    @property
    def combined_resource(self) -> str:
        """``pods/status`` for a subresource request, else ``pods``."""
        return f"{self.resource}/{self.subresource}" if self.subresource else self.resource


class Authorizer(Protocol):
    def authorize(self, attrs: Attributes) -> Result:
        """Allow, Deny or NoOpinion for ``attrs``; must be quick (runs on every request)."""
        ...


def parse_field_selector(selector: str) -> dict[str, str]:
    """``a=b,c==d`` -> exact-match requirements (``!=`` terms are not requirements)."""
    out: dict[str, str] = {}
    for term in filter(None, selector.split(",")):
        if "!=" in term:
            continue
        key, sep, value = term.partition("==") if "==" in term else term.partition("=")
        if sep:
            out[key.strip()] = value.strip()
    return out


def attributes_for(user: UserInfo, info: RequestInfo, query: dict[str, str]) -> Attributes:
    """Attributes of a request. As upstream's request info, a list or watch with a
    ``metadata.name`` field selector names its object (so ``resourceNames`` rules apply)."""
    if not info.is_resource_request:
        return Attributes(user, info.verb, path=info.path)
    selector = parse_field_selector(query.get("fieldSelector", ""))
    name = info.name
    if not name and info.verb in ("list", "watch"):
        name = selector.get("metadata.name", "")
    return Attributes(
        user,
        info.verb,
        True,
        info.namespace,
        info.api_group,
        info.api_version,
        info.resource,
        info.subresource,
        name,
        info.path,
        selector,
    )
