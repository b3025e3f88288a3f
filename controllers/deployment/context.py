"""``SyncContext``: what the Deployment controller's sync helpers use, and nothing more.

The helpers (``sync``, ``rolling``, ``recreate``, ``scaling``, ``progress``, ``status``,
``writes``) once took the whole ``DeploymentController``; they now take this, built once by the
controller. So a helper's dependencies are visible in one place, a test can hand them a context
without building a controller, and no helper module imports the controller back (the package
has no import cycle, type-only ones included).
"""

from __future__ import annotations

from dataclasses import dataclass

from minikube_py.cache.store import Indexer
from minikube_py.client.interfaces import Client
from minikube_py.clock import Clock
from minikube_py.events import Recorder
from minikube_py.workqueue import RateLimitingQueue


@dataclass(frozen=True, slots=True)
class SyncContext:
    """``client`` writes Deployments and ReplicaSets (the controller's own credentials);
    ``recorder`` emits the Deployment's Events; ``clock`` stamps conditions and measures the
    progress deadline; ``queue`` is the controller's work queue (a stuck rollout requeues its
    key to be checked when the deadline passes); ``replica_sets`` is the ReplicaSet informer's
    cache (a create that hits AlreadyExists looks the existing one up there)."""

    client: Client
    recorder: Recorder
    clock: Clock
    queue: RateLimitingQueue[str]
    replica_sets: Indexer
