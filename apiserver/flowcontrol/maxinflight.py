"""``MaxInFlight``: upstream's ``--max-requests-inflight`` and
``--max-mutating-requests-inflight`` limiter, used when priority and fairness is off. Two
independent counters (read-only: get, list, watch; mutating: every other verb); a limit of 0
leaves that kind unlimited. A request over its limit is not queued: it is rejected at once
(unless its user is in ``system:masters``, which the filter decides)."""

from __future__ import annotations


class MaxInFlight:
    def __init__(self, read_only_limit: int, mutating_limit: int) -> None:
        self.limits = {False: read_only_limit, True: mutating_limit}
        self.in_flight = {False: 0, True: 0}

    def try_acquire(self, mutating: bool) -> bool:
        """Take a slot of the request's kind; False when that kind is at its limit."""
        limit = self.limits[mutating]
        if limit and self.in_flight[mutating] >= limit:
            return False
        self.in_flight[mutating] += 1
        return True

    def release(self, mutating: bool) -> None:
        self.in_flight[mutating] -= 1


# Upstream's defaults are 400 and 200 for a multi-core Go server; this one serves every
# request on one event loop, where more concurrency only adds latency: a quarter of them.
DEFAULT_READ_ONLY_LIMIT = 100
DEFAULT_MUTATING_LIMIT = 50
