"""metrics.k8s.io's NodeMetrics and PodMetrics: computed from the node agents on every request
by ``apiserver/endpoints/metrics.py`` and stored nowhere. Their resources are ``nodes`` and
``pods``, so they must never get a store: it would share the core kinds' storage."""

from __future__ import annotations

from apiserver.registry.strategy import Strategy
from minikube_py.api.models import metrics


class MetricsStrategy(Strategy):
    """No store (``stored = False``); only the Table hooks are the base class's."""

    kinds = (metrics.NodeMetrics, metrics.PodMetrics)
    stored = False
