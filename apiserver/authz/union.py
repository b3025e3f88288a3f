"""The union of authorizers (upstream's ``authorizer/union``) and the trivial modes."""

from __future__ import annotations

from collections.abc import Sequence

from apiserver.authz.attributes import NO_OPINION, Attributes, Authorizer, Decision, Result


class Union:
    """Asks each authorizer in turn; the first Allow or Deny wins. Without one, NoOpinion with
    every reason given, one a line (upstream joins them the same way)."""

    def __init__(self, authorizers: Sequence[Authorizer]) -> None:
        self.authorizers = tuple(authorizers)

    def authorize(self, attrs: Attributes) -> Result:
        reasons: list[str] = []
        for authorizer in self.authorizers:
            result = authorizer.authorize(attrs)
            if result.decision is not Decision.NO_OPINION:
                return result
            if result.reason:
                reasons.append(result.reason)
        return Result(Decision.NO_OPINION, "\n".join(reasons)) if reasons else NO_OPINION


class AlwaysAllow:
    def authorize(self, attrs: Attributes) -> Result:
        return Result(Decision.ALLOW)


class AlwaysDeny:
    def authorize(self, attrs: Attributes) -> Result:
        return Result(Decision.DENY, "Everything is forbidden.")
