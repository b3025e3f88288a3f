"""Which requests are long-running (upstream's ``BasicLongRunningRequestCheck`` as
kube-apiserver configures it): the ``watch`` and ``proxy`` verbs, and the ``attach``,
``exec``, ``proxy``, ``log`` and ``portforward`` subresources. Max-in-flight never counts
them; priority and fairness counts a watch only until it is set up, and no other."""

from __future__ import annotations

from apiserver.request.info import RequestInfo

LONG_RUNNING_VERBS = frozenset({"watch", "proxy"})
LONG_RUNNING_SUBRESOURCES = frozenset({"attach", "exec", "proxy", "log", "portforward"})
READ_ONLY_VERBS = frozenset({"get", "list", "watch"})


def is_long_running(info: RequestInfo) -> bool:
    if info.verb in LONG_RUNNING_VERBS:
        return True
    return info.is_resource_request and info.subresource in LONG_RUNNING_SUBRESOURCES


def is_mutating(info: RequestInfo) -> bool:
    """Upstream's split: every verb but get, list and watch counts as mutating."""
    return info.verb not in READ_ONLY_VERBS
