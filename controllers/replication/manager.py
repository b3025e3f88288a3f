"""``new_replication_manager``: upstream's ``ReplicationManager``, which is its ReplicaSet
controller given ReplicationControllers. Here that is ``ReplicaSetController`` with the
``REPLICATION_CONTROLLER`` kind: core/v1 owner references, the ``replicationcontrollers``
resource and its ``/status``, and the map selector read as ``labels.SelectorFromSet``.
Everything else (expectations, adoption, slow-start creates, ranked deletes, status and its
``ReplicaFailure`` condition, Events) is the one implementation both share."""

from __future__ import annotations

from controllers.replicaset.controller import BURST_REPLICAS, ReplicaSetController
from controllers.replicaset.kinds import ReplicatedKind
from minikube_py.api.labels import Selector, selector_from_set
from minikube_py.api.unstructured import Object
from minikube_py.cache.factory import SharedInformerFactory
from minikube_py.client.interfaces import Client
from minikube_py.client.resourcetypes import REPLICATIONCONTROLLERS
from minikube_py.clock import Clock
from minikube_py.events import Recorder


def map_selector_of(rc: Object) -> Selector:
    """An RC's ``spec.selector`` (a label map) as a selector: every label must equal its value.
    An empty map is the empty selector, which adopts nothing (validation refuses one)."""
    selector = (rc.get("spec") or {}).get("selector") or {}
    return selector_from_set({str(k): str(v) for k, v in selector.items()})


REPLICATION_CONTROLLER = ReplicatedKind(
    "replicationcontroller", "v1", "ReplicationController", REPLICATIONCONTROLLERS, map_selector_of
)


def new_replication_manager(
    client: Client,
    factory: SharedInformerFactory,
    recorder: Recorder,
    *,
    clock: Clock | None = None,
    burst_replicas: int = BURST_REPLICAS,
) -> ReplicaSetController:
    """The controller of ReplicationControllers (``--controllers`` name
    ``replicationcontroller-controller``)."""
    return ReplicaSetController(
        client, factory, recorder, clock=clock, burst_replicas=burst_replicas, kind=REPLICATION_CONTROLLER
    )
