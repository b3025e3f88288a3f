"""Impersonation requests (upstream's ``filters/impersonation.go``): who a request asks to act
as, each part authorized with the ``impersonate`` verb on ``users``, ``groups``,
``serviceaccounts`` (core group), ``uids`` or ``userextras/<key>`` (authentication.k8s.io),
and the user that results."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from urllib.parse import unquote

from apiserver.authz.attributes import Attributes
from apiserver.authz.policycache import SA_PREFIX
from apiserver.request.user import ANONYMOUS, AUTHENTICATED, UNAUTHENTICATED, UserInfo

USER_HEADER = "impersonate-user"
GROUP_HEADER = "impersonate-group"
UID_HEADER = "impersonate-uid"
EXTRA_PREFIX = "impersonate-extra-"
AUTHENTICATION_GROUP = "authentication.k8s.io"


@dataclass
class Impersonation:
    """The ``Impersonate-*`` headers of one request (header values as sent)."""

    user: str = ""
    groups: list[str] = field(default_factory=list)
    uid: str = ""
    extra: dict[str, list[str]] = field(default_factory=dict)

    @classmethod
    def from_headers(cls, headers: list[tuple[bytes, bytes]]) -> Impersonation | None:
        """None when the request asks for no impersonation."""
        out, seen = cls(), False
        for raw_name, raw_value in headers:
            name, value = raw_name.decode("latin-1").lower(), raw_value.decode("latin-1")
            if name == USER_HEADER:
                out.user, seen = value, True
            elif name == GROUP_HEADER:
                out.groups.append(value)
                seen = True
            elif name == UID_HEADER:
                out.uid, seen = value, True
            elif name.startswith(EXTRA_PREFIX):
                out.extra.setdefault(unquote(name[len(EXTRA_PREFIX) :]).lower(), []).append(value)
                seen = True
        return out if seen else None

    def checks(self, requester: UserInfo) -> Iterator[Attributes]:
        """The ``impersonate`` requests to authorize, in upstream's order."""
        if self.user.startswith(SA_PREFIX) and self.user.count(":") == 3:
            namespace, name = self.user[len(SA_PREFIX) :].split(":")
            yield Attributes(requester, "impersonate", True, namespace, "", "", "serviceaccounts", "", name)
        else:
            yield Attributes(requester, "impersonate", True, "", "", "", "users", "", self.user)
        for group in self.groups:
            yield Attributes(requester, "impersonate", True, "", "", "", "groups", "", group)
        for key, values in self.extra.items():
            for value in values:
                yield Attributes(
                    requester, "impersonate", True, "", AUTHENTICATION_GROUP, "", "userextras", key, value
                )
        if self.uid:
            yield Attributes(
                requester, "impersonate", True, "", AUTHENTICATION_GROUP, "", "uids", "", self.uid
            )

    def user_info(self) -> UserInfo:
        """The impersonated user: a service account keeps its groups when none are asked for;
        everyone gets ``system:authenticated`` (``system:unauthenticated`` for anonymous)."""
        groups = list(self.groups)
        if not groups and self.user.startswith(SA_PREFIX) and self.user.count(":") == 3:
            namespace = self.user[len(SA_PREFIX) :].split(":")[0]
            groups = ["system:serviceaccounts", f"system:serviceaccounts:{namespace}"]
        implied = UNAUTHENTICATED if self.user == ANONYMOUS else AUTHENTICATED
        if implied not in groups:
            groups.append(implied)
        return UserInfo(self.user, tuple(groups), self.uid, dict(self.extra))
