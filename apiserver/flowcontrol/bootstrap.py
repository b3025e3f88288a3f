"""Upstream's bootstrap configuration (``apis/flowcontrol/bootstrap/default.go``): the
mandatory ``exempt`` and ``catch-all`` objects plus the suggested ones, with the same names,
shares, queuing parameters, subjects, rules and matching precedences. It is the only
configuration: FlowSchema and PriorityLevelConfiguration objects are not served, and
borrowing between levels (``lendablePercent``) is not modelled."""

from __future__ import annotations

from apiserver.flowcontrol.schema import (
    ALL,
    Distinguisher,
    FlowSchema,
    NonResourceRule,
    PolicyRules,
    PriorityLevel,
    Queuing,
    ResourceRule,
    Subject,
)

MASTERS = "system:masters"
NODES = "system:nodes"
AUTHENTICATED = "system:authenticated"
UNAUTHENTICATED = "system:unauthenticated"
SERVICE_ACCOUNTS = "system:serviceaccounts"
CONTROLLER_MANAGER = "system:kube-controller-manager"
SCHEDULER = "system:kube-scheduler"

PRIORITY_LEVELS = (
    PriorityLevel("exempt", shares=0, exempt=True),
    PriorityLevel("catch-all", shares=5),  # LimitResponse Reject: no queues
    PriorityLevel("system", shares=30, queuing=Queuing(64, 6, 50)),
    PriorityLevel("node-high", shares=40, queuing=Queuing(64, 6, 50)),
    PriorityLevel("leader-election", shares=10, queuing=Queuing(16, 4, 50)),
    PriorityLevel("workload-high", shares=40, queuing=Queuing(128, 6, 50)),
    PriorityLevel("workload-low", shares=100, queuing=Queuing(128, 6, 50)),
    PriorityLevel("global-default", shares=20, queuing=Queuing(128, 6, 50)),
)


def _groups(*names: str) -> tuple[Subject, ...]:
    return tuple(Subject("Group", name) for name in names)


def _users(*names: str) -> tuple[Subject, ...]:
    return tuple(Subject("User", name) for name in names)


KUBE_SYSTEM_SERVICE_ACCOUNTS = (Subject("ServiceAccount", ALL, "kube-system"),)
EVERYONE = _groups(UNAUTHENTICATED, AUTHENTICATED)
EVERY_RESOURCE = (ResourceRule((ALL,), (ALL,), (ALL,), (ALL,), cluster_scope=True),)
EVERY_URL = (NonResourceRule((ALL,), (ALL,)),)


def _everything(subjects: tuple[Subject, ...]) -> tuple[PolicyRules, ...]:
    return (PolicyRules(subjects, EVERY_RESOURCE, EVERY_URL),)


_BY_USER, _BY_NAMESPACE = Distinguisher.BY_USER, Distinguisher.BY_NAMESPACE
_LEASES = ResourceRule(("get", "create", "update"), ("coordination.k8s.io",), ("leases",), (ALL,), False)
_NODE_HIGH_RULES = (
    ResourceRule((ALL,), ("",), ("nodes", "nodes/status"), (ALL,), True),
    ResourceRule((ALL,), ("coordination.k8s.io",), ("leases",), (ALL,), False),
)

FLOW_SCHEMAS = (
    FlowSchema("exempt", "exempt", 1, None, _everything(_groups(MASTERS))),
    FlowSchema(
        "probes",
        "exempt",
        2,
        None,
        (PolicyRules(EVERYONE, (), (NonResourceRule(("get",), ("/healthz", "/readyz", "/livez")),)),),
    ),
    FlowSchema(
        "system-leader-election",
        "leader-election",
        100,
        _BY_USER,
        (PolicyRules((*_users(CONTROLLER_MANAGER, SCHEDULER), *KUBE_SYSTEM_SERVICE_ACCOUNTS), (_LEASES,)),),
    ),
    FlowSchema(
        "system-node-high", "node-high", 400, _BY_USER, (PolicyRules(_groups(NODES), _NODE_HIGH_RULES),)
    ),
    FlowSchema("system-nodes", "system", 500, _BY_USER, _everything(_groups(NODES))),
    FlowSchema(
        "kube-controller-manager",
        "workload-high",
        800,
        _BY_NAMESPACE,
        _everything(_users(CONTROLLER_MANAGER)),
    ),
    FlowSchema("kube-scheduler", "workload-high", 800, _BY_NAMESPACE, _everything(_users(SCHEDULER))),
    FlowSchema(
        "kube-system-service-accounts",
        "workload-high",
        900,
        _BY_NAMESPACE,
        _everything(KUBE_SYSTEM_SERVICE_ACCOUNTS),
    ),
    FlowSchema("service-accounts", "workload-low", 9000, _BY_USER, _everything(_groups(SERVICE_ACCOUNTS))),
    FlowSchema("global-default", "global-default", 9900, _BY_USER, _everything(EVERYONE)),
    FlowSchema("catch-all", "catch-all", 10000, _BY_USER, _everything(EVERYONE)),
)
