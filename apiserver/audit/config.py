"""``AuditConfig``: the audit gate's part of ``SecurityConfig`` (a policy and a backend)."""

from __future__ import annotations

from dataclasses import dataclass

from apiserver.audit.backend import Sink
from apiserver.audit.policy import Policy, PolicyEvaluator


@dataclass(frozen=True)
class AuditConfig:
    """Requests are audited by ``evaluator``'s policy into ``sink``."""

    evaluator: PolicyEvaluator
    sink: Sink

    @classmethod
    def of(cls, policy: Policy, sink: Sink) -> AuditConfig:
        return cls(PolicyEvaluator(policy), sink)
