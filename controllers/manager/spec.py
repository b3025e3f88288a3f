"""What a controller is to the manager: a ``ControllerSpec`` (upstream's
``ControllerDescriptor``) naming how to build it from a ``ControllerContext``.

Built-in controllers and out-of-tree ones (see ``loading``) are described the same way."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from minikube_py.cache.factory import SharedInformerFactory
from minikube_py.client.interfaces import Client
from minikube_py.clock import Clock
from minikube_py.controller import Controller
from minikube_py.events import EventRecorder


@dataclass(frozen=True, slots=True)
class ControllerContext:
    """What a controller is built from: its own client, the shared informer factory, its
    event recorder, the clock, and the manager's tunables (upstream's flag names). ``root_ca``
    is the PEM bundle that verifies the apiserver (``--root-ca-file``, else the CA of the
    manager's kubeconfig; empty when that trusts the system store)."""

    client: Client
    factory: SharedInformerFactory
    recorder: EventRecorder
    clock: Clock
    node_monitor_period: float = 5.0
    node_monitor_grace_period: float = 40.0
    root_ca: bytes = field(default=b"", repr=False)
    max_endpoints_per_slice: int = 100


NewController = Callable[[ControllerContext], Controller]


class UnknownControllerError(ValueError):
    """A ``--controllers`` entry names no controller the manager can run: an unknown name,
    or an out-of-tree reference that does not load (``ControllerLoadError``). One line."""


class ControllerLoadError(UnknownControllerError):
    """An out-of-tree ``--controllers`` entry (an import path, a file or an entry point) that
    cannot be loaded or does not describe a controller. One line, naming the entry."""


@dataclass(frozen=True, slots=True)
class ControllerSpec:
    """``name`` as ``--controllers`` spells it (upstream's, with its older ``aliases``);
    ``new`` builds the controller from its ``ControllerContext``; ``service_account`` in
    kube-system whose credentials the controller acts with (also its event source
    component; RBAC grants it ``system:controller:<service_account>``); ``workers`` its
    default number of concurrent syncs."""

    name: str
    new: NewController
    service_account: str
    workers: int
    aliases: tuple[str, ...] = ()
    enabled_by_default: bool = True
