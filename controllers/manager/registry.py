"""The controllers the manager knows, by name, and which of them a ``--controllers`` list
selects (upstream's rules: ``*`` is every controller on by default, ``name`` turns one on,
``-name`` turns one off; the last word on a name wins over ``*``)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
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


NewController = Callable[[ControllerContext], Controller]


class UnknownControllerError(ValueError):
    """A ``--controllers`` entry names no controller."""


@dataclass(frozen=True, slots=True)
class ControllerSpec:
    """``name`` as ``--controllers`` spells it (upstream's, with its older ``aliases``);
    ``service_account`` in kube-system whose credentials the controller acts with (also its
    event source component); ``workers`` its default number of concurrent syncs."""

    name: str
    new: NewController
    service_account: str
    workers: int
    aliases: tuple[str, ...] = ()
    enabled_by_default: bool = True


class ControllerRegistry:
    """Specs by name; registering a name (or alias) twice is an error."""

    def __init__(self, specs: Iterable[ControllerSpec] = ()) -> None:
        self._specs: dict[str, ControllerSpec] = {}
        self._names: dict[str, str] = {}
        for spec in specs:
            self.register(spec)

    def register(self, spec: ControllerSpec) -> None:
        for name in (spec.name, *spec.aliases):
            if name in self._names:
                raise ValueError(f"controller {name} is registered twice")
            self._names[name] = spec.name
        self._specs[spec.name] = spec

    def names(self) -> list[str]:
        return sorted(self._specs)

    def select(self, flags: Sequence[str]) -> list[ControllerSpec]:
        """The specs ``flags`` (the ``--controllers`` words) turn on, in registration order."""
        wanted: dict[str, bool] = {}
        star = False
        for word in flags:
            word = word.strip()
            if word == "*":
                star = True
                continue
            off = word.startswith("-")
            name = self._names.get(word.lstrip("-"))
            if name is None:
                known = ", ".join(self.names())
                raise UnknownControllerError(
                    f'"{word.lstrip("-")}" is not in the list of known controllers: {known}'
                )
            wanted[name] = not off
        return [
            spec for spec in self._specs.values() if wanted.get(spec.name, star and spec.enabled_by_default)
        ]
