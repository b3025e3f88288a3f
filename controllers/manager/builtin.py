"""The built-in controllers: upstream's ``--controllers`` names (and older aliases), the
service account each acts as (``system:controller:<account>``), and default worker counts
(upstream's ``--concurrent-*-syncs`` defaults)."""

from __future__ import annotations

from collections.abc import Callable

from controllers.cronjob.controller import CronJobController
from controllers.daemon.controller import DaemonSetsController
from controllers.deployment.controller import DeploymentController
from controllers.disruption.controller import DisruptionController
from controllers.endpoint.controller import EndpointsController
from controllers.endpointslice.controller import EndpointSliceController
from controllers.endpointslicemirroring.controller import EndpointSliceMirroringController
from controllers.garbagecollector.garbagecollector import GarbageCollector
from controllers.job.controller import JobController
from controllers.manager.registry import ControllerContext, ControllerRegistry, ControllerSpec
from controllers.namespace.controller import NamespaceController
from controllers.nodelifecycle.controller import NodeLifecycleController
from controllers.nodelifecycle.tainteviction import TaintEvictionController
from controllers.podautoscaler import HorizontalController
from controllers.replicaset.controller import ReplicaSetController
from controllers.replication import new_replication_manager
from controllers.rootcacertpublisher.publisher import RootCACertPublisher
from controllers.serviceaccount.controller import ServiceAccountController
from controllers.statefulset.controller import StatefulSetController
from controllers.ttlafterfinished.controller import TTLAfterFinishedController
from controllers.volume.localpath.provisioner import LocalPathProvisioner
from controllers.volume.persistentvolume.controller import PersistentVolumeController
from controllers.volume.pvcprotection.controller import PVCProtectionController
from controllers.volume.pvprotection.controller import PVProtectionController
from minikube_py.controller import Controller


def _recording(new: Callable[..., Controller]) -> Callable[[ControllerContext], Controller]:
    """The factory of a controller built as most are: client, informers, event recorder, clock."""
    return lambda c: new(c.client, c.factory, c.recorder, clock=c.clock)


def _silent(new: Callable[..., Controller]) -> Callable[[ControllerContext], Controller]:
    """The factory of a controller that records no Events: client, informers, clock."""
    return lambda c: new(c.client, c.factory, clock=c.clock)


_replicaset = _recording(ReplicaSetController)
_deployment = _recording(DeploymentController)
_garbage_collector = _recording(GarbageCollector)
_namespace = _recording(NamespaceController)
_serviceaccount = _recording(ServiceAccountController)
_taint_eviction = _recording(TaintEvictionController)
_horizontal_pod_autoscaler = _recording(HorizontalController)
_disruption = _recording(DisruptionController)
_job = _recording(JobController)
_cronjob = _recording(CronJobController)
_persistentvolume_binder = _recording(PersistentVolumeController)
_local_path_provisioner = _recording(LocalPathProvisioner)
_replication = _recording(new_replication_manager)
_statefulset = _recording(StatefulSetController)
_daemonset = _recording(DaemonSetsController)
_endpoints = _silent(EndpointsController)
_endpointslice_mirroring = _silent(EndpointSliceMirroringController)
_ttl_after_finished = _silent(TTLAfterFinishedController)
_pvc_protection = _silent(PVCProtectionController)
_pv_protection = _silent(PVProtectionController)


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


def _endpointslice(c: ControllerContext) -> Controller:
    return EndpointSliceController(
        c.client, c.factory, clock=c.clock, max_endpoints_per_slice=c.max_endpoints_per_slice
    )


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
                "horizontal-pod-autoscaler-controller",
                _horizontal_pod_autoscaler,
                "horizontal-pod-autoscaler",
                5,
                ("horizontalpodautoscaling",),
            ),
            ControllerSpec("disruption-controller", _disruption, "disruption-controller", 1, ("disruption",)),
            ControllerSpec("job-controller", _job, "job-controller", 5, ("job",)),
            ControllerSpec(
                "ttl-after-finished-controller",
                _ttl_after_finished,
                "ttl-after-finished-controller",
                5,
                ("ttl-after-finished",),
            ),
            ControllerSpec("cronjob-controller", _cronjob, "cronjob-controller", 5, ("cronjob",)),
            ControllerSpec(
                "replicationcontroller-controller",
                _replication,
                "replication-controller",
                5,
                ("replicationcontroller",),
            ),
            ControllerSpec(
                "persistentvolume-binder-controller",
                _persistentvolume_binder,
                "persistent-volume-binder",
                1,
                ("persistentvolume-binder",),
            ),
            ControllerSpec("local-path-provisioner", _local_path_provisioner, "local-path-provisioner", 2),
            ControllerSpec(
                "persistentvolumeclaim-protection-controller",
                _pvc_protection,
                "pvc-protection-controller",
                1,
                ("pvc-protection",),
            ),
            ControllerSpec(
                "persistentvolume-protection-controller",
                _pv_protection,
                "pv-protection-controller",
                1,
                ("pv-protection",),
            ),
            ControllerSpec(
                "statefulset-controller", _statefulset, "statefulset-controller", 5, ("statefulset",)
            ),
            ControllerSpec("daemonset-controller", _daemonset, "daemon-set-controller", 2, ("daemonset",)),
        ]
    )
