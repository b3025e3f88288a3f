"""The built-in controllers: upstream's ``--controllers`` names (and older aliases), the
service account each acts as (``system:controller:<account>``), and default worker counts
(upstream's ``--concurrent-*-syncs`` defaults)."""

from __future__ import annotations

from controllers.daemon.controller import DaemonSetsController
from controllers.deployment.controller import DeploymentController
from controllers.endpoint.controller import EndpointsController
from controllers.endpointslice.controller import EndpointSliceController
from controllers.endpointslicemirroring.controller import EndpointSliceMirroringController
from controllers.garbagecollector.garbagecollector import GarbageCollector
from controllers.manager.registry import ControllerContext, ControllerRegistry, ControllerSpec
from controllers.namespace.controller import NamespaceController
from controllers.nodelifecycle.controller import NodeLifecycleController
from controllers.nodelifecycle.tainteviction import TaintEvictionController
from controllers.replicaset.controller import ReplicaSetController
from controllers.replication import new_replication_manager
from controllers.rootcacertpublisher.publisher import RootCACertPublisher
from controllers.serviceaccount.controller import ServiceAccountController
from minikube_py.controller import Controller


def _replicaset(c: ControllerContext) -> Controller:
    return ReplicaSetController(c.client, c.factory, c.recorder, clock=c.clock)


def _deployment(c: ControllerContext) -> Controller:
    return DeploymentController(c.client, c.factory, c.recorder, clock=c.clock)


def _garbage_collector(c: ControllerContext) -> Controller:
    return GarbageCollector(c.client, c.factory, c.recorder, clock=c.clock)


def _namespace(c: ControllerContext) -> Controller:
    return NamespaceController(c.client, c.factory, c.recorder, clock=c.clock)


def _serviceaccount(c: ControllerContext) -> Controller:
    return ServiceAccountController(c.client, c.factory, c.recorder, clock=c.clock)


def _root_ca_cert_publisher(c: ControllerContext) -> Controller:
    return RootCACertPublisher(c.client, c.factory, c.root_ca, clock=c.clock)


def _node_lifecycle(c: ControllerContext) -> Controller:
    return NodeLifecycleController(
        c.client,
        c.factory,
        c.recorder,
        clock=c.clock,
        node_monitor_period=c.node_monitor_period,
        node_monitor_grace_period=c.node_monitor_grace_period,
    )


def _taint_eviction(c: ControllerContext) -> Controller:
    return TaintEvictionController(c.client, c.factory, c.recorder, clock=c.clock)


def _endpoints(c: ControllerContext) -> Controller:
    return EndpointsController(c.client, c.factory, clock=c.clock)


def _endpointslice(c: ControllerContext) -> Controller:
    return EndpointSliceController(
        c.client, c.factory, clock=c.clock, max_endpoints_per_slice=c.max_endpoints_per_slice
    )


def _endpointslice_mirroring(c: ControllerContext) -> Controller:
    return EndpointSliceMirroringController(c.client, c.factory, clock=c.clock)


def _replication(c: ControllerContext) -> Controller:
    return new_replication_manager(c.client, c.factory, c.recorder, clock=c.clock)


def _daemonset(c: ControllerContext) -> Controller:
    return DaemonSetsController(c.client, c.factory, c.recorder, clock=c.clock)


def builtin_registry() -> ControllerRegistry:
    return ControllerRegistry(
        [
            ControllerSpec(
                "serviceaccount-controller",
                _serviceaccount,
                "service-account-controller",
                1,
                ("serviceaccount",),
            ),
            ControllerSpec(
                "root-ca-certificate-publisher-controller",
                _root_ca_cert_publisher,
                "root-ca-cert-publisher",
                1,
                ("root-ca-cert-publisher",),
            ),
            ControllerSpec("namespace-controller", _namespace, "namespace-controller", 10, ("namespace",)),
            ControllerSpec(
                "garbage-collector-controller",
                _garbage_collector,
                "generic-garbage-collector",
                20,
                ("garbagecollector", "garbage-collector"),
            ),
            ControllerSpec("replicaset-controller", _replicaset, "replicaset-controller", 5, ("replicaset",)),
            ControllerSpec("deployment-controller", _deployment, "deployment-controller", 5, ("deployment",)),
            ControllerSpec(
                "node-lifecycle-controller", _node_lifecycle, "node-controller", 1, ("nodelifecycle",)
            ),
            ControllerSpec("taint-eviction-controller", _taint_eviction, "taint-eviction-controller", 1),
            ControllerSpec("endpoints-controller", _endpoints, "endpoint-controller", 5, ("endpoint",)),
            ControllerSpec(
                "endpointslice-controller", _endpointslice, "endpointslice-controller", 5, ("endpointslice",)
            ),
            ControllerSpec(
                "endpointslice-mirroring-controller",
                _endpointslice_mirroring,
                "endpointslicemirroring-controller",
                5,
                ("endpointslicemirroring",),
            ),
            ControllerSpec(
                "replicationcontroller-controller",
                _replication,
                "replication-controller",
                5,
                ("replicationcontroller",),
            ),
            ControllerSpec("daemonset-controller", _daemonset, "daemon-set-controller", 2, ("daemonset",)),
        ]
    )
